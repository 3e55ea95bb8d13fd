//! The controller mutation quota (KIP-599): Kafka 4.4's
//! `ControllerMutationQuotaManager`, its strict and permissive per-request
//! quotas, and the `TokenBucket` they draw on.
//!
//! **Who is throttled.** The `controller_mutation_rate` client quotas of the
//! metadata image are looked up for the request's principal name and client
//! id with Kafka's precedence (`ClientQuotaManager`'s default callback):
//! `user + client-id`, `user + default client-id`, `user`, `default user +
//! client-id`, `default user + default client-id`, `default user`,
//! `client-id`, `default client-id`. As in Kafka, which entity shapes carry
//! a quota at all decides the bucket a request draws on: a quota set only on
//! users makes every client of a user share one bucket, one set only on
//! client ids makes every user of a client id share one. With no
//! `controller_mutation_rate` anywhere, nothing is recorded and nothing
//! costs anything (Kafka's `UNBOUNDED_CONTROLLER_MUTATION_QUOTA`); an entity
//! that no quota covers is unbounded too.
//!
//! **The bucket.** Each bucket refills at the quota's rate (partitions per
//! second) up to a burst of `rate x controller.quota.window.num x
//! controller.quota.window.size.seconds`; it starts full. CreateTopics
//! charges a topic's partition count, CreatePartitions the partitions added,
//! DeleteTopics the deleted topic's partition count, each once the topic has
//! passed its other checks (Kafka's `applyPartitionChangeQuota`).
//!
//! **Strict and permissive.** From CreateTopics v6, DeleteTopics v5 and
//! CreatePartitions v3 the quota is strict: a topic that finds the bucket
//! already below zero is refused with THROTTLING_QUOTA_EXCEEDED ("The
//! throttling quota has been exceeded.") and charges nothing, while a topic
//! that finds tokens left is accepted even when it takes the bucket below
//! zero; the other topics of the request are handled as usual. Older
//! versions are permissive: every topic is charged and accepted. Either way
//! the response's `throttle_time_ms` is the time the bucket needs to climb
//! back to zero, as measured when it was last found below zero, less the
//! time spent since.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use kraft_protocol::ErrorCode;

use super::ApiError;
use crate::image::{ClientQuotaEntity, ClientQuotasImage};

/// The client quota key the controller applies.
pub const CONTROLLER_MUTATION_RATE: &str = "controller_mutation_rate";

/// Kafka's `Errors.THROTTLING_QUOTA_EXCEEDED` message.
pub const THROTTLING_QUOTA_EXCEEDED_MESSAGE: &str = "The throttling quota has been exceeded.";

/// How long a bucket nobody used stays in memory (Kafka's
/// `INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS`); a bucket idle that long is
/// full again, as a new one would be.
const IDLE_BUCKET_EXPIRY_MS: i64 = 3_600_000;

/// The buckets kept before idle ones are looked for.
const BUCKETS_BEFORE_PRUNING: usize = 1024;

/// The windows of the controller mutation quota
/// (`controller.quota.window.num`, `controller.quota.window.size.seconds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MutationQuotaWindow {
    /// `controller.quota.window.num`: the number of samples.
    pub samples: u32,
    /// `controller.quota.window.size.seconds`: the span of one sample.
    pub size_seconds: u32,
}

impl Default for MutationQuotaWindow {
    /// Kafka 4.4's defaults: 11 samples of 1 second.
    fn default() -> Self {
        MutationQuotaWindow {
            samples: 11,
            size_seconds: 1,
        }
    }
}

impl MutationQuotaWindow {
    /// The most tokens a bucket refilled at `rate` per second holds.
    pub fn burst(&self, rate: f64) -> f64 {
        f64::from(self.samples) * f64::from(self.size_seconds) * rate
    }
}

/// A token bucket (Kafka's `TokenBucket` stat): credits refilled at the
/// quota's rate per second, capped at the window's burst, spent by what is
/// recorded; it may go below zero.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TokenBucket {
    tokens: f64,
    last_update_ms: i64,
}

impl TokenBucket {
    /// An empty bucket last refilled at time 0: the first refill at a
    /// wall-clock time fills it.
    pub fn new() -> Self {
        TokenBucket::default()
    }

    fn refill(&mut self, rate: f64, burst: f64, now_ms: i64) {
        let elapsed_seconds = (now_ms - self.last_update_ms) as f64 / 1000.0;
        self.tokens = burst.min(self.tokens + rate * elapsed_seconds);
        self.last_update_ms = now_ms;
    }

    /// The credits at `now_ms`, after refilling at `rate`.
    pub fn measure(&mut self, rate: f64, window: MutationQuotaWindow, now_ms: i64) -> f64 {
        self.refill(rate, window.burst(rate), now_ms);
        self.tokens
    }

    /// Spends `value` credits at `now_ms` (a negative value gives credits
    /// back, never above the burst).
    pub fn record(&mut self, rate: f64, window: MutationQuotaWindow, value: f64, now_ms: i64) {
        let burst = window.burst(rate);
        self.refill(rate, burst, now_ms);
        self.tokens = burst.min(self.tokens - value);
    }
}

/// The time a bucket at `tokens` (below zero) needs, refilling at `rate`,
/// to climb back to zero, in milliseconds (Kafka's
/// `ControllerMutationQuotaManager.throttleTimeMs`).
pub fn throttle_time_ms(tokens: f64, rate: f64) -> i64 {
    (-tokens / rate * 1000.0).round() as i64
}

/// A quota entity's part: absent, the default entity, or a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Part {
    Absent,
    Default,
    Named(String),
}

impl Part {
    fn of(entity: &ClientQuotaEntity, kind: &str) -> Part {
        match entity.entries().get(kind) {
            None => Part::Absent,
            Some(None) => Part::Default,
            Some(Some(name)) => Part::Named(name.clone()),
        }
    }
}

/// The `controller_mutation_rate` quotas of an image, by (user, client-id).
#[derive(Debug, Default)]
struct Quotas {
    rates: HashMap<(Part, Part), f64>,
    /// Whether a quota is set on a user and a client id, on a user only, on
    /// a client id only (Kafka's `quotaTypesEnabled` bits).
    user_and_client: bool,
    user_only: bool,
    client_only: bool,
}

impl Quotas {
    fn from_image(image: &ClientQuotasImage) -> Quotas {
        let mut quotas = Quotas::default();
        for (entity, values) in image.entities() {
            let Some(rate) = values.get(CONTROLLER_MUTATION_RATE) else {
                continue;
            };
            if entity.entries().contains_key(ClientQuotaEntity::IP) {
                continue;
            }
            let user = Part::of(entity, ClientQuotaEntity::USER);
            let client = Part::of(entity, ClientQuotaEntity::CLIENT_ID);
            match (&user, &client) {
                (Part::Absent, Part::Absent) => continue,
                (Part::Absent, _) => quotas.client_only = true,
                (_, Part::Absent) => quotas.user_only = true,
                _ => quotas.user_and_client = true,
            }
            quotas.rates.insert((user, client), *rate);
        }
        quotas
    }

    fn enabled(&self) -> bool {
        self.user_and_client || self.user_only || self.client_only
    }

    fn has(&self, user: Part, client: Part) -> bool {
        self.rates.contains_key(&(user, client))
    }

    fn get(&self, user: Part, client: Part) -> Option<f64> {
        self.rates.get(&(user, client)).copied()
    }

    /// The bucket's (user, client-id) tags for a request (Kafka's
    /// `quotaMetricTags`): `""` stands for a part the bucket is not keyed on.
    fn tags(&self, user: &str, client: &str) -> (String, String) {
        let both = (user.to_owned(), client.to_owned());
        let user_only = (user.to_owned(), String::new());
        let client_only = (String::new(), client.to_owned());
        match (self.user_and_client, self.user_only, self.client_only) {
            (false, false, _) => client_only,
            (false, true, false) => user_only,
            (true, false, false) => both,
            _ => {
                let named_user = || Part::Named(user.to_owned());
                let named_client = || Part::Named(client.to_owned());
                if self.has(named_user(), named_client()) || self.has(named_user(), Part::Default) {
                    both
                } else if self.has(named_user(), Part::Absent) {
                    user_only
                } else if self.has(Part::Default, named_client())
                    || self.has(Part::Default, Part::Default)
                {
                    both
                } else if self.has(Part::Default, Part::Absent) {
                    user_only
                } else {
                    client_only
                }
            }
        }
    }

    /// The rate of a bucket's tags (Kafka's `quotaLimit`), or `None`:
    /// unbounded.
    fn rate(&self, (user, client): &(String, String)) -> Option<f64> {
        let named_user = || Part::Named(user.clone());
        let named_client = || Part::Named(client.clone());
        match (user.is_empty(), client.is_empty()) {
            (false, false) => self
                .get(named_user(), named_client())
                .or_else(|| self.get(named_user(), Part::Default))
                .or_else(|| self.get(Part::Default, named_client()))
                .or_else(|| self.get(Part::Default, Part::Default)),
            (false, true) => self
                .get(named_user(), Part::Absent)
                .or_else(|| self.get(Part::Default, Part::Absent)),
            (true, false) => self
                .get(Part::Absent, named_client())
                .or_else(|| self.get(Part::Absent, Part::Default)),
            (true, true) => None,
        }
    }
}

/// The clock the quotas read, in milliseconds since the epoch.
pub type MillisClock = Arc<dyn Fn() -> i64 + Send + Sync>;

fn system_clock() -> MillisClock {
    Arc::new(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    })
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    bucket: TokenBucket,
    last_used_ms: i64,
}

/// The buckets of the controller mutation quota, one per (user,
/// client-id) tags (Kafka's `ControllerMutationQuotaManager`).
pub struct MutationQuotas {
    window: MutationQuotaWindow,
    clock: Mutex<MillisClock>,
    buckets: Mutex<HashMap<(String, String), Bucket>>,
}

impl std::fmt::Debug for MutationQuotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutationQuotas")
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

/// Whether a request's quota refuses or only throttles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaMode {
    /// Refuses a topic once the bucket is below zero
    /// (`StrictControllerMutationQuota`).
    Strict,
    /// Accepts everything, throttles once the bucket is below zero
    /// (`PermissiveControllerMutationQuota`).
    Permissive,
}

impl QuotaMode {
    /// Strict from `strict_since` on (Kafka's `newQuotaFor`).
    pub fn for_version(version: i16, strict_since: i16) -> QuotaMode {
        if version >= strict_since {
            QuotaMode::Strict
        } else {
            QuotaMode::Permissive
        }
    }
}

impl MutationQuotas {
    /// Buckets over `window`, read against the system clock.
    pub fn new(window: MutationQuotaWindow) -> Self {
        MutationQuotas::with_clock(window, system_clock())
    }

    /// Buckets over `window`, read against `clock`.
    pub fn with_clock(window: MutationQuotaWindow, clock: MillisClock) -> Self {
        MutationQuotas {
            window,
            clock: Mutex::new(clock),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Reads the buckets against `clock` from now on.
    pub fn set_clock(&self, clock: MillisClock) {
        *self.clock.lock().unwrap_or_else(|e| e.into_inner()) = clock;
    }

    /// The quota of one request from `user` (the principal's name) with
    /// `client_id`, under the `controller_mutation_rate` quotas of `image`.
    pub fn quota_for(
        self: &Arc<Self>,
        image: &ClientQuotasImage,
        user: &str,
        client_id: &str,
        mode: QuotaMode,
    ) -> RequestQuota {
        if image.is_empty() {
            return RequestQuota::unbounded();
        }
        let quotas = Quotas::from_image(image);
        if !quotas.enabled() {
            return RequestQuota::unbounded();
        }
        let tags = quotas.tags(user, client_id);
        let Some(rate) = quotas.rate(&tags).filter(|r| *r > 0.0 && r.is_finite()) else {
            return RequestQuota::unbounded();
        };
        RequestQuota {
            bounded: Some(Bounded {
                quotas: Arc::clone(self),
                tags,
                rate,
                mode,
                state: Mutex::new(RequestState::default()),
            }),
        }
    }

    fn now_ms(&self) -> i64 {
        let clock = Arc::clone(&self.clock.lock().unwrap_or_else(|e| e.into_inner()));
        clock()
    }

    /// Runs `f` on the bucket of `tags` (a new, full one when there is none).
    fn with_bucket<R>(&self, tags: &(String, String), f: impl FnOnce(&mut TokenBucket) -> R) -> R {
        let now = self.now_ms();
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= BUCKETS_BEFORE_PRUNING && !buckets.contains_key(tags) {
            buckets.retain(|_, b| now - b.last_used_ms < IDLE_BUCKET_EXPIRY_MS);
        }
        let entry = buckets.entry(tags.clone()).or_insert(Bucket {
            bucket: TokenBucket::new(),
            last_used_ms: now,
        });
        entry.last_used_ms = now;
        f(&mut entry.bucket)
    }

    fn snapshot(&self, tags: &(String, String)) -> Option<Bucket> {
        let buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        buckets.get(tags).copied()
    }

    fn restore(&self, tags: &(String, String), saved: Option<Bucket>) {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        match saved {
            Some(b) => {
                buckets.insert(tags.clone(), b);
            }
            None => {
                buckets.remove(tags);
            }
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct RequestState {
    last_throttle_ms: i64,
    last_recorded_ms: i64,
}

struct Bounded {
    quotas: Arc<MutationQuotas>,
    tags: (String, String),
    rate: f64,
    mode: QuotaMode,
    state: Mutex<RequestState>,
}

/// The controller mutation quota of one request (Kafka's
/// `ControllerMutationQuota`): unbounded, strict or permissive.
pub struct RequestQuota {
    bounded: Option<Bounded>,
}

impl std::fmt::Debug for RequestQuota {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.bounded {
            None => f.write_str("RequestQuota::Unbounded"),
            Some(b) => f
                .debug_struct("RequestQuota")
                .field("tags", &b.tags)
                .field("rate", &b.rate)
                .field("mode", &b.mode)
                .finish(),
        }
    }
}

/// What a write attempt found before it charged a quota: the bucket and
/// the request's throttle state, put back when the attempt is retried.
pub(crate) struct QuotaAttempt {
    saved: Option<(Option<Bucket>, RequestState)>,
}

impl RequestQuota {
    /// No quota: nothing recorded, never refused, never throttled.
    pub fn unbounded() -> Self {
        RequestQuota { bounded: None }
    }

    /// Whether a quota applies at all.
    pub fn is_bounded(&self) -> bool {
        self.bounded.is_some()
    }

    /// The request's mode, when a quota applies.
    pub fn mode(&self) -> Option<QuotaMode> {
        self.bounded.as_ref().map(|b| b.mode)
    }

    /// Charges `partitions` (Kafka's `applyPartitionChangeQuota`). A strict
    /// quota whose bucket is already below zero refuses with
    /// THROTTLING_QUOTA_EXCEEDED and charges nothing.
    pub fn record(&self, partitions: usize) -> Result<(), ApiError> {
        let Some(b) = &self.bounded else {
            return Ok(());
        };
        let value = partitions as f64;
        let window = b.quotas.window;
        let now = b.quotas.now_ms();
        let below = b.quotas.with_bucket(&b.tags, |bucket| match b.mode {
            QuotaMode::Strict => {
                let tokens = bucket.measure(b.rate, window, now);
                if tokens < 0.0 {
                    Some(tokens)
                } else {
                    bucket.record(b.rate, window, value, now);
                    None
                }
            }
            QuotaMode::Permissive => {
                bucket.record(b.rate, window, value, now);
                let tokens = bucket.measure(b.rate, window, now);
                (tokens < 0.0).then_some(tokens)
            }
        });
        let Some(tokens) = below else {
            return Ok(());
        };
        let throttle = throttle_time_ms(tokens, b.rate);
        {
            let mut state = b.state.lock().unwrap_or_else(|e| e.into_inner());
            state.last_throttle_ms = throttle;
            state.last_recorded_ms = now;
        }
        match b.mode {
            QuotaMode::Strict => {
                tracing::debug!(
                    user = %b.tags.0,
                    client_id = %b.tags.1,
                    partitions,
                    throttle_time_ms = throttle,
                    "controller mutation quota violated"
                );
                Err(ApiError::new(
                    ErrorCode::ThrottlingQuotaExceeded,
                    THROTTLING_QUOTA_EXCEEDED_MESSAGE,
                ))
            }
            QuotaMode::Permissive => Ok(()),
        }
    }

    /// Whether a strict quota has refused something (Kafka's
    /// `isExceeded`; a permissive quota never is).
    pub fn is_exceeded(&self) -> bool {
        match &self.bounded {
            Some(b) if b.mode == QuotaMode::Strict => {
                b.state
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .last_throttle_ms
                    > 0
            }
            _ => false,
        }
    }

    /// The response's throttle time (Kafka's `throttleTime`): the last
    /// throttle time measured, less the time since it was.
    pub fn throttle_time_ms(&self) -> i32 {
        let Some(b) = &self.bounded else {
            return 0;
        };
        let state = *b.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.last_throttle_ms == 0 {
            return 0;
        }
        let elapsed = b.quotas.now_ms() - state.last_recorded_ms;
        let left = state.last_throttle_ms - elapsed;
        i32::try_from(left.max(0)).unwrap_or(i32::MAX)
    }

    /// A write attempt starts: the first one saves what it finds, a retried
    /// one puts it back so that the request is charged once.
    pub(crate) fn begin_attempt(&self, attempt: &mut QuotaAttempt) {
        let Some(b) = &self.bounded else {
            return;
        };
        match &attempt.saved {
            None => {
                let state = *b.state.lock().unwrap_or_else(|e| e.into_inner());
                attempt.saved = Some((b.quotas.snapshot(&b.tags), state));
            }
            Some((bucket, state)) => {
                b.quotas.restore(&b.tags, *bucket);
                *b.state.lock().unwrap_or_else(|e| e.into_inner()) = *state;
            }
        }
    }
}

impl QuotaAttempt {
    /// Nothing saved yet.
    pub(crate) fn new() -> Self {
        QuotaAttempt { saved: None }
    }
}

/// The principal's name and the client id a request's quota is looked up
/// by (Kafka's session user and header client id; a null client id is "").
pub(crate) fn request_identity(ctx: &crate::server::RequestContext) -> (String, String) {
    (
        ctx.principal.name.to_string(),
        ctx.header
            .client_id
            .as_ref()
            .map(|c| c.as_str().to_owned())
            .unwrap_or_default(),
    )
}

#[cfg(test)]
#[path = "mutation_quota_tests.rs"]
mod tests;
