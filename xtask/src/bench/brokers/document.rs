//! The document `bench-brokers` writes, `docs/benchmarks-brokers.md`: the
//! machine, the settings, what each step measured, the results table, the
//! controllers and the raw lines.

use std::process::Command;

use super::{BenchLine, Results, Row, IMPLS};

impl Results<'_> {
    /// Every controller process: role, RSS and threads in each state.
    pub(super) fn controllers_table(&self) -> String {
        let mut procs = String::from(
            "| implementation | node | role | VmRSS, 3 Java brokers (MiB) | VmRSS, 3 fake (MiB) | VmRSS, 50 fake (MiB) | max VmRSS, 50 fake (MiB) | threads (3 Java / 3 fake / 50 fake) |\n|---|---|---|---:|---:|---:|---:|---|\n",
        );
        for implementation in IMPLS {
            let last_round = self
                .of(implementation, "proc_java_brokers")
                .iter()
                .filter_map(|l| l.get("round"))
                .max()
                .map(str::to_string);
            for node in ["1", "2", "3"] {
                let java = self
                    .of(implementation, "proc_java_brokers")
                    .into_iter()
                    .find(|l| {
                        l.get("name") == Some(node) && l.get("round") == last_round.as_deref()
                    });
                let fake = |brokers: &str| {
                    self.of(implementation, "proc")
                        .into_iter()
                        .find(|l| l.get("name") == Some(node) && l.get("brokers") == Some(brokers))
                };
                let mib = |l: Option<&BenchLine>, key: &str| {
                    l.and_then(|l| l.num(key))
                        .map_or("?".to_string(), |kb| format!("{:.1}", kb / 1024.0))
                };
                let threads = |l: Option<&BenchLine>| {
                    l.and_then(|l| l.get("threads")).unwrap_or("?").to_string()
                };
                let role = if self.leader_of.get(implementation).map(String::as_str) == Some(node) {
                    "active"
                } else {
                    "follower"
                };
                procs.push_str(&format!(
                    "| {implementation} | {node} | {role} | {} | {} | {} | {} | {} / {} / {} |\n",
                    mib(java, "rss_kb"),
                    mib(fake("3"), "rss_kb"),
                    mib(fake("50"), "rss_kb"),
                    mib(fake("50"), "rss_max_kb"),
                    threads(java),
                    threads(fake("3")),
                    threads(fake("50")),
                ));
            }
        }
        procs
    }

    /// The document: the machine, the settings, what each step measured, the
    /// tables and the raw lines.
    pub(super) fn document(
        &self,
        wall: f64,
        table: &str,
        procs: &str,
        verdict: &str,
        java_heap: &str,
    ) -> String {
        let (cpu, mem_gib, disk) = machine();
        let kafka_jvm = self.of("kafka", "jvm");
        let jvm_flags = kafka_jvm
            .first()
            .and_then(|l| l.get("flags"))
            .unwrap_or("?")
            .replace(',', " ");
        let java = kafka_jvm
            .first()
            .and_then(|l| l.get("java"))
            .unwrap_or("?")
            .to_string();
        let settings = self.of("kraft-rs", "settings");
        let setting = |key: &str| {
            settings
                .first()
                .and_then(|l| l.get(key))
                .unwrap_or("?")
                .to_string()
        };
        let phase_line = |implementation: &str, brokers: &str| {
            self.of(implementation, "phase")
                .into_iter()
                .find(|l| l.get("brokers") == Some(brokers))
        };
        let p3 = phase_line("kraft-rs", "3");
        let pf = |l: Option<&BenchLine>, key: &str| {
            l.and_then(|l| l.get(key)).unwrap_or("?").to_string()
        };
        let samples = |brokers: &str| {
            IMPLS
                .iter()
                .map(|i| {
                    let l = phase_line(i, brokers);
                    format!(
                        "{i} {} samples, {} errors",
                        pf(l, "samples"),
                        pf(l, "errors")
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let quorum_start = |implementation: &str| {
            self.of(implementation, "quorum")
                .first()
                .and_then(|l| l.get("start_s"))
                .unwrap_or("?")
                .to_string()
        };
        let timeouts = |implementation: &str| {
            self.of(implementation, "controller_logs")
                .first()
                .and_then(|l| l.get("heartbeat_timeouts"))
                .unwrap_or("?")
                .to_string()
        };
        let raw: Vec<&str> = self.lines.iter().map(|l| l.raw.as_str()).collect();
        let snapshot_interval = setting("metadata.log.max.snapshot.interval.ms");
        let big_interval = self
            .of("kraft-rs", "big_ready")
            .first()
            .and_then(|l| l.get("interval_ms"))
            .unwrap_or("?")
            .to_string();
        let big_brokers = self
            .of("kraft-rs", "big_ready")
            .first()
            .and_then(|l| l.get("brokers"))
            .unwrap_or("?")
            .to_string();
        format!(
            "# Brokers on kraft-rs controllers against Kafka 4.4's own controllers\n\n\
             Generated by `cargo xtask bench-brokers` (do not edit by hand). One run of \
             `tests/interop/bench-brokers.sh` measured a kraft-rs 3-controller quorum and a Java Kafka 4.4.0 \
             3-controller quorum on the same machine: both quorums run for the whole run, one is measured \
             while the other idles, the rounds of Java brokers take turns in ABBA order (kraft-rs first) and \
             the fake-broker phases run kraft-rs first (wall time {wall:.0} s including the release builds).\n\n\
             Date: {}. Machine: {} CPUs (`nproc`), {cpu}, {mem_gib} GiB RAM, kernel {} (`uname -r`); {disk}; \
             {}; Java {java}. Loopback only. Shared machine: other work may have run at the same time, and \
             repeated runs differ by about ±30%, so every figure is a median or a percentile of one run; \
             read ratios near a target as undecided.\n\n\
             Settings, equal on both sides: `broker.session.timeout.ms={}` and `broker.heartbeat.interval.ms={}` \
             (Kafka's defaults) on every controller and broker; clusters formatted with `--release-version {}`. \
             kraft-rs controllers: `kraft storage format --initial-controllers` + `kraft server` \
             (release build, `KRAFT_LOG=info`); quorum ready {} s after start. Java controllers: \
             `kafka-quorum.sh start` (format, start, wait for a leader and the three controller \
             registrations: {} s), and the Java brokers of both runs, with kafka-quorum.sh's JVM flags \
             `{jvm_flags}`: a 64 MiB initial / 320 MiB maximum heap with the serial collector and C1 only, \
             smaller and quicker to start than `kafka-server-start.sh`'s `-Xmx1G -Xms1G` with G1 (so Kafka's \
             RSS here is lower than a default production start would show).\n\n\
             What is measured:\n\n\
             1. Broker start to unfenced: {} untimed warm-up round(s), then {} rounds, of three unmodified \
             Java 4.4.0 brokers (`kafka-quorum.sh format-broker` afresh, then `kafka-quorum.sh run-node` for \
             the three at once, as `brokers.sh` starts them) on each quorum. The event is the broker's own `BrokerLifecycleManager` line \"The broker has been \
             unfenced. Transitioning from RECOVERY to RUNNING.\" (logged when the heartbeat answer that \
             unfenced it arrives; millisecond timestamps), measured from the moment the script spawned the \
             process; `kafka-cluster list-endpoints --include-fenced-brokers` then confirmed the three \
             unfenced in every round. \"Registration sent\" is \"Incarnation ... is now STARTING.\", logged \
             right after the broker hands its BrokerRegistration to its controller channel (the channel's \
             \"Recorded new KRaft controller\" follows within a millisecond); \"Waiting for the broker to be \
             unfenced\" is logged by `BrokerServer` once it called `setReadyToUnfence`, which sends the \
             heartbeat with `WantFence=false` at once, so that interval is one unfencing heartbeat: request, \
             UNFENCE record committed, answer (or the wait for a heartbeat already in flight; a fast answer can \
             be logged a few ms before the line, a negative interval). Most of spawn -> unfenced is the broker JVM's own start \
             on two cores shared by three brokers; spawn -> first log line involves no controller at all and \
             shows how much two sets of rounds differ without one. CPU per round (spawn to the last unfence): \
             the machine's busy time from `/proc/stat` (both cores), the controllers of both quorums and the \
             brokers from `/proc/PID/stat`; \"everything else\" is the rest (this script, and whatever else \
             ran on the shared machine).\n\
             2. Heartbeat round trips: `crates/controller/examples/broker_load/` (tokio, one thread, \
             `kraft_protocol` frames) registers fake brokers with BrokerRegistration v4 as a Java broker \
             fills it (cluster id, fresh incarnation, one PLAINTEXT listener, `BrokerFeatures.createDefault` \
             feature ranges, one log directory, no rack), each on its own connection to the active \
             controller (the one that does not answer NOT_CONTROLLER), and sends BrokerHeartbeat v2 \
             (`WantFence=false`, `CurrentMetadataOffset` ahead of its registration, `CordonedLogDirs=[]` \
             once caught up) every {} ms per broker, faster than the 2 s a Java broker waits, for more \
             samples (the same on both sides), the brokers' send times spread over the interval. A sample \
             is one request write to the last byte of its answer, nothing retried; an error answer would \
             be counted, not timed. 3 brokers for {} s, then 50 (the first 3 still running) for {} s, each \
             after every broker was unfenced and {} s of warm-up: {} with 3 brokers; {} with 50. All fake \
             brokers are unregistered at the end (UnregisterBroker), as the Java brokers 4-6 were before.\n\
             3. Resident sets: `VmRSS` and `Threads` of each controller process from `/proc/PID/status`, \
             sampled twice a second; the figure is the median of the samples taken while a phase was \
             timed (3 and 50 registered fake brokers, heartbeating), plus one reading one second after the \
             last round of Java brokers was unfenced. CPU is utime+stime over the timed window.\n\
             4. Topics (`tests/interop/kafka-quorum/src/main/java/org/kraftrs/interop/TopicBench.java`, \
             Kafka 4.4's `Admin` client bootstrapped on three fresh Java brokers per quorum, after the \
             rounds above): `createTopics(...).all().get()` timed per call, after 5 untimed calls, for \
             one topic of 1 partition RF 3 at a time (the broker forwards each CreateTopics to the active \
             controller; there is no row without a broker: Kafka 4.4's Admin client bootstrapped with \
             `bootstrap.controllers` fails `createTopics` itself with `UnsupportedEndpointTypeException`, \
             \"not yet supported when communicating directly with the controller quorum\", without \
             sending it, on either implementation); then the failover below, the killed broker \
             restarted and unfenced again; then the topics of the batch row in sequential calls, and \
             their deletion (`deleteTopics`, same batches). The failover runs before the batch: in a \
             trial run it ran after it, on brokers still busy with 30,000 fresh replicas on the shared \
             two cores, and on Kafka's quorum the followers had dropped out of the ISR of the victim's \
             partitions, which then had no eligible leader for 120 s. While they exist, 3 s after the \
             last call, each controller's `VmRSS` is read once; for Kafka also the heap used after \
             `jcmd PID GC.run` (`GC.heap_info`, serial collector: young + tenured used): active \
             controller {java_heap} MiB. Failover, repeated (each sample once every one-partition topic \
             has its 3 replicas in its ISR again, the previous victim restarted and unfenced; the row is \
             the median): TopicBench picks the broker leading most of the \
             one-partition topics, SIGKILLs it (`ProcessHandle.destroyForcibly`) and polls \
             `describeTopics` through the Admin client with no pause (retry backoff 10 ms) until every \
             partition it led shows another leader; the controller only learns of the death when the \
             session timeout expires, counted from the broker's last heartbeat, which came up to one \
             heartbeat interval before the kill, so one failover is between the session timeout minus \
             the heartbeat interval and the session timeout, plus the controller's fencing, election \
             and the metadata reaching the surviving broker that answered; the \"minus\" row can be \
             negative, and each sample carries up to a heartbeat interval of chance. kraft-rs checks the \
             sessions just after the first one expires (and at least every eighth of the timeout); Kafka \
             checks every eighth of the timeout, so it fences up to that much later.\n\
             5. Many partitions (last, on each quorum in turn): {big_brokers} fake brokers (`broker_load \
             --hold`: registered, unfenced and heartbeating every {big_interval} ms; Java brokers could not host that \
             many replicas on this machine); first one-topic CreateTopics of 1 partition RF 3, one at a \
             time, straight to the active controller by `broker_load` (each call from its request written \
             to its answer read; the answer comes once the records are committed and applied: the \
             controller's own latency, without a Java broker's forwarding and Admin client in front), \
             deleted again; then the topics of the \"straight to the active controller\" row, \
             created by `broker_load --create-topics` (CreateTopics v7 as Kafka's Admin client fills it, \
             RF 3, sent to the controller that does not answer NOT_CONTROLLER; no Admin client, see 4.); \
             then the script waits \
             until every controller has written a snapshot at or past the high watermark after the \
             creation (`metadata.log.max.snapshot.interval.ms={snapshot_interval}` on every controller of \
             both quorums for the whole run, as Kafka's default of an hour would not snapshot in time and \
             the image stays below the 20 MiB `metadata.log.max.record.bytes.between.snapshots`), reads \
             each controller's `VmRSS` 2 s later (for Kafka also the heap used after `jcmd PID GC.run`) \
             and the size of each controller's newest `*.checkpoint`; then stops one follower (SIGTERM) \
             and, 1.5 s later (the leader may still complete its last long-poll Fetch), starts it again \
             on the same data, polling `kraft metadata-quorum describe --replication` \
             with no pause until the leader reports it a Follower whose LastCaughtUpTimestamp is after the \
             spawn (its log read back and caught up with the leader's); then deletes the topics and \
             unregisters the fake brokers.\n\n\
             {table}\n\
             Targets (issue): a Java broker unfenced no later on kraft-rs than on Kafka (ratio <= 1); \
             heartbeat p99 with 3 brokers at most 0.5x Kafka's; controller RSS at most 0.1x Kafka's, with 3 \
             and with 50 brokers; CreateTopics at least 2x faster (ratio <= 0.5); failover no slower at \
             equal session timeouts (ratio <= 1); controller RSS with many partitions at most 0.2x \
             (against Kafka's RSS and against its heap used after GC); snapshot size and load time \
             without a target. {verdict}\n\n\
             Controllers (active = the one the fake brokers heartbeated to):\n\n\
             {procs}\n\
             Controller log lines \"Timed out heartbeat\" (a heartbeat not processed within half the \
             heartbeat interval): kraft-rs {}, Kafka {}.\n\n\
             Command: `cargo xtask bench-brokers` (environment knobs in `tests/interop/bench-brokers.sh`).\n\n\
             Raw lines (`target/bench-brokers/results.txt`):\n\n```text\n{}\n```\n",
            first_line("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
            first_line("nproc", &[]),
            first_line("uname", &["-r"]),
            first_line("rustc", &["-V"]),
            setting("broker.session.timeout.ms"),
            setting("broker.heartbeat.interval.ms"),
            setting("release_version"),
            quorum_start("kraft-rs"),
            quorum_start("kafka"),
            self.of("kraft-rs", "broker_warmup").len() / 3,
            self.of("kraft-rs", "broker").len() / 3,
            pf(p3, "interval_ms"),
            pf(p3, "seconds"),
            pf(phase_line("kraft-rs", "50"), "seconds"),
            pf(p3, "warmup_s"),
            samples("3"),
            samples("50"),
            timeouts("kraft-rs"),
            timeouts("kafka"),
            raw.join("\n"),
        )
    }
}

/// The results table, and the rows whose target was missed.
pub(super) fn results_table(rows: &[Row]) -> (String, Vec<String>) {
    let mut table = String::from(
        "| metric | kraft-rs | Kafka 4.4 | kraft-rs/Kafka | target | met |\n|---|---:|---:|---:|---|---|\n",
    );
    let mut missed = Vec::new();
    for (what, a, b, target, decimals) in rows {
        let ratio = a / b;
        let (t, met) = match target {
            Some((op, t)) => {
                let ok = if *op == "<=" {
                    ratio <= *t
                } else {
                    ratio >= *t
                };
                if !ok {
                    missed.push(what.clone());
                }
                (format!("{op} {t}"), if ok { "yes" } else { "NO" })
            }
            None => ("-".into(), "-"),
        };
        table.push_str(&format!(
            "| {what} | {a:.decimals$} | {b:.decimals$} | {ratio:.3} | {t} | {met} |\n"
        ));
    }
    (table, missed)
}

/// The CPU, the memory and the disk under the data directories, for the
/// document.
fn machine() -> (String, String, String) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".to_string(), |(_, v)| v.trim().to_string());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or("?".to_string(), |kb| format!("{:.1}", kb / 1024.0 / 1024.0));
    let tmp = std::env::temp_dir().display().to_string();
    let mount = first_line("findmnt", &["-no", "SOURCE,FSTYPE", "-T", &tmp]);
    let device = mount.split_whitespace().next().unwrap_or("").to_string();
    let name = device.trim_start_matches("/dev/").to_string();
    let size = first_line("lsblk", &["-dno", "SIZE", &device]);
    let rotational = std::fs::read_to_string(format!("/sys/block/{name}/queue/rotational"))
        .map_or("?".to_string(), |s| s.trim().to_string());
    let disk = format!(
        "data directories under `{tmp}` on {mount} ({size}, `/sys/block/{name}/queue/rotational` = {rotational}; a virtual disk, its backing store is not visible from the guest)"
    );
    (cpu, mem_gib, disk)
}

/// The first line of what a command prints (its stdout, then its stderr),
/// trimmed.
fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| {
            let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
            s.push_str(&String::from_utf8_lossy(&o.stderr));
            s.lines().next().unwrap_or("").trim().to_string()
        })
        .unwrap_or_else(|e| format!("({program}: {e})"))
}
