//! `bench_floor`: the machine's floor for `cargo xtask bench`
//! (`tests/interop/bench.sh`): what no controller can beat on this disk and
//! this loopback.
//!
//! * fsync: write a 4 KiB block at the end of a file in DIR, then
//!   `fdatasync` it (as a log append is made durable), COUNT times, 2 ms
//!   apart;
//! * majority fsync: three threads, each with its own file in DIR, append
//!   and `fdatasync` a 4 KiB block at the same moment; a sample is the time
//!   until two of the three are durable (three voters sharing this disk:
//!   a commit needs a majority durable), COUNT times, 2 ms apart;
//! * round trip: a 64-byte message to an echo thread over a loopback TCP
//!   connection (`TCP_NODELAY`) and back, COUNT times;
//! * spawn: `/bin/true` started and waited for, COUNT / 10 times.
//!
//! ```text
//! bench_floor DIR COUNT
//! bench_floor --write-bandwidth DIR MIB
//! ```
//!
//! With `--write-bandwidth`: the disk's ceiling for a replicated log whose
//! replicas share it. One writer, then three at once (each with its own
//! file in DIR), append MIB MiB each in 1 MiB blocks, each block
//! `fdatasync`ed before the next (as a replica makes a fetched or appended
//! batch durable); then three again, each dropping a block's pages from
//! the page cache once it is durable (as kraft-rs's log does, see
//! `kraft_raft::storage::page_cache`). Prints `disk write_1_bytes_per_s=..
//! write_3_bytes_per_s=.. write_3_dropped_bytes_per_s=.. mib_per_writer=MIB`
//! (the rates are the bytes all writers wrote over the time until the last
//! finished).
//!
//! Prints one line `floor fsync_p50_us=.. fsync_p99_us=..
//! fsync_majority_p50_us=.. fsync_majority_p99_us=.. rtt_p50_us=..
//! rtt_p99_us=.. spawn_p50_us=.. spawn_p99_us=.. samples=COUNT` and writes
//! DIR/floor-samples.txt: one line per sample, `FSYNC_US RTT_US
//! MAJORITY_FSYNC_US`.

use kraft_raft::storage::page_cache;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, String>;

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A new, empty probe file in `dir` that the floor appends to.
fn probe_file(path: &std::path::Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn fsyncs(dir: &std::path::Path, count: usize) -> Result<Vec<u64>> {
    let path = dir.join("floor-fsync.probe");
    let mut file = probe_file(&path)?;
    let block = [0x5au8; 4096];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let start = Instant::now();
        file.write_all(&block).map_err(|e| format!("write: {e}"))?;
        file.sync_data().map_err(|e| format!("fsync: {e}"))?;
        out.push(micros(start.elapsed()));
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = std::fs::remove_file(&path);
    Ok(out)
}

/// Three files appended and synced at once; the time until two are durable.
fn majority_fsyncs(dir: &std::path::Path, count: usize) -> Result<Vec<u64>> {
    use std::sync::{Arc, Barrier};
    const VOTERS: usize = 3;
    let start_line = Arc::new(Barrier::new(VOTERS + 1));
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Result<Instant>>();
    let mut threads = Vec::new();
    for v in 0..VOTERS {
        let path = dir.join(format!("floor-fsync-{v}.probe"));
        let mut file = probe_file(&path)?;
        let (start_line, done_tx) = (start_line.clone(), done_tx.clone());
        threads.push(std::thread::spawn(move || {
            let block = [0x5au8; 4096];
            for _ in 0..count {
                start_line.wait();
                let synced = file
                    .write_all(&block)
                    .and_then(|()| file.sync_data())
                    .map(|()| Instant::now())
                    .map_err(|e| format!("fsync: {e}"));
                if done_tx.send(synced).is_err() {
                    return;
                }
            }
            let _ = std::fs::remove_file(&path);
        }));
    }
    drop(done_tx);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        start_line.wait();
        let start = Instant::now();
        let mut done = Vec::with_capacity(VOTERS);
        for _ in 0..VOTERS {
            let at = done_rx
                .recv()
                .map_err(|_| "an fsync thread stopped".to_string())??;
            done.push(at);
        }
        done.sort_unstable();
        out.push(micros(done[VOTERS / 2].saturating_duration_since(start)));
        std::thread::sleep(Duration::from_millis(2));
    }
    for t in threads {
        let _ = t.join();
    }
    Ok(out)
}

fn round_trips(count: usize) -> Result<Vec<u64>> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let echo = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let _ = stream.set_nodelay(true);
        let mut buf = [0u8; 64];
        while stream.read_exact(&mut buf).is_ok() {
            if stream.write_all(&buf).is_err() {
                return;
            }
        }
    });
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut buf = [7u8; 64];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let start = Instant::now();
        stream.write_all(&buf).map_err(|e| format!("send: {e}"))?;
        stream
            .read_exact(&mut buf)
            .map_err(|e| format!("receive: {e}"))?;
        out.push(micros(start.elapsed()));
    }
    drop(stream);
    let _ = echo.join();
    Ok(out)
}

fn spawns(count: usize) -> Result<Vec<u64>> {
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let start = Instant::now();
        let status = std::process::Command::new("/bin/true")
            .status()
            .map_err(|e| format!("/bin/true: {e}"))?;
        if !status.success() {
            return Err(format!("/bin/true: {status}"));
        }
        out.push(micros(start.elapsed()));
    }
    Ok(out)
}

/// WRITERS threads each append `mib` fsynced 1 MiB blocks to their own
/// file in `dir` (with `drop_pages`, each block's pages dropped from the
/// page cache once durable); the bytes written over the time until the
/// last is done.
fn write_bandwidth(
    dir: &std::path::Path,
    writers: usize,
    mib: usize,
    drop_pages: bool,
) -> Result<f64> {
    use std::sync::{Arc, Barrier};
    let start_line = Arc::new(Barrier::new(writers + 1));
    let mut threads = Vec::new();
    for w in 0..writers {
        let path = dir.join(format!("floor-write-{w}.probe"));
        let mut file = probe_file(&path)?;
        let start_line = start_line.clone();
        threads.push(std::thread::spawn(move || -> Result<()> {
            let block = vec![0x5au8; 1 << 20];
            start_line.wait();
            let written = (0..mib as u64).try_for_each(|i| {
                file.write_all(&block)?;
                file.sync_data()?;
                if drop_pages {
                    page_cache::drop_clean_range(&file, i << 20, (i + 1) << 20);
                }
                Ok::<(), std::io::Error>(())
            });
            let _ = std::fs::remove_file(&path);
            written.map_err(|e| format!("write: {e}"))
        }));
    }
    start_line.wait();
    let start = Instant::now();
    for t in threads {
        t.join()
            .map_err(|_| "a writer thread panicked".to_string())??;
    }
    Ok((writers * mib) as f64 * (1 << 20) as f64 / start.elapsed().as_secs_f64())
}

/// The `DIR NUMBER` arguments: the directory (created if missing) and a
/// positive number named `what` in the errors.
fn dir_and_number(
    mut args: impl Iterator<Item = String>,
    usage: &str,
    what: &str,
) -> Result<(PathBuf, usize)> {
    let (Some(dir), Some(number)) = (args.next(), args.next()) else {
        return Err(usage.into());
    };
    let dir = PathBuf::from(dir);
    let number = number
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{what} must be a positive number, not {number:?}"))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok((dir, number))
}

fn run_write_bandwidth(args: impl Iterator<Item = String>) -> Result<()> {
    let (dir, mib) = dir_and_number(args, "usage: bench_floor --write-bandwidth DIR MIB", "MIB")?;
    let one = write_bandwidth(&dir, 1, mib, false)?;
    let three = write_bandwidth(&dir, 3, mib, false)?;
    let dropped = write_bandwidth(&dir, 3, mib, true)?;
    println!(
        "disk write_1_bytes_per_s={one:.0} write_3_bytes_per_s={three:.0} \
         write_3_dropped_bytes_per_s={dropped:.0} mib_per_writer={mib}"
    );
    Ok(())
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--write-bandwidth") {
        args.next();
        return run_write_bandwidth(args);
    }
    let (dir, count) = dir_and_number(args, "usage: bench_floor DIR COUNT", "COUNT")?;
    let fsync = fsyncs(&dir, count)?;
    let majority = majority_fsyncs(&dir, count)?;
    let rtt = round_trips(count)?;
    let spawn = spawns((count / 10).max(5))?;
    let mut lines = String::new();
    for ((f, r), m) in fsync.iter().zip(&rtt).zip(&majority) {
        lines.push_str(&format!("{f} {r} {m}\n"));
    }
    let samples = dir.join("floor-samples.txt");
    std::fs::write(&samples, lines).map_err(|e| format!("{}: {e}", samples.display()))?;
    let sorted = |mut v: Vec<u64>| {
        v.sort_unstable();
        v
    };
    let (fsync, majority, rtt, spawn) =
        (sorted(fsync), sorted(majority), sorted(rtt), sorted(spawn));
    println!(
        "floor fsync_p50_us={} fsync_p99_us={} fsync_majority_p50_us={} fsync_majority_p99_us={} rtt_p50_us={} rtt_p99_us={} spawn_p50_us={} spawn_p99_us={} samples={count}",
        percentile(&fsync, 0.5),
        percentile(&fsync, 0.99),
        percentile(&majority, 0.5),
        percentile(&majority, 0.99),
        percentile(&rtt, 0.5),
        percentile(&rtt, 0.99),
        percentile(&spawn, 0.5),
        percentile(&spawn, 0.99),
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_floor: {e}");
            ExitCode::FAILURE
        }
    }
}
