//! The active controller's periodic tasks (Kafka's `PeriodicTaskControlManager`):
//! broker session expiry, preferred and unclean leader elections, the
//! expiry of delegation tokens, the idle NoOpRecord, and the periodic
//! performance message.

use std::sync::Arc;
use std::time::Duration;

use crate::activation::ActiveEpoch;
use crate::handlers::Controller;

/// Fences brokers whose session expired, while this node is the active
/// controller: just after the first session expires, and at least every
/// eighth of the session timeout.
pub(crate) fn spawn_session_checker(controller: Arc<Controller>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let now = std::time::Instant::now();
            let wait = controller
                .next_session_check(now)
                .saturating_duration_since(now)
                .max(Duration::from_millis(1));
            tokio::time::sleep(wait).await;
            controller.fence_stale_brokers().await;
        }
    })
}

/// Which periodic write a task runs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Task {
    /// Leadership back to preferred replicas (`leader.imbalance.check.interval.seconds`).
    PreferredElection,
    /// Leaders for leaderless partitions of topics with unclean election on.
    UncleanElection,
    /// Removal of expired delegation tokens
    /// (`delegation.token.expiry.check.interval.ms`).
    ExpireDelegationTokens,
}

/// Runs one periodic task every `period` while this node is the active
/// controller, again after 10 ms while a round left work (Kafka's
/// cadence).
pub(crate) fn spawn_periodic_task(
    controller: Arc<Controller>,
    period: Duration,
    task: Task,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut delay = period;
        loop {
            tokio::time::sleep(delay).await;
            let more = match task {
                Task::PreferredElection => controller.balance_partition_leaders().await,
                Task::UncleanElection => controller.elect_unclean_leaders().await,
                Task::ExpireDelegationTokens => controller.expire_delegation_tokens().await,
            };
            delay = Controller::periodic_election_delay(more, period);
        }
    })
}

/// While this node is the active controller, appends a NoOpRecord every
/// `interval` (Kafka's periodic `writeNoOpRecord` task) through the writer,
/// so followers and brokers see the log advance.
pub(crate) fn spawn_no_op_writer(
    controller: Arc<Controller>,
    mut active: ActiveEpoch,
    interval: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            if active.wait_for(Option::is_some).await.is_err() {
                return;
            }
            tokio::time::sleep(interval).await;
            if active.borrow().is_none() {
                continue;
            }
            if let Err(e) = controller.write_no_op().await {
                tracing::debug!(error = %e, "NoOpRecord not committed");
            }
        }
    })
}

/// While this node is the active controller, logs every
/// `controller.performance.sample.period.ms` how its writes went (Kafka's
/// `generatePeriodicPerformanceMessage` task), starting a new period each
/// time.
pub(crate) fn spawn_performance_reporter(
    controller: Arc<Controller>,
    mut active: ActiveEpoch,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let period = controller.performance_period();
        loop {
            if active.wait_for(Option::is_some).await.is_err() {
                return;
            }
            tokio::time::sleep(period).await;
            if active.borrow().is_some() {
                tracing::info!("{}", controller.take_performance_message());
            }
        }
    })
}
