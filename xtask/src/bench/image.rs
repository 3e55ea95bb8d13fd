//! `cargo xtask bench-image`: the metadata image against Kafka 4.4's own
//! image classes on the same records (not in `ci`); writes
//! `docs/benchmarks-image.md`.

use std::collections::BTreeMap;
use std::process::Command;

use crate::{root, run, run_with_env, Result};

/// The metadata image against Kafka 4.4's own image classes on the same
/// records (issue 13): `benches/image.rs` writes its workload (10 brokers,
/// 10,000 topics x 10 partitions, 1,000 ACLs) to
/// `target/image-bench/records.bin` and its summary line, then
/// `tests/interop/.../ImageBench.java` measures Kafka on that file (JIT
/// warmed, medians). Prints both, the ratios against the targets (replay at
/// least 2x Kafka's records/s, at most 0.25x Kafka's heap per partition) and
/// writes `docs/benchmarks-image.md`. Not part of `ci` (too heavy).
pub fn bench_image() -> Result<()> {
    let root = root();
    let dir = root.join("target/image-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir_s = dir.display().to_string();
    let _ = std::fs::remove_file(dir.join("kraft-rs.txt"));
    let bench_args = [
        "bench",
        "-p",
        "kraft-controller",
        "--bench",
        "image",
        "--",
        "--warm-up-time",
        "1",
        "--measurement-time",
        "3",
    ];
    run_with_env("cargo", &bench_args, &[("KRAFT_IMAGE_BENCH_DIR", &dir_s)])?;
    let ours = std::fs::read_to_string(dir.join("kraft-rs.txt"))
        .map_err(|e| format!("the Rust bench wrote no summary: {e}"))?;
    let pom = "tests/interop/pom.xml";
    if run("mvn", &["-q", "-B", "-o", "-f", pom, "compile"]).is_err() {
        run("mvn", &["-q", "-B", "-f", pom, "compile"])?;
    }
    let interop = root.join("tests/interop/target");
    let deps = std::fs::read_to_string(interop.join("classpath.txt")).map_err(|e| e.to_string())?;
    let cp = format!("{}:{}", interop.join("classes").display(), deps.trim());
    let jvm_flags = ["-Xmx2g"];
    let records = dir.join("records.bin").display().to_string();
    let mut java_args: Vec<&str> = jvm_flags.to_vec();
    java_args.extend(["-cp", &cp, "org.kraftrs.interop.ImageBench", &records]);
    eprintln!(
        "$ java {} -cp ... org.kraftrs.interop.ImageBench {records}",
        jvm_flags.join(" ")
    );
    let out = Command::new("java")
        .args(&java_args)
        .current_dir(&root)
        .output()
        .map_err(|e| format!("cannot run java: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "ImageBench failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let kafka = stdout
        .lines()
        .find(|l| l.starts_with("kafka "))
        .ok_or_else(|| format!("ImageBench printed no `kafka ...` line:\n{stdout}"))?
        .to_string();
    let fields = |line: &str| -> BTreeMap<String, String> {
        line.split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let (o, k) = (fields(ours.trim()), fields(&kafka));
    let num = |m: &BTreeMap<String, String>, key: &str| -> Result<f64> {
        m.get(key)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no number `{key}` in the summary"))
    };
    // (what, our key, Kafka's key, target on ours/Kafka)
    type Row = (
        &'static str,
        &'static str,
        &'static str,
        Option<(&'static str, f64)>,
    );
    let rows: [Row; 8] = [
        (
            "replay (records/s)",
            "replay_records_per_s",
            "replay_records_per_s",
            Some((">=", 2.0)),
        ),
        ("replay (ms)", "replay_ms", "replay_ms", Some(("<=", 0.5))),
        (
            "snapshot write (ms)",
            "snapshot_write_ms",
            "snapshot_write_ms",
            None,
        ),
        (
            "snapshot load (ms)",
            "snapshot_load_ms",
            "snapshot_load_ms",
            None,
        ),
        (
            "snapshot size (bytes)",
            "snapshot_bytes",
            "snapshot_bytes",
            None,
        ),
        (
            "memory/partition: our heap vs Kafka heap after GC (bytes)",
            "heap_bytes_per_partition",
            "heap_bytes_per_partition",
            Some(("<=", 0.25)),
        ),
        (
            "memory/partition: our heap as glibc malloc chunks vs Kafka heap after GC (bytes)",
            "heap_chunk_bytes_per_partition",
            "heap_bytes_per_partition",
            Some(("<=", 0.25)),
        ),
        (
            "memory/partition: our RSS growth vs Kafka heap after GC (bytes)",
            "rss_bytes_per_partition",
            "heap_bytes_per_partition",
            Some(("<=", 0.25)),
        ),
    ];
    let mut table = String::from(
        "| metric | kraft-rs | Kafka 4.4 | ours/Kafka | target | met |\n|---|---:|---:|---:|---|---|\n",
    );
    for (what, ok, kk, target) in rows {
        let (a, b) = (num(&o, ok)?, num(&k, kk)?);
        let ratio = a / b;
        let (t, met) = match target {
            Some((">=", t)) => (format!(">= {t}"), if ratio >= t { "yes" } else { "NO" }),
            Some((_, t)) => (format!("<= {t}"), if ratio <= t { "yes" } else { "NO" }),
            None => ("-".into(), "-"),
        };
        let fmt = |x: f64| {
            if x >= 1000.0 || x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        };
        table.push_str(&format!(
            "| {what} | {} | {} | {ratio:.3} | {t} | {met} |\n",
            fmt(a),
            fmt(b)
        ));
    }
    let sh = |program: &str, args: &[&str]| -> String {
        Command::new(program)
            .args(args)
            .output()
            .map(|o| {
                let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
                s.push_str(&String::from_utf8_lossy(&o.stderr));
                s.lines().next().unwrap_or("").trim().to_string()
            })
            .unwrap_or_else(|e| format!("({program}: {e})"))
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let doc = format!(
        "# The metadata image against Kafka 4.4's own classes\n\n\
         Generated by `cargo xtask bench-image` (do not edit by hand); issue 13.\n\n\
         Workload (`crates/controller/benches/image.rs`, written to `target/image-bench/records.bin` and \
         read by both sides): 10 brokers, 10,000 topics x 10 partitions (RF 3, PartitionRecord v2 with \
         directories and empty ELR), a config on every 10th topic, 1,000 ACLs; {} records, {} partitions.\n\n\
         * kraft-rs: `cargo bench -p kraft-controller --bench image` (release profile), medians of {} runs \
         after one untimed run, each output dropped outside the timing; replay = decode + apply every value into `MetadataImage`; snapshot write = \
         `to_values` + `encode_snapshot` (8 MiB batches, in memory); snapshot load = `decode_snapshot` + \
         `from_snapshot_values`; heap = live bytes held by the image after a replay of fresh copies of \
         the values (a counting global allocator: the sizes the image asked for and still holds, capacity \
         slack included); as malloc chunks = the same allocations as glibc's malloc holds them (8-byte \
         header, 16-byte granules, 32 bytes at least; {} allocations in all); RSS = growth of the \
         process's resident set over one replay (after each value's one-time `Bytes` promotion to a \
         shared buffer, which is the workload's, not the image's). The image's layout is described in \
         `crates/controller/src/image/partition.rs` and `topics.rs`.\n\
         * Kafka: `tests/interop/src/main/java/org/kraftrs/interop/ImageBench.java` on Kafka 4.4.0's jars, \
         JVM flags `{}` (default GC: {}), Java {}; {} warm-up rounds, then the median of {} runs, each after a `System.gc()` (outside the timing) that \
         collects the previous output; replay = \
         `MetadataRecordSerde` + `MetadataDelta.replay` + `apply`; snapshot write = `MetadataImage.write` \
         through `RaftSnapshotWriter` (1,024 records per append) and `RecordsSnapshotWriter` (8 MiB batches) \
         into memory; snapshot load = `RecordsSnapshotReader` (CRC checked) + replay into a fresh delta + \
         `finishSnapshot` + `apply`; heap = used heap after `System.gc()` with the image held minus without.\n\n\
         Date: {}. Machine: {} CPUs (`nproc`), kernel {} (`uname -r`), {cpu}; {}. Shared machine: other \
         work may have run at the same time, so timings are noisy.\n\n\
         {table}\n\
         Targets: replay at least 2x Kafka's records/s (i.e. at most 0.5x its time), at most 0.25x Kafka's \
         memory per partition. Our heap figure counts the bytes the image asked the allocator for; the \
         chunk figure adds malloc's per-allocation overhead; the RSS figure includes both (and any \
         allocator slack, and code pages first touched), closer to what a JVM's heap after GC counts \
         (object headers, padding).\n\n\
         Raw lines:\n\n```text\n{}\n{}\n```\n",
        o.get("records").map_or("?", String::as_str),
        o.get("partitions").map_or("?", String::as_str),
        o.get("runs").map_or("?", String::as_str),
        o.get("heap_allocations").map_or("?", String::as_str),
        jvm_flags.join(" "),
        k.get("gc").map_or("?", String::as_str),
        k.get("java").map_or("?", String::as_str),
        k.get("warmup").map_or("?", String::as_str),
        k.get("runs").map_or("?", String::as_str),
        sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        sh("nproc", &[]),
        sh("uname", &["-r"]),
        sh("rustc", &["-V"]),
        ours.trim(),
        kafka.trim(),
    );
    let path = root.join("docs/benchmarks-image.md");
    std::fs::write(&path, doc).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}\n{}\n\n{table}", ours.trim(), kafka.trim());
    eprintln!("bench-image: wrote {}", path.display());
    Ok(())
}
