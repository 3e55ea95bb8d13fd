//! `kraft metadata-quorum reconcile --voters 1,2,3`: a declarative voter set.
//!
//! [`plan`] is a pure function from the quorum as DescribeQuorum shows it to
//! the ordered `add-controller` / `remove-controller` steps that reach the
//! target, or the reason it refuses. [`reconcile`] runs the steps one at a
//! time with the existing `add-controller` / `remove-controller` code,
//! waiting after each until the change is committed (and a new voter has
//! caught up), and plans again from a fresh DescribeQuorum before the next
//! step, so a node that dies mid-plan is taken into account.

use std::collections::BTreeSet;
use std::fmt;
use std::io::Write;
use std::time::{Duration, Instant};

use kraft_admin::{kafka_uuid, Admin, QuorumInfo, ReplicaState, Uuid};

use crate::cli::{AddControllerArgs, ReconcileArgs, RemoveControllerArgs};
use crate::commands::{add_controller, remove_controller, CliError, CmdResult};

/// A voter or observer as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Node id.
    pub id: i32,
    /// Metadata directory id (the zero UUID when unknown).
    pub directory_id: Uuid,
    /// Fetching recently and within the lag bound of the high watermark
    /// (the leader always is).
    pub running: bool,
}

/// The quorum as the planner sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumView {
    /// The leader's id (-1 when none).
    pub leader_id: i32,
    /// The latest voter set.
    pub voters: Vec<Member>,
    /// Replicas that fetch without voting.
    pub observers: Vec<Member>,
}

/// When a replica counts as running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveness {
    /// Largest accepted `high watermark - log end offset`.
    pub max_lag: i64,
    /// Largest accepted age of the last fetch, against the leader's clock.
    pub max_fetch_age_ms: i64,
}

impl QuorumView {
    /// Reads DescribeQuorum: a voter or observer is running when its log end
    /// offset is known and within `max_lag` of the high watermark and (when
    /// the timestamps are reported) its last fetch is at most
    /// `max_fetch_age_ms` older than the leader's own entry.
    pub fn from_quorum(q: &QuorumInfo, live: Liveness) -> Self {
        let now = q.leader().and_then(|l| l.last_fetch_timestamp);
        let member = |r: &ReplicaState| {
            let lag_ok = r.log_end_offset >= 0
                && q.high_watermark >= 0
                && q.high_watermark - r.log_end_offset <= live.max_lag;
            let fresh = match (now, r.last_fetch_timestamp) {
                (Some(now), Some(t)) => now - t <= live.max_fetch_age_ms,
                _ => true,
            };
            Member {
                id: r.replica_id,
                directory_id: r.replica_directory_id,
                running: r.replica_id == q.leader_id || (lag_ok && fresh),
            }
        };
        QuorumView {
            leader_id: q.leader_id,
            voters: q.voters.iter().map(member).collect(),
            observers: q.observers.iter().map(member).collect(),
        }
    }

    fn voter_ids(&self) -> Vec<i32> {
        let ids: BTreeSet<i32> = self.voters.iter().map(|m| m.id).collect();
        ids.into_iter().collect()
    }
}

/// One voter change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Add the observer `id` with `directory_id` as a voter.
    Add {
        /// Node id.
        id: i32,
        /// The observer's directory id.
        directory_id: Uuid,
    },
    /// Remove voter (`id`, `directory_id`).
    Remove {
        /// Node id.
        id: i32,
        /// Its directory id in the voter set.
        directory_id: Uuid,
    },
}

impl Step {
    /// The node the step changes.
    pub fn id(&self) -> i32 {
        match self {
            Step::Add { id, .. } | Step::Remove { id, .. } => *id,
        }
    }

    /// The `kraft metadata-quorum` command line the step runs.
    pub fn kraft_command(&self, bootstrap: &str) -> String {
        match self {
            Step::Add { id, .. } => format!(
                "kraft metadata-quorum --bootstrap-controller {bootstrap} add-controller --controller-id {id}"
            ),
            Step::Remove { id, directory_id } => format!(
                "kraft metadata-quorum --bootstrap-controller {bootstrap} remove-controller --controller-id {id} --controller-directory-id {}",
                kafka_uuid::to_string(directory_id)
            ),
        }
    }

    /// The equivalent `kafka-metadata-quorum.sh` command of Kafka 4.4, whose
    /// add-controller reads the new controller's own configuration.
    pub fn kafka_command(&self, bootstrap: &str) -> String {
        match self {
            Step::Add { id, .. } => format!(
                "kafka-metadata-quorum.sh --bootstrap-controller {bootstrap} --command-config <server.properties of controller {id}> add-controller"
            ),
            Step::Remove { id, directory_id } => format!(
                "kafka-metadata-quorum.sh --bootstrap-controller {bootstrap} remove-controller --controller-id {id} --controller-directory-id {}",
                kafka_uuid::to_string(directory_id)
            ),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Add { id, directory_id } => write!(
                f,
                "add controller {id} (directory id {})",
                kafka_uuid::to_string(directory_id)
            ),
            Step::Remove { id, directory_id } => write!(
                f,
                "remove controller {id} (directory id {})",
                kafka_uuid::to_string(directory_id)
            ),
        }
    }
}

/// Why a plan is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// For the operator.
    pub reason: String,
    /// The quorum may fix it by itself (a controller starting or catching
    /// up); a bad target never does.
    pub transient: bool,
}

impl Refusal {
    fn permanent(reason: impl Into<String>) -> Self {
        Refusal {
            reason: reason.into(),
            transient: false,
        }
    }

    fn transient(reason: impl Into<String>) -> Self {
        Refusal {
            reason: reason.into(),
            transient: true,
        }
    }
}

/// `[1, 2, 3]`.
pub fn id_list<'a>(ids: impl IntoIterator<Item = &'a i32>) -> String {
    let ids: Vec<String> = ids.into_iter().map(ToString::to_string).collect();
    format!("[{}]", ids.join(", "))
}

/// Parses `--voters 1,2,3`: node ids, no duplicates, not empty.
pub fn parse_voters(text: &str) -> Result<Vec<i32>, String> {
    let mut ids = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let id: i32 = part
            .parse()
            .map_err(|_| format!("Invalid node id {part:?} in --voters {text:?}"))?;
        if id < 0 {
            return Err(format!("Invalid negative node id {id} in --voters"));
        }
        if ids.contains(&id) {
            return Err(format!("Duplicate node id {id} in --voters {text:?}"));
        }
        ids.push(id);
    }
    if ids.is_empty() {
        return Err("The target voter set given with --voters is empty".into());
    }
    Ok(ids)
}

/// The ordered steps from `view`'s voters to `target`, or why not.
///
/// Missing voters are added first, one at a time (each must be an observer
/// with a known directory id, exactly one, and caught up), then extra voters
/// are removed one at a time: voters that are not running first, then
/// running followers, the leader last (it resigns once its removal commits).
/// Every step must leave the new voter set a majority of running voters.
pub fn plan(view: &QuorumView, target: &[i32]) -> Result<Vec<Step>, Refusal> {
    if target.is_empty() {
        return Err(Refusal::permanent("the target voter set is empty"));
    }
    let wanted: BTreeSet<i32> = target.iter().copied().collect();
    if wanted.len() != target.len() {
        return Err(Refusal::permanent(format!(
            "the target voter set {} names a node twice",
            id_list(target)
        )));
    }
    let mut voters: BTreeSet<i32> = view.voters.iter().map(|m| m.id).collect();
    let mut running: BTreeSet<i32> = view
        .voters
        .iter()
        .chain(&view.observers)
        .filter(|m| m.running)
        .map(|m| m.id)
        .collect();
    let mut steps = Vec::new();
    for &id in wanted.difference(&voters.clone()) {
        let found: Vec<&Member> = view
            .observers
            .iter()
            .filter(|m| m.id == id && !m.directory_id.is_nil())
            .collect();
        let observer = match found.as_slice() {
            [one] => *one,
            [] => {
                return Err(Refusal::transient(format!(
                    "cannot add controller {id}: no observer with node id {id} and a directory id is replicating \
                     the metadata log (start it, formatted with --no-initial-controllers, and let it register)"
                )))
            }
            many => {
                let dirs: Vec<String> = many
                    .iter()
                    .map(|m| kafka_uuid::to_string(&m.directory_id))
                    .collect();
                return Err(Refusal::permanent(format!(
                    "cannot add controller {id}: more than one observer with node id {id} is replicating \
                     (directory ids {}); stop the duplicates",
                    dirs.join(", ")
                )));
            }
        };
        if !observer.running {
            return Err(Refusal::transient(format!(
                "cannot add controller {id}: it is not caught up with the leader"
            )));
        }
        voters.insert(id);
        check_majority(&voters, &running, &format!("adding controller {id}"))?;
        steps.push(Step::Add {
            id,
            directory_id: observer.directory_id,
        });
    }
    let mut extra: Vec<&Member> = view
        .voters
        .iter()
        .filter(|m| !wanted.contains(&m.id))
        .collect();
    extra.sort_by_key(|m| (m.running, m.id == view.leader_id, m.id));
    for m in extra {
        voters.remove(&m.id);
        if voters.is_empty() {
            return Err(Refusal::permanent("the voter set cannot become empty"));
        }
        check_majority(&voters, &running, &format!("removing controller {}", m.id))?;
        running.remove(&m.id);
        steps.push(Step::Remove {
            id: m.id,
            directory_id: m.directory_id,
        });
    }
    Ok(steps)
}

fn check_majority(
    voters: &BTreeSet<i32>,
    running: &BTreeSet<i32>,
    what: &str,
) -> Result<(), Refusal> {
    let up: Vec<i32> = voters.intersection(running).copied().collect();
    let down: Vec<i32> = voters.difference(running).copied().collect();
    let majority = voters.len() / 2 + 1;
    if up.len() >= majority {
        return Ok(());
    }
    Err(Refusal::transient(format!(
        "{what} would leave the voter set {} with {} running, caught-up voter(s) {}, fewer than its majority of \
         {majority} (not running or lagging: {})",
        id_list(voters),
        up.len(),
        id_list(&up),
        id_list(&down)
    )))
}

/// How long to wait between DescribeQuorum polls.
const POLL: Duration = Duration::from_millis(300);

/// Runs `kraft metadata-quorum reconcile`.
pub async fn reconcile(
    admin: &Admin,
    bootstrap: &str,
    args: ReconcileArgs,
    out: &mut dyn Write,
) -> CmdResult {
    let target = parse_voters(&args.voters).map_err(CliError::new)?;
    let live = Liveness {
        max_lag: args.max_lag,
        max_fetch_age_ms: args.max_fetch_age_ms,
    };
    let step_timeout = Duration::from_millis(args.timeout_ms);
    let sorted_target: BTreeSet<i32> = target.iter().copied().collect();

    let quorum = admin.describe_metadata_quorum().await?;
    let view = QuorumView::from_quorum(&quorum, live);
    writeln!(
        out,
        "Current voters: {} (leader {})",
        id_list(&view.voter_ids()),
        quorum.leader_id
    )?;
    writeln!(out, "Target voters: {}", id_list(&sorted_target))?;
    let steps = plan(&view, &target).map_err(|r| refused(&sorted_target, &r.reason))?;
    if steps.is_empty() {
        writeln!(
            out,
            "The voter set is already {}: nothing to do.",
            id_list(&sorted_target)
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "Plan ({} step{}):",
        steps.len(),
        if steps.len() == 1 { "" } else { "s" }
    )?;
    for (i, s) in steps.iter().enumerate() {
        writeln!(out, "  {}. {s}", i + 1)?;
        writeln!(out, "     $ {}", s.kraft_command(bootstrap))?;
        writeln!(out, "     Kafka 4.4: {}", s.kafka_command(bootstrap))?;
    }
    if args.dry_run {
        writeln!(out, "DRY RUN: nothing was changed.")?;
        return Ok(());
    }
    out.flush()?;

    // Each round plans from a fresh DescribeQuorum and runs the first step.
    let max_rounds = 2 * (view.voters.len() + target.len()) + 4;
    let mut done = 0;
    let mut steps = steps;
    for _ in 0..max_rounds {
        let Some(step) = steps.first().copied() else {
            writeln!(
                out,
                "Reconciled: the voter set is {}.",
                id_list(&sorted_target)
            )?;
            return Ok(());
        };
        done += 1;
        writeln!(out, "Step {done}: {step}")?;
        writeln!(out, "$ {}", step.kraft_command(bootstrap))?;
        out.flush()?;
        run_step(admin, step, out).await?;
        wait_for_step(admin, step, step_timeout, live, out).await?;
        if args.step_delay_ms > 0 {
            out.flush()?;
            tokio::time::sleep(Duration::from_millis(args.step_delay_ms)).await;
        }
        steps = next_plan(admin, &target, &sorted_target, live, step_timeout, out).await?;
    }
    Err(CliError::new(format!(
        "Gave up reconciling the voter set to {} after {done} steps: the quorum keeps changing",
        id_list(&sorted_target)
    )))
}

fn refused(target: &BTreeSet<i32>, reason: &str) -> CliError {
    CliError::new(format!(
        "Refusing to reconcile the voter set to {}: {reason}",
        id_list(target)
    ))
}

async fn run_step(admin: &Admin, step: Step, out: &mut dyn Write) -> CmdResult {
    let result = match step {
        Step::Add { id, .. } => {
            let args = AddControllerArgs {
                controller_id: Some(id),
                dry_run: false,
            };
            add_controller(admin, args, None, out).await
        }
        Step::Remove { id, directory_id } => {
            let args = RemoveControllerArgs {
                controller_id: id,
                controller_directory_id: Some(kafka_uuid::to_string(&directory_id)),
                dry_run: false,
                unregister: false,
            };
            remove_controller(admin, args, out).await
        }
    };
    result.map_err(|e| CliError {
        message: format!("Step {step} failed: {}", e.message),
        exit_code: e.exit_code,
    })
}

/// Waits until DescribeQuorum shows `step` committed with a leader, and for
/// an add until the new voter's log end offset reached the high watermark
/// seen once the change was committed.
async fn wait_for_step(
    admin: &Admin,
    step: Step,
    timeout: Duration,
    live: Liveness,
    out: &mut dyn Write,
) -> CmdResult {
    let deadline = Instant::now() + timeout;
    let mut catch_up_to: Option<i64> = None;
    let mut last = String::from("no DescribeQuorum answer yet");
    loop {
        match admin.describe_metadata_quorum().await {
            Ok(q) => {
                let committed: Vec<i32> = match &q.committed_voters {
                    Some(c) if !c.is_empty() => c.iter().map(|r| r.replica_id).collect(),
                    // Kafka 4.4 (DescribeQuorum v2): AddRaftVoter and
                    // RemoveRaftVoter answer once the change is committed.
                    _ => q.voters.iter().map(|r| r.replica_id).collect(),
                };
                let latest: Vec<i32> = q.voters.iter().map(|r| r.replica_id).collect();
                let id = step.id();
                // A removed leader resigns: wait for the next one.
                let has_leader =
                    q.leader_id >= 0 && (matches!(step, Step::Add { .. }) || q.leader_id != id);
                let applied = match step {
                    Step::Add { .. } => committed.contains(&id) && latest.contains(&id),
                    Step::Remove { .. } => !committed.contains(&id) && !latest.contains(&id),
                };
                if applied && has_leader {
                    match step {
                        Step::Remove { .. } => {
                            writeln!(
                                out,
                                "Committed: voters {} (leader {}).",
                                id_list(&sorted(&latest)),
                                q.leader_id
                            )?;
                            return Ok(());
                        }
                        Step::Add { .. } => {
                            let hw = *catch_up_to.get_or_insert(q.high_watermark);
                            let leo = q
                                .voters
                                .iter()
                                .find(|r| r.replica_id == id)
                                .map(|r| r.log_end_offset)
                                .unwrap_or(-1);
                            let view = QuorumView::from_quorum(&q, live);
                            let running = view.voters.iter().any(|m| m.id == id && m.running);
                            if hw >= 0 && leo >= hw && running {
                                writeln!(
                                    out,
                                    "Committed: voters {} (leader {}); controller {id} caught up at offset {leo}.",
                                    id_list(&sorted(&latest)),
                                    q.leader_id
                                )?;
                                return Ok(());
                            }
                            last.push_str(&format!(", controller {id} at offset {leo} of {hw}"));
                        }
                    }
                }
            }
            Err(e) => last = crate::commands::describe_admin_error(&e),
        }
        if Instant::now() >= deadline {
            return Err(CliError::new(format!(
                "Timed out after {} ms waiting for step \"{step}\" to commit{} ({last})",
                timeout.as_millis(),
                if matches!(step, Step::Add { .. }) {
                    " and the new voter to catch up"
                } else {
                    ""
                }
            )));
        }
        tokio::time::sleep(POLL).await;
    }
}

fn sorted(ids: &[i32]) -> Vec<i32> {
    let mut v = ids.to_vec();
    v.sort_unstable();
    v
}

/// Plans again from a fresh DescribeQuorum; a transient refusal (a node
/// died or lags) is waited out until `timeout`, then reported.
async fn next_plan(
    admin: &Admin,
    target: &[i32],
    sorted_target: &BTreeSet<i32>,
    live: Liveness,
    timeout: Duration,
    out: &mut dyn Write,
) -> Result<Vec<Step>, CliError> {
    let deadline = Instant::now() + timeout;
    let mut said: Option<String> = None;
    loop {
        let quorum = admin.describe_metadata_quorum().await?;
        match plan(&QuorumView::from_quorum(&quorum, live), target) {
            Ok(steps) => return Ok(steps),
            Err(r) if r.transient && Instant::now() < deadline => {
                if said.as_deref() != Some(r.reason.as_str()) {
                    writeln!(out, "Waiting: {}", r.reason)?;
                    out.flush()?;
                    said = Some(r.reason);
                }
            }
            Err(r) => return Err(refused(sorted_target, &r.reason)),
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(id: i32) -> Uuid {
        Uuid::from_u128(0x1000 + id as u128)
    }

    fn m(id: i32, running: bool) -> Member {
        Member {
            id,
            directory_id: dir(id),
            running,
        }
    }

    fn view(leader: i32, voters: &[(i32, bool)], observers: &[(i32, bool)]) -> QuorumView {
        QuorumView {
            leader_id: leader,
            voters: voters.iter().map(|(id, r)| m(*id, *r)).collect(),
            observers: observers.iter().map(|(id, r)| m(*id, *r)).collect(),
        }
    }

    fn add(id: i32) -> Step {
        Step::Add {
            id,
            directory_id: dir(id),
        }
    }

    fn remove(id: i32) -> Step {
        Step::Remove {
            id,
            directory_id: dir(id),
        }
    }

    const UP: bool = true;
    const DOWN: bool = false;

    #[test]
    fn grows_one_voter_at_a_time() {
        let v = view(1, &[(1, UP), (2, UP), (3, UP)], &[(5, UP), (4, UP)]);
        assert_eq!(plan(&v, &[1, 2, 3, 4, 5]), Ok(vec![add(4), add(5)]));
        assert_eq!(plan(&v, &[3, 2, 1]), Ok(vec![]));
    }

    #[test]
    fn shrinks_followers_first_and_the_leader_last() {
        let v = view(4, &[(1, UP), (2, UP), (3, UP), (4, UP), (5, UP)], &[]);
        assert_eq!(plan(&v, &[1, 2, 3]), Ok(vec![remove(5), remove(4)]));
        let v = view(2, &[(1, UP), (2, UP), (3, UP)], &[]);
        assert_eq!(plan(&v, &[1]), Ok(vec![remove(3), remove(2)]));
    }

    #[test]
    fn removes_dead_voters_before_running_ones() {
        let v = view(1, &[(1, UP), (2, UP), (3, UP), (4, UP), (5, DOWN)], &[]);
        assert_eq!(plan(&v, &[1, 2, 3]), Ok(vec![remove(5), remove(4)]));
        let v = view(1, &[(1, UP), (2, UP), (3, UP), (4, DOWN), (5, UP)], &[]);
        assert_eq!(plan(&v, &[1, 2, 3]), Ok(vec![remove(4), remove(5)]));
    }

    #[test]
    fn replaces_by_adding_first() {
        let v = view(1, &[(1, UP), (2, UP), (3, UP)], &[(4, UP)]);
        assert_eq!(plan(&v, &[1, 2, 4]), Ok(vec![add(4), remove(3)]));
    }

    #[test]
    fn refuses_an_unknown_or_ambiguous_observer() {
        let v = view(1, &[(1, UP), (2, UP), (3, UP)], &[]);
        let r = plan(&v, &[1, 2, 3, 4]).unwrap_err();
        assert!(
            r.reason.contains("no observer with node id 4"),
            "{}",
            r.reason
        );
        let mut v = view(1, &[(1, UP), (2, UP), (3, UP)], &[(4, UP)]);
        v.observers[0].directory_id = Uuid::nil();
        assert!(plan(&v, &[1, 2, 3, 4]).is_err());
        v.observers = vec![
            m(4, UP),
            Member {
                directory_id: dir(9),
                ..m(4, UP)
            },
        ];
        let r = plan(&v, &[1, 2, 3, 4]).unwrap_err();
        assert!(!r.transient);
        assert!(r.reason.contains("more than one observer"), "{}", r.reason);
    }

    #[test]
    fn refuses_a_lagging_observer() {
        let v = view(1, &[(1, UP), (2, UP), (3, UP)], &[(4, DOWN)]);
        let r = plan(&v, &[1, 2, 3, 4]).unwrap_err();
        assert!(r.transient);
        assert!(r.reason.contains("not caught up"), "{}", r.reason);
    }

    #[test]
    fn refuses_steps_that_lose_the_running_majority() {
        // {1,2,3} with 2 and 3 down: adding 4 leaves 2 of 4 running.
        let v = view(1, &[(1, UP), (2, DOWN), (3, DOWN)], &[(4, UP)]);
        let r = plan(&v, &[1, 2, 3, 4]).unwrap_err();
        assert!(
            r.reason.contains("fewer than its majority of 3"),
            "{}",
            r.reason
        );
        // Removing a running voter from {1,2,3} with 3 down leaves 1 of 2.
        let v = view(1, &[(1, UP), (2, UP), (3, DOWN)], &[]);
        let r = plan(&v, &[1, 3]).unwrap_err();
        assert!(r.reason.contains("removing controller 2"), "{}", r.reason);
        // Removing the dead voter is fine.
        assert_eq!(plan(&v, &[1, 2]), Ok(vec![remove(3)]));
    }

    #[test]
    fn refuses_bad_targets() {
        let v = view(1, &[(1, UP)], &[]);
        assert!(!plan(&v, &[]).unwrap_err().transient);
        assert!(plan(&v, &[1, 1]).unwrap_err().reason.contains("twice"));
        assert_eq!(parse_voters("1, 2,3"), Ok(vec![1, 2, 3]));
        assert!(parse_voters("1,1").unwrap_err().contains("Duplicate"));
        assert!(parse_voters("").unwrap_err().contains("empty"));
        assert!(parse_voters("1,x").is_err());
        assert!(parse_voters("-1").is_err());
    }

    #[test]
    fn liveness_from_describe_quorum() {
        let r = |id: i32, leo: i64, fetch: i64| ReplicaState {
            replica_id: id,
            replica_directory_id: dir(id),
            log_end_offset: leo,
            last_fetch_timestamp: Some(fetch),
            last_caught_up_timestamp: Some(fetch),
        };
        let q = QuorumInfo {
            leader_id: 1,
            leader_epoch: 3,
            high_watermark: 1000,
            voters: vec![r(1, 1000, 50_000), r(2, 990, 49_900), r(3, 1000, 40_000)],
            committed_voters: None,
            observers: vec![r(4, 100, 50_000), r(5, -1, 50_000)],
            nodes: Default::default(),
        };
        let live = Liveness {
            max_lag: 100,
            max_fetch_age_ms: 5000,
        };
        let v = QuorumView::from_quorum(&q, live);
        let running: Vec<(i32, bool)> = v
            .voters
            .iter()
            .chain(&v.observers)
            .map(|m| (m.id, m.running))
            .collect();
        assert_eq!(
            running,
            [(1, true), (2, true), (3, false), (4, false), (5, false)]
        );
    }

    #[test]
    fn prints_the_equivalent_commands() {
        let s = remove(5);
        assert_eq!(
            s.kafka_command("h:1"),
            format!(
                "kafka-metadata-quorum.sh --bootstrap-controller h:1 remove-controller --controller-id 5 --controller-directory-id {}",
                kafka_uuid::to_string(&dir(5))
            )
        );
        assert!(add(4)
            .kraft_command("h:1")
            .ends_with("add-controller --controller-id 4"));
    }
}
