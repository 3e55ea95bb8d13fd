use super::*;
use crate::core::memlog::MemoryLog;

/// An election store that keeps nothing.
#[derive(Debug, Default)]
struct NoElectionStore;

impl ElectionStore for NoElectionStore {
    fn persist(&mut self, _: &ElectionState, _: i16, _: &[NodeId]) -> Result<(), StorageError> {
        Ok(())
    }
}
use crate::core::types::{Endpoints, KRaftVersionRange, ReplicaKey};
use crate::core::voters::{VoterNode, VoterSet};
use kraft_protocol::frame::{encode_frame_with, FrameDecoder};
use kraft_protocol::header::{decode_request, encode_response_frame};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A minimal KRaft listener for driver tests: answers ApiVersions itself
/// and hands every other request to the driver.
async fn serve(listener: TcpListener, handle: RaftHandle) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let handle = handle.clone();
        tokio::spawn(async move {
            let mut decoder = FrameDecoder::new(1 << 24);
            let mut buf = BytesMut::new();
            loop {
                let frame = match decoder.decode(&mut buf) {
                    Ok(Some(f)) => f,
                    Ok(None) => {
                        if stream.read_buf(&mut buf).await.unwrap_or(0) == 0 {
                            return;
                        }
                        continue;
                    }
                    Err(_) => return,
                };
                let Ok(req) = decode_request(frame) else {
                    return;
                };
                let version = req.header.request_api_version;
                let api = req.body.api_key();
                let body = if api == ApiKey::ApiVersions {
                    crate::wire::raft_api_versions_response()
                } else {
                    match handle.handle_request(req.body, version).await {
                        Ok(b) => b,
                        Err(_) => return,
                    }
                };
                let mut out = BytesMut::new();
                let written = encode_frame_with(&mut out, |b| {
                    encode_response_frame_body(b, api, version, req.header.correlation_id, &body)
                });
                if written.is_err() || stream.write_all(&out).await.is_err() {
                    return;
                }
            }
        });
    }
}

fn encode_response_frame_body(
    b: &mut BytesMut,
    api: ApiKey,
    version: i16,
    correlation: i32,
    body: &ResponseBody,
) -> Result<(), kraft_protocol::EncodeError> {
    let mut framed = Vec::new();
    encode_response_frame(&mut framed, api, version, correlation, body)?;
    b.extend_from_slice(&framed[4..]);
    Ok(())
}

use bytes::BytesMut;

/// Starts three voters over `logs`, each serving on its own listener;
/// returns their handles and event streams.
async fn start_three_drivers<L: DurableLog>(
    logs: [L; 3],
) -> (Vec<RaftHandle>, Vec<mpsc::UnboundedReceiver<RaftEvent>>) {
    let mut listeners = Vec::new();
    for _ in 0..3 {
        listeners.push(TcpListener::bind("127.0.0.1:0").await.expect("bind"));
    }
    let ports: Vec<u16> = listeners
        .iter()
        .map(|l| l.local_addr().expect("addr").port())
        .collect();
    let voters = VoterSet::new((0..3).map(|i| {
        VoterNode::new(
            ReplicaKey::without_directory(i + 1),
            Endpoints::single("CONTROLLER", "127.0.0.1", ports[i as usize]),
            KRaftVersionRange { min: 0, max: 1 },
        )
    }));
    let mut handles = Vec::new();
    let mut events = Vec::new();
    for (i, (listener, log)) in listeners.into_iter().zip(logs).enumerate() {
        let id = i as i32 + 1;
        let mut cfg = RaftConfig::new(
            id,
            uuid::Uuid::nil(),
            "test-cluster-id-0000000",
            Endpoints::single("CONTROLLER", "127.0.0.1", ports[i]),
            "CONTROLLER",
        );
        cfg.static_voters = voters.clone();
        let (handle, ev) = start_driver(
            cfg,
            log,
            None,
            NoElectionStore,
            DriverOptions::new(format!("raft-{id}")),
        )
        .expect("driver starts");
        tokio::spawn(serve(listener, handle.clone()));
        handles.push(handle);
        events.push(ev);
    }
    (handles, events)
}

/// The leader of `handles`, once one is elected (within 20 s).
async fn elected_leader(handles: &[RaftHandle]) -> RaftHandle {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(h) = handles.iter().find(|h| h.status().is_leader) {
                return h.clone();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("a leader is elected")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_drivers_elect_a_leader_and_commit_over_tcp() {
    let (handles, mut events) =
        start_three_drivers([MemoryLog::new(), MemoryLog::new(), MemoryLog::new()]).await;
    // A leader is elected within a few election timeouts.
    let leader = elected_leader(&handles).await;
    let offset = tokio::time::timeout(
        Duration::from_secs(10),
        leader.propose(vec![
            Bytes::from_static(b"hello"),
            Bytes::from_static(b"world"),
        ]),
    )
    .await
    .expect("commits in time")
    .expect("proposal commits");
    assert!(offset >= 1);
    // Every replica delivers the records, in order.
    for ev in events.iter_mut() {
        let seen = tokio::time::timeout(Duration::from_secs(10), async {
            let mut data = Vec::new();
            while let Some(e) = ev.recv().await {
                if let RaftEvent::Committed(batches) = e {
                    for b in batches {
                        for r in b.records {
                            if let crate::core::record::Record::Data(d) = r {
                                data.push(d);
                            }
                        }
                    }
                }
                if data.len() >= 2 {
                    return data;
                }
            }
            data
        })
        .await
        .expect("replica commits in time");
        assert_eq!(
            seen,
            vec![Bytes::from_static(b"hello"), Bytes::from_static(b"world")]
        );
    }
    let describe = leader.describe_quorum().await.expect("describe");
    assert_eq!(describe.current_voters.len(), 3);
    for h in &handles {
        h.shutdown().await;
    }
}

/// A [`MemoryLog`] whose flushes (inline or detached) fail once armed.
struct FailingLog {
    inner: MemoryLog,
    fail_flushes: Arc<std::sync::atomic::AtomicBool>,
    /// Inline flushes tried (on the driver's task).
    inline_flushes: Arc<std::sync::atomic::AtomicUsize>,
    /// Detached flushes run (on the I/O thread).
    detached_flushes: Arc<std::sync::atomic::AtomicUsize>,
}

impl FailingLog {
    fn failure(&self) -> Result<(), StorageError> {
        if self.fail_flushes.load(std::sync::atomic::Ordering::SeqCst) {
            Err(StorageError::Io {
                path: "failing-log".into(),
                source: std::io::Error::other("injected fsync failure"),
            })
        } else {
            Ok(())
        }
    }
}

impl RaftLog for FailingLog {
    fn start_offset(&self) -> i64 {
        self.inner.start_offset()
    }
    fn end_offset(&self) -> i64 {
        self.inner.end_offset()
    }
    fn last_fetched_epoch(&self) -> i32 {
        self.inner.last_fetched_epoch()
    }
    fn end_offset_for_epoch(&self, epoch: i32) -> crate::core::types::OffsetAndEpoch {
        self.inner.end_offset_for_epoch(epoch)
    }
    fn read(&self, start: i64, max_bytes: usize) -> Vec<Batch> {
        self.inner.read(start, max_bytes)
    }
    fn append(&mut self, batch: Batch) -> Result<(), crate::core::log::LogError> {
        self.inner.append(batch)
    }
    fn truncate_to(&mut self, offset: i64) -> i64 {
        self.inner.truncate_to(offset)
    }
    fn latest_snapshot(&self) -> Option<crate::core::log::SnapshotInfo> {
        self.inner.latest_snapshot()
    }
    fn earliest_snapshot_id(&self) -> Option<SnapshotId> {
        self.inner.earliest_snapshot_id()
    }
    fn latest_snapshot_control(&self) -> Option<SnapshotControl> {
        self.inner.latest_snapshot_control()
    }
    fn read_snapshot(&self, id: SnapshotId, position: u64, max: usize) -> Option<(Bytes, u64)> {
        self.inner.read_snapshot(id, position, max)
    }
    fn begin_snapshot_download(
        &mut self,
        id: SnapshotId,
    ) -> Result<bool, crate::core::log::LogError> {
        self.inner.begin_snapshot_download(id)
    }
    fn snapshot_download_size(&self, id: SnapshotId) -> Option<u64> {
        self.inner.snapshot_download_size(id)
    }
    fn append_snapshot_chunk(
        &mut self,
        id: SnapshotId,
        bytes: &[u8],
    ) -> Result<u64, crate::core::log::LogError> {
        self.inner.append_snapshot_chunk(id, bytes)
    }
    fn complete_snapshot_download(
        &mut self,
        id: SnapshotId,
    ) -> Result<(), crate::core::log::LogError> {
        self.inner.complete_snapshot_download(id)
    }
    fn abort_snapshot_download(&mut self, id: SnapshotId) {
        self.inner.abort_snapshot_download(id)
    }
}

impl DurableLog for FailingLog {
    fn flush_to(&mut self, up_to: i64) -> Result<i64, StorageError> {
        self.inline_flushes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.failure()?;
        self.inner.flush_to(up_to)
    }

    fn begin_flush(&mut self) -> Result<Option<FlushJob>, StorageError> {
        let end = self.inner.end_offset();
        let fail = self.fail_flushes.clone();
        let detached = self.detached_flushes.clone();
        Ok(Some(FlushJob::new(end, 0, move || {
            detached.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if fail.load(std::sync::atomic::Ordering::SeqCst) {
                Err(StorageError::Io {
                    path: "failing-log".into(),
                    source: std::io::Error::other("injected fsync failure"),
                })
            } else {
                Ok(())
            }
        })))
    }

    fn finish_flush(&mut self, outcome: FlushOutcome) -> Result<i64, StorageError> {
        outcome.result?;
        self.inner.flush_to(outcome.end_offset)
    }
}

/// An election store that fails every write once armed.
struct FailingStore {
    fail: Arc<std::sync::atomic::AtomicBool>,
}

impl ElectionStore for FailingStore {
    fn persist(&mut self, _: &ElectionState, _: i16, _: &[NodeId]) -> Result<(), StorageError> {
        if self.fail.load(std::sync::atomic::Ordering::SeqCst) {
            Err(StorageError::Io {
                path: "quorum-state".into(),
                source: std::io::Error::other("injected write failure"),
            })
        } else {
            Ok(())
        }
    }
}

/// A single voter that needs no peers to elect itself.
fn single_voter_config() -> RaftConfig {
    let endpoints = Endpoints::single("CONTROLLER", "127.0.0.1", 1);
    let mut cfg = RaftConfig::new(
        1,
        uuid::Uuid::nil(),
        "test-cluster-id-0000000",
        endpoints.clone(),
        "CONTROLLER",
    );
    cfg.static_voters = VoterSet::new([VoterNode::new(
        ReplicaKey::without_directory(1),
        endpoints,
        KRaftVersionRange { min: 0, max: 1 },
    )]);
    cfg
}

async fn wait_until_leader(handle: &RaftHandle) {
    let mut status = handle.watch_status();
    tokio::time::timeout(
        Duration::from_secs(20),
        status.wait_for(|s| s.is_leader && s.high_watermark.is_some()),
    )
    .await
    .expect("elected in time")
    .expect("driver running");
}

/// The last event of a driver that stopped: everything before it is
/// returned too.
async fn events_until_end(events: &mut mpsc::UnboundedReceiver<RaftEvent>) -> Vec<RaftEvent> {
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut seen = Vec::new();
        while let Some(e) = events.recv().await {
            seen.push(e);
        }
        seen
    })
    .await
    .expect("the event stream ends")
}

fn committed_data(events: &[RaftEvent]) -> Vec<Bytes> {
    events
        .iter()
        .filter_map(|e| match e {
            RaftEvent::Committed(batches) => Some(batches),
            _ => None,
        })
        .flatten()
        .flat_map(|b| b.records.iter())
        .filter_map(|r| match r {
            crate::core::record::Record::Data(d) => Some(d.clone()),
            _ => None,
        })
        .collect()
}

async fn failed_flush_stops_the_driver(mode: FlushMode) {
    let fail = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let log = FailingLog {
        inner: MemoryLog::new(),
        fail_flushes: fail.clone(),
        inline_flushes: Default::default(),
        detached_flushes: Default::default(),
    };
    // Flushes tried, inline and detached.
    let (inline, detached) = (log.inline_flushes.clone(), log.detached_flushes.clone());
    let attempts = move || {
        inline.load(std::sync::atomic::Ordering::SeqCst)
            + detached.load(std::sync::atomic::Ordering::SeqCst)
    };
    let (handle, mut events) = start_driver(
        single_voter_config(),
        log,
        None,
        NoElectionStore,
        DriverOptions::new("raft-1").with_flush_mode(mode),
    )
    .expect("driver starts");
    wait_until_leader(&handle).await;
    let first = handle
        .propose(vec![Bytes::from_static(b"durable")])
        .await
        .expect("commits while the log works");
    fail.store(true, std::sync::atomic::Ordering::SeqCst);
    let attempts_before = attempts();
    let second = tokio::time::timeout(
        Duration::from_secs(10),
        handle.propose(vec![Bytes::from_static(b"lost")]),
    )
    .await
    .expect("the proposal is answered");
    assert!(
        matches!(second, Err(DriverError::Stopped)),
        "{mode:?}: {second:?}"
    );
    let seen = events_until_end(&mut events).await;
    assert!(
        matches!(
            seen.last(),
            Some(RaftEvent::Fatal(FatalError::FlushLog(
                StorageError::Io { .. }
            )))
        ),
        "{mode:?}: {seen:?}"
    );
    // Only the record flushed before the failure was ever committed.
    assert_eq!(committed_data(&seen), vec![Bytes::from_static(b"durable")]);
    assert!(first >= 0);
    // The failed fsync was tried once and never again.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(attempts(), attempts_before + 1, "{mode:?}");
    assert!(matches!(
        handle.describe_quorum().await,
        Err(DriverError::Stopped)
    ));
    // Shutting down a stopped driver returns at once.
    tokio::time::timeout(Duration::from_secs(1), handle.shutdown())
        .await
        .expect("shutdown does not hang");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_and_catching_up_followers_flush_on_the_io_thread_live_followers_inline() {
    let logs = [(); 3].map(|()| FailingLog {
        inner: MemoryLog::new(),
        fail_flushes: Default::default(),
        inline_flushes: Default::default(),
        detached_flushes: Default::default(),
    });
    let counters: Vec<_> = logs
        .iter()
        .map(|l| (l.inline_flushes.clone(), l.detached_flushes.clone()))
        .collect();
    let (handles, _events) = start_three_drivers(logs).await;
    let leader = elected_leader(&handles).await;
    let count = |i: usize| {
        let (inline, detached) = &counters[i];
        (
            inline.load(std::sync::atomic::Ordering::SeqCst),
            detached.load(std::sync::atomic::Ordering::SeqCst),
        )
    };
    leader
        .propose(vec![Bytes::from_static(b"first")])
        .await
        .expect("commits");
    let before: Vec<_> = (0..3).map(count).collect();
    for i in 0..5u8 {
        tokio::time::timeout(
            Duration::from_secs(10),
            leader.propose(vec![Bytes::from(vec![i; 8])]),
        )
        .await
        .expect("commits in time")
        .expect("commits");
    }
    // Each replica flushes the new records in its own time (the commit
    // needs two of three; the leader's fsync runs on another thread).
    let flushed = |i: usize, pick: fn((usize, usize)) -> usize, since: (usize, usize)| {
        let before = pick(since);
        tokio::time::timeout(Duration::from_secs(10), async move {
            while pick(count(i)) == before {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let leader_id = leader.status().node_id;
    for (i, h) in handles.iter().enumerate() {
        if h.status().node_id == leader_id {
            let on_io_thread = flushed(i, |(_, detached)| detached, before[i]).await;
            assert!(
                on_io_thread.is_ok(),
                "the leader's flushes run on the I/O thread"
            );
            assert_eq!(count(i).0, before[i].0, "the leader flushed inline");
        } else {
            let inline = flushed(i, |(inline, _)| inline, before[i]).await;
            assert!(inline.is_ok(), "follower {i} flushes inline");
            assert_eq!(count(i).1, before[i].1, "follower {i} used the I/O thread");
        }
    }
    // A step larger than a live quorum's (a replica catching up) goes
    // to the I/O thread on every replica.
    let before: Vec<_> = (0..3).map(count).collect();
    let many = (0..=INLINE_FLUSH_MAX_RECORDS)
        .map(|i| Bytes::from(i.to_be_bytes().to_vec()))
        .collect();
    tokio::time::timeout(Duration::from_secs(10), leader.propose(many))
        .await
        .expect("commits in time")
        .expect("commits");
    for (i, &since) in before.iter().enumerate() {
        let on_io_thread = flushed(i, |(_, detached)| detached, since).await;
        assert!(
            on_io_thread.is_ok(),
            "replica {i} syncs a large step on the I/O thread"
        );
    }
    for h in &handles {
        h.shutdown().await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_failed_inline_flush_stops_the_driver_and_reports_it() {
    failed_flush_stops_the_driver(FlushMode::Inline).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_failed_fsync_on_the_io_thread_stops_the_driver_and_reports_it() {
    failed_flush_stops_the_driver(FlushMode::IoThread).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_failed_election_state_write_stops_the_driver_before_it_leads() {
    let fail = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let (handle, mut events) = start_driver(
        single_voter_config(),
        MemoryLog::new(),
        None,
        FailingStore { fail },
        DriverOptions::new("raft-1"),
    )
    .expect("driver starts");
    let seen = events_until_end(&mut events).await;
    assert!(
        matches!(
            seen.last(),
            Some(RaftEvent::Fatal(FatalError::PersistElectionState(_)))
        ),
        "{seen:?}"
    );
    // The vote it could not persist was never acted on.
    assert!(seen
        .iter()
        .all(|e| !matches!(e, RaftEvent::LeaderChange(l) if l.leader_id == Some(1))));
    assert!(matches!(
        handle.propose(vec![Bytes::from_static(b"x")]).await,
        Err(DriverError::Stopped)
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn a_single_voter_commits_over_a_disk_log_in_both_flush_modes() {
    for mode in [FlushMode::Inline, FlushMode::IoThread] {
        let tmp = kraft_testkit::TempDir::new(&format!("driver-{mode:?}"));
        let dir = tmp.path();
        let (log, _) =
            crate::disk_log::DiskLog::open(dir, Default::default()).expect("open the log");
        let store = crate::storage::QuorumStateStore::new(dir);
        let (handle, _events) = start_driver(
            single_voter_config(),
            log,
            None,
            store,
            DriverOptions::new("raft-1").with_flush_mode(mode),
        )
        .expect("driver starts");
        wait_until_leader(&handle).await;
        let mut last = -1;
        for i in 0..20u8 {
            let offset = handle
                .propose(vec![Bytes::from(vec![i; 100])])
                .await
                .expect("commits");
            assert!(offset > last, "{mode:?}");
            last = offset;
        }
        handle.shutdown().await;
        let (reopened, _) =
            crate::disk_log::DiskLog::open(dir, Default::default()).expect("reopen the log");
        assert!(reopened.end_offset() > last, "{mode:?}");
    }
}
