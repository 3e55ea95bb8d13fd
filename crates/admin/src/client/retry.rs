//! The call machinery every admin call runs in: the deadline of a call,
//! the backoff between its attempts, and which failures are retried
//! (and which make the client rediscover the active controller).

use std::time::Duration;

use kraft_protocol::{ErrorCode, StrBytes};
use tokio::time::Instant;

use super::Admin;
use crate::config::AdminConfig;
use crate::error::{AdminError, ApiError, Result};

/// Why an attempt failed and whether the call may try again.
pub(super) struct Failure {
    error: AdminError,
    retry: bool,
    /// Forget the cached active controller before retrying.
    rediscover: bool,
}

impl Failure {
    pub(super) fn fatal(error: AdminError) -> Self {
        Failure {
            error,
            retry: false,
            rediscover: false,
        }
    }

    pub(super) fn retry(error: AdminError) -> Self {
        Failure {
            error,
            retry: true,
            rediscover: true,
        }
    }
}

impl From<AdminError> for Failure {
    fn from(error: AdminError) -> Self {
        let retry = error.is_retriable();
        let rediscover = matches!(
            error,
            AdminError::Connect { .. }
                | AdminError::Disconnected { .. }
                | AdminError::RequestTimeout { .. }
                | AdminError::NoActiveController(_)
        );
        Failure {
            error,
            retry,
            rediscover,
        }
    }
}

pub(super) type Attempt<T> = std::result::Result<T, Failure>;

/// Deadline bookkeeping of one call.
pub(super) struct Retry {
    call: &'static str,
    timeout: Duration,
    deadline: Instant,
    attempts: u32,
}

impl Retry {
    pub(super) fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    pub(super) fn request_timeout(&self, config: &AdminConfig) -> Duration {
        config.request_timeout.min(self.remaining())
    }

    pub(super) fn remaining_ms_i32(&self) -> i32 {
        i32::try_from(self.remaining().as_millis()).unwrap_or(i32::MAX)
    }

    fn timed_out(&self, last: Option<AdminError>) -> AdminError {
        AdminError::Timeout {
            call: self.call,
            timeout: self.timeout,
            attempts: self.attempts,
            last_error: last.map(Box::new),
        }
    }
}

impl Admin {
    pub(super) fn retry(&self, call: &'static str, timeout: Option<Duration>) -> Retry {
        let timeout = timeout.unwrap_or(self.inner.config.default_api_timeout);
        Retry {
            call,
            timeout,
            deadline: Instant::now() + timeout,
            attempts: 0,
        }
    }

    /// Handles the outcome of one attempt: `Some(result)` ends the call,
    /// `None` means "try again" (after the backoff has been slept).
    pub(super) async fn next_step<T>(
        &self,
        retry: &mut Retry,
        outcome: Attempt<T>,
    ) -> Option<Result<T>> {
        retry.attempts += 1;
        let failure = match outcome {
            Ok(v) => return Some(Ok(v)),
            Err(f) => f,
        };
        if failure.rediscover {
            self.forget_active_controller();
        }
        if !failure.retry {
            return Some(Err(failure.error));
        }
        let remaining = retry.remaining();
        if remaining.is_zero() {
            return Some(Err(retry.timed_out(Some(failure.error))));
        }
        let backoff = self.backoff(retry.attempts - 1);
        tracing::debug!(
            call = retry.call,
            attempt = retry.attempts,
            backoff_ms = backoff.as_millis() as u64,
            error = %failure.error,
            "retrying"
        );
        if backoff >= remaining {
            tokio::time::sleep(remaining).await;
            return Some(Err(retry.timed_out(Some(failure.error))));
        }
        tokio::time::sleep(backoff).await;
        None
    }

    /// `retry.backoff.ms * 2^tries`, capped at `retry.backoff.max.ms`, ±20 % jitter.
    fn backoff(&self, tries: u32) -> Duration {
        let cfg = &self.inner.config;
        let base = cfg.retry_backoff.as_secs_f64() * 2f64.powi(tries.min(30) as i32);
        let capped = base.min(
            cfg.retry_backoff_max
                .as_secs_f64()
                .max(cfg.retry_backoff.as_secs_f64()),
        );
        let r = {
            let mut meta = self.meta();
            // xorshift64
            let mut x = meta.rng;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            meta.rng = x;
            (x % 10_000) as f64 / 10_000.0
        };
        Duration::from_secs_f64(capped * (0.8 + 0.4 * r))
    }

    /// Maps a response error code: `Ok(())` for none; NOT_CONTROLLER (and,
    /// with bootstrap controllers, NOT_LEADER_OR_FOLLOWER) → retry after
    /// rediscovery; other codes → fatal unless `retry_codes` lists them.
    pub(super) fn check_code(
        &self,
        code: i16,
        message: Option<&StrBytes>,
        retry_codes: &[ErrorCode],
    ) -> Attempt<()> {
        let error = ErrorCode::from_code(code);
        if error.is_ok() {
            return Ok(());
        }
        let api = ApiError::new(error, message.map(|m| m.to_string()));
        if error == ErrorCode::NotController
            || (self.using_controllers() && error == ErrorCode::NotLeaderOrFollower)
        {
            return Err(Failure::retry(api.into()));
        }
        if retry_codes.contains(&error) {
            return Err(Failure {
                error: api.into(),
                retry: true,
                rediscover: false,
            });
        }
        Err(Failure::fatal(api.into()))
    }
}
