//! Resident set, thread count and CPU time of the controllers, read from
//! `/proc`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Linux `USER_HZ`: the unit of `utime`/`stime` in `/proc/PID/stat`.
pub(crate) const CLOCK_TICKS_PER_SECOND: u64 = 100;

/// One `/proc` reading of a process.
#[derive(Clone, Copy)]
pub(crate) struct ProcSample {
    pub(crate) at: Instant,
    pub(crate) rss_kb: u64,
    pub(crate) threads: u64,
    pub(crate) cpu_ticks: u64,
}

fn read_proc(pid: u32) -> Option<(u64, u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name; utime and stime are
    // fields 14 and 15 of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((field("VmRSS:")?, field("Threads:")?, utime + stime))
}

/// Samples every process in `pids` twice a second until `stop`.
pub(crate) fn spawn_sampler(
    pids: Vec<(String, u32)>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<Vec<ProcSample>>> {
    std::thread::spawn(move || {
        let mut out: Vec<Vec<ProcSample>> = vec![Vec::new(); pids.len()];
        while !stop.load(Ordering::Acquire) {
            for (i, (_, pid)) in pids.iter().enumerate() {
                if let Some((rss_kb, threads, cpu_ticks)) = read_proc(*pid) {
                    out[i].push(ProcSample {
                        at: Instant::now(),
                        rss_kb,
                        threads,
                        cpu_ticks,
                    });
                }
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        out
    })
}
