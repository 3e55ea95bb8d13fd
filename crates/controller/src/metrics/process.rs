//! The standard `process_*` metrics of Prometheus clients, read from
//! `/proc` (Linux) the way the Go and Java clients read them.

use std::fs;

/// Clock ticks per second of `/proc/<pid>/stat` times (`USER_HZ`, 100 on
/// every Linux the Prometheus clients support; they assume it too).
const USER_HZ: f64 = 100.0;

/// This process's resource use.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ProcessValues {
    /// `process_cpu_seconds_total`: user and system CPU time.
    pub cpu_seconds: f64,
    /// `process_resident_memory_bytes`.
    pub resident_memory_bytes: u64,
    /// `process_virtual_memory_bytes`.
    pub virtual_memory_bytes: u64,
    /// `process_start_time_seconds`: since the Unix epoch.
    pub start_time_seconds: f64,
    /// `process_open_fds`.
    pub open_fds: u64,
    /// `process_max_fds`: the soft limit on open files.
    pub max_fds: u64,
}

impl ProcessValues {
    /// Reads `/proc/self`; `None` where it cannot be read (not Linux).
    pub fn read() -> Option<ProcessValues> {
        let stat = fs::read_to_string("/proc/self/stat").ok()?;
        let boot_time = fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|s| parse_boot_time(&s))?;
        let status = fs::read_to_string("/proc/self/status").ok()?;
        let limits = fs::read_to_string("/proc/self/limits").ok()?;
        let open_fds = fs::read_dir("/proc/self/fd").ok()?.count() as u64;
        parse(&stat, boot_time, &status, &limits, open_fds)
    }
}

/// The values from the files' texts; `None` if one does not parse.
pub(crate) fn parse(
    stat: &str,
    boot_time: u64,
    status: &str,
    limits: &str,
    open_fds: u64,
) -> Option<ProcessValues> {
    // The command name may hold spaces and parentheses: fields start after
    // the last ')'. Field 3 (state) is the first after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15, starttime 22 (1-based).
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    let cpu_ticks = field(14)? + field(15)?;
    let start_ticks = field(22)?;
    Some(ProcessValues {
        cpu_seconds: cpu_ticks as f64 / USER_HZ,
        resident_memory_bytes: status_kib(status, "VmRSS:")? * 1024,
        virtual_memory_bytes: status_kib(status, "VmSize:")? * 1024,
        start_time_seconds: boot_time as f64 + start_ticks as f64 / USER_HZ,
        open_fds,
        max_fds: max_open_files(limits)?,
    })
}

/// `btime` of `/proc/stat`: the boot time in seconds since the epoch.
pub(crate) fn parse_boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// A `kB` line of `/proc/self/status`.
fn status_kib(status: &str, key: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix(key))?;
    line.split_whitespace().next()?.parse().ok()
}

/// The soft limit of `Max open files` in `/proc/self/limits`.
fn max_open_files(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))?;
    let soft = line.split_whitespace().next()?;
    if soft == "unlimited" {
        Some(u64::MAX)
    } else {
        soft.parse().ok()
    }
}
