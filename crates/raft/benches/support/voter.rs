//! One KRaft voter run the way `kraft server` runs it, shared by
//! `benches/commit_latency.rs` and `examples/raft_perf.rs` (both include
//! this file with `#[path]`): its own OS thread with one current-thread
//! tokio runtime holding the driver, a [`DiskLog`] and `quorum-state` in
//! its own directory (fsynced for real), and a TCP listener that answers
//! ApiVersions itself and hands KRaft requests to the driver.

use std::io;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::path::PathBuf;

use bytes::BytesMut;
use kraft_protocol::frame::{FrameDecoder, DEFAULT_MAX_FRAME_SIZE};
use kraft_protocol::header::{decode_request, encode_response_frame};
use kraft_protocol::ApiKey;
use kraft_raft::wire::raft_api_versions_response;
use kraft_raft::{
    start_driver, DiskLog, DriverOptions, Endpoints, FlushMode, LogConfig, QuorumStateStore,
    RaftConfig, RaftHandle, Uuid, VoterSet,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Everything a voter needs to start.
pub struct VoterSpec {
    /// `node.id`.
    pub id: i32,
    /// The replica's directory id (nil: none).
    pub directory_id: Uuid,
    /// The cluster id the voters share.
    pub cluster_id: String,
    /// The log directory (created when missing).
    pub log_dir: PathBuf,
    /// The bound listener the voter serves its peers on.
    pub listener: StdListener,
    /// The static voter set (`controller.quorum.voters`).
    pub voters: VoterSet,
    /// Where log fsyncs run.
    pub mode: FlushMode,
}

/// A running voter; dropping it shuts the driver down and joins its thread.
pub struct Voter {
    /// The driver's handle.
    pub handle: RaftHandle,
    /// The address the voter listens on.
    pub address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A voter's listener: ApiVersions is answered here, KRaft requests by the
/// driver. A connection that sends an undecodable frame is closed.
async fn serve(listener: tokio::net::TcpListener, handle: RaftHandle) {
    while let Ok((mut stream, _)) = listener.accept().await {
        let _ = stream.set_nodelay(true);
        let handle = handle.clone();
        tokio::spawn(async move {
            let mut decoder = FrameDecoder::new(DEFAULT_MAX_FRAME_SIZE);
            let mut buf = BytesMut::new();
            loop {
                let frame = match decoder.decode(&mut buf) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => match stream.read_buf(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => continue,
                    },
                    Err(_) => return,
                };
                let Ok(request) = decode_request(frame) else {
                    return;
                };
                let version = request.header.request_api_version;
                let api = request.body.api_key();
                let body = if api == ApiKey::ApiVersions {
                    raft_api_versions_response()
                } else {
                    match handle.handle_request(request.body, version).await {
                        Ok(body) => body,
                        Err(_) => return,
                    }
                };
                let mut out = Vec::new();
                let correlation = request.header.correlation_id;
                if encode_response_frame(&mut out, api, version, correlation, &body).is_err()
                    || stream.write_all(&out).await.is_err()
                {
                    return;
                }
            }
        });
    }
}

fn other(what: &str, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{what}: {e}"))
}

/// Starts a voter on its own thread; returns once its driver runs.
pub fn start_voter(spec: VoterSpec) -> io::Result<Voter> {
    let VoterSpec {
        id,
        directory_id,
        cluster_id,
        log_dir,
        listener,
        voters,
        mode,
    } = spec;
    let address = listener.local_addr()?;
    listener.set_nonblocking(true)?;
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<io::Result<RaftHandle>>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(format!("voter-{id}"))
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            runtime.block_on(async move {
                let started = async {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    let endpoints = Endpoints::single("CONTROLLER", "127.0.0.1", address.port());
                    let mut cfg =
                        RaftConfig::new(id, directory_id, cluster_id, endpoints, "CONTROLLER");
                    cfg.static_voters = voters;
                    std::fs::create_dir_all(&log_dir)?;
                    let (log, _) = DiskLog::open(&log_dir, LogConfig::default())
                        .map_err(|e| other("open the log", e))?;
                    let store = QuorumStateStore::new(&log_dir);
                    let persisted = store
                        .read_election_state()
                        .map_err(|e| other("read quorum-state", e))?;
                    let options = DriverOptions::new(format!("raft-{id}")).with_flush_mode(mode);
                    let (handle, mut events) = start_driver(cfg, log, persisted, store, options)
                        .map_err(|e| other("start the driver", e))?;
                    tokio::spawn(async move { while events.recv().await.is_some() {} });
                    tokio::spawn(serve(listener, handle.clone()));
                    io::Result::Ok(handle)
                };
                match started.await {
                    Ok(handle) => {
                        let _ = ready_tx.send(Ok(handle.clone()));
                        let _ = stop_rx.await;
                        handle.shutdown().await;
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                }
            });
        })?;
    let handle = match ready_rx.recv() {
        Ok(Ok(handle)) => handle,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(io::Error::other(format!("voter {id} did not start")));
        }
    };
    Ok(Voter {
        handle,
        address,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

impl Drop for Voter {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
