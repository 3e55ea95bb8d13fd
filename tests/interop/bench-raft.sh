# The `raft` section of bench.sh (sourced by it, not run): the throughput of
# the raft layer driven directly, three voters, kraft-rs's
# `crates/raft/examples/raft_perf.rs` against Kafka 4.4's own
# `kafka.tools.TestRaftServer` (in the kafka_2.13 jar of the interop
# classpath, kafka-quorum/pom.xml), one process per node on 127.0.0.1, a
# fresh static quorum (`controller.quorum.voters`, no format step) per run.
#
# Both run TestRaftServer's workload: the leader appends records of
# BENCH_RAFT_RECORD_SIZE bytes (default 256, TestRaftServer's) at
# each rate of BENCH_RAFT_THROUGHPUTS records/s in turn (default "200000
# 500000 1000000": the last is past what either commits here; raft_perf's
# leader then keeps at most 4 MiB of records uncommitted and commits at
# its ceiling, while TestRaftServer's workload thread dies when Kafka's
# accumulator holds 10 batches (workload_died=1), so the figure that counts
# is each implementation's best over the rates) without waiting for
# commits, and
# every 5 s prints
#   Throughput (bytes/second): X, Latency (ms): A p75 B p99 C p999
# with Kafka's metric arithmetic (raft_perf copies it): a rate over two 30 s
# samples, where before 30 s the divisor is the time since the first commit
# plus 30 s, and latency percentiles over the same samples in 1 ms buckets
# capped at 249 ms. Each line is stamped on arrival; the committed bytes at a
# line are rate x divisor (the time since the first commit taken from the
# leader's claim: raft_perf's `claimed_unix_ms`, Kafka's log line
# "Completed transition to Leader"), and the throughput is the bytes
# committed between the second line and the last over the time between them
# (the first line is skipped: JVM warm-up, leader election; with fewer than
# 3 lines, from the first). p75/p99/p999 are the last line's, as printed.
# The leader is the node with the most lines; elections= counts the
# leaderships claimed in the run (1 when stable).
#
# Implementations (bench.sh's names): kraft-rs = raft_perf (BENCH_RAFT_PERF,
# default target/release/examples/raft_perf next to KRAFT's directory);
# kafka = TestRaftServer with Kafka's defaults (linger 25 ms) and
# kafka-server-start.sh's JVM flags; kafka-eq = the same with bench.sh's
# kafka-eq settings (linger 0, kraft-rs's timeouts). Runs of
# BENCH_RAFT_SECS (default 20) after the first line, BENCH_RAFT_ROUNDS
# (default 2) rounds, ABBA within each rate. Lines: `IMPL raft round=R
# record_size=... target_records_per_s=... lines=N span_s=... bytes_per_s=...
# records_per_s=... p75_ms=... p99_ms=... p999_ms=... leader=ID elections=N
# workload_died=0|1`.
# shellcheck shell=bash

raft_perf=${BENCH_RAFT_PERF:-$(dirname "$kraft")/examples/raft_perf}
[[ $raft_perf == /* ]] || raft_perf=$PWD/$raft_perf
raft_secs=${BENCH_RAFT_SECS:-20}
raft_rounds=${BENCH_RAFT_ROUNDS:-2}
raft_record_size=${BENCH_RAFT_RECORD_SIZE:-256}
raft_throughputs=${BENCH_RAFT_THROUGHPUTS:-200000 500000 1000000}

# raft_stamp: every stdin line prefixed with the epoch time of its arrival.
raft_stamp() {
    local line
    while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done
}
# raft_uuid: a directory id in Kafka's text form.
raft_uuid() {
    local u
    while :; do
        u=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
        [[ $u != -* ]] && { echo "$u"; return; }
    done
}
# raft_died DIR: TestRaftServer's workload thread died, past its capacity
# ("Attempting to append records when the number of batches 10 reached 10"):
# its leader prints no more lines.
raft_died() { grep -qs 'raft-workload-generator.*Error due to' "$1"/node*/err; }
# raft_once IMPL ROUND RATE: one run of three nodes; emits the raft line.
raft_once() {
    local i=$1 r=$2 raft_throughput=$3 rd id nd voters= cp= p t0 leader= deadline n claim elections
    rd="$root/raft-$i-$r-$3"
    bash "$kq" init "$rd" >/dev/null
    for id in 1 2 3; do voters+="${voters:+,}$id@127.0.0.1:$(bash "$kq" port "$rd" "$id")"; done
    if [[ $i != kraft-rs ]]; then
        cp=$(cat "${kq%/*}/kafka-quorum/target/classpath.txt" 2>/dev/null) ||
            fail "raft: no Kafka classpath (kafka-quorum/target/classpath.txt)"
        # Logs on stderr at info (kafka-quorum.sh's server config logs on
        # stdout, its tools' at warn): stdout carries TestRaftServer's
        # throughput lines, and the leader's "Completed transition to
        # Leader" line is info.
        cat >"$rd/raft-log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.stderr.ref = STDERR
EOF
    fi
    for id in 1 2 3; do
        nd="$rd/node$id"
        mkdir -p "$nd"
        p=$(bash "$kq" port "$rd" "$id")
        cat >"$nd/raft.properties" <<EOF
node.id=$id
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$p
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.voters=$voters
log.dirs=$nd/data
metadata.log.dir=$nd/data
EOF
        if [[ $i == kafka-eq ]]; then
            printf 'controller.quorum.append.linger.ms=%s\ncontroller.quorum.election.timeout.ms=%s\ncontroller.quorum.fetch.timeout.ms=%s\n' \
                "$ours_linger_ms" "$ours_election_ms" "$ours_fetch_ms" >>"$nd/raft.properties"
        fi
    done
    t0=$(now)
    for id in 1 2 3; do
        nd="$rd/node$id"
        local args=(--config "$nd/raft.properties" --replica-directory-id "$(raft_uuid)"
            --throughput "$raft_throughput" --record-size "$raft_record_size")
        if [[ $i == kraft-rs ]]; then
            "$raft_perf" "${args[@]}" > >(raft_stamp >"$nd/out") 2>"$nd/err" &
        else
            local jvm
            read -ra jvm <<<"$kafka_server_jvm"
            java "${jvm[@]}" -Dlog4j2.configurationFile="$rd/raft-log4j2.properties" -cp "$cp" \
                kafka.tools.TestRaftServer "${args[@]}" > >(raft_stamp >"$nd/out") 2>"$nd/err" &
        fi
        echo $! >"$nd/pid"
    done
    # The leader's first line (or a dead workload), then BENCH_RAFT_SECS of lines.
    deadline=$((SECONDS + 120))
    until leader=$(grep -l Throughput "$rd"/node*/out 2>/dev/null | head -n 1) && [[ -n $leader ]]; do
        raft_died "$rd" && break
        for id in 1 2 3; do
            kill -0 "$(cat "$rd/node$id/pid")" 2>/dev/null ||
                { d=$rd fail "raft: $i node $id exited: $(tail -n 5 "$rd/node$id/err")"; }
        done
        ((SECONDS < deadline)) || { d=$rd fail "raft: $i printed no throughput within 120s"; }
        sleep 0.2
    done
    # One second more: the line due BENCH_RAFT_SECS after the first is in.
    sleep "$((raft_secs + 1))"
    for id in 1 2 3; do
        kill -0 "$(cat "$rd/node$id/pid")" 2>/dev/null ||
            { d=$rd fail "raft: $i node $id exited during the run: $(tail -n 5 "$rd/node$id/err")"; }
    done
    stop_pids "$rd"/node*/pid
    rm -f "$rd"/node*/pid
    local died=0
    raft_died "$rd" && died=1
    # No line at all: the workload died first, or Kafka's leadership moved
    # before its first line.
    if ! grep -qs Throughput "$rd"/node*/out; then
        emit "raft round=$r record_size=$raft_record_size target_records_per_s=$raft_throughput lines=0 bytes_per_s=0 records_per_s=0 elections=$(cat "$rd"/node*/err | grep -cF 'Completed transition to Leader' || true) workload_died=$died start_to_end_s=$(secs "$t0")"
        [[ -n ${BENCH_KEEP:-} ]] || rm -rf "$rd"/node*/data
        return
    fi
    # The leader: the node with the most lines (leadership may have moved).
    leader=$({ grep -c Throughput "$rd"/node*/out || true; } | sort -t: -k2,2nr | head -n 1 | cut -d: -f1)
    nd=${leader%/out}
    id=${nd##*/node}
    if [[ $i == kraft-rs ]]; then
        elections=$(cat "$rd"/node*/err | grep -c 'claimed_unix_ms=' || true)
        claim=$(grep -o 'claimed_unix_ms=[0-9]*' "$nd/err" | head -n 1 | cut -d= -f2)
        [[ -n $claim ]] || fail "raft: $i leader $id logged no claim"
        claim=$(awk -v m="$claim" 'BEGIN {printf "%.3f", m / 1000}')
    else
        elections=$(cat "$rd"/node*/err | grep -cF 'Completed transition to Leader' || true)
        claim=$(grep -F 'Completed transition to Leader' "$nd/err" | head -n 1)
        [[ -n $claim ]] || fail "raft: $i leader $id logged no 'Completed transition to Leader'"
        claim=$(log_time "$claim")
    fi
    local line
    line=$(awk -v c="$claim" -v rs="$raft_record_size" '
        # The committed bytes at a line: the rate times Kafka'"'"'s divisor.
        function committed(w, rate,   t, dv) {
            t = (w - c) * 1000
            if (t < 30000) dv = t + 30000
            else if (t < 60000) dv = t
            else dv = t - 30000 * (int(t / 30000) - 2)
            return rate * dv / 1000
        }
        /Throughput/ {
            k++
            w = $1
            rate = $4; sub(/,$/, "", rate)
            b = committed(w, rate)
            if (k == 1) { w1 = w; b1 = b }
            if (k == 2) { w2 = w; b2 = b }
            wl = w; bl = b; p75 = $7; p99 = $9; p999 = $11
        }
        END {
            # Fewer than 3 lines (a workload that died): from the first line,
            # or from the claim.
            if (k < 3) { w2 = w1; b2 = b1 }
            if (k == 1) { w2 = c; b2 = 0 }
            bps = (k == 0 || wl == w2) ? 0 : (bl - b2) / (wl - w2)
            printf "lines=%d span_s=%.1f bytes_per_s=%.0f records_per_s=%.0f p75_ms=%s p99_ms=%s p999_ms=%s", k, wl - w2, bps, bps / rs, p75, p99, p999
        }' "$nd/out")
    emit "raft round=$r record_size=$raft_record_size target_records_per_s=$raft_throughput $line leader=$id elections=$elections workload_died=$died start_to_end_s=$(secs "$t0")"
    [[ -n ${BENCH_KEEP:-} ]] || rm -rf "$rd"/node*/data
}
raft_section() {
    local r i tp
    [[ -x $raft_perf ]] || fail "raft: $raft_perf is not executable (cargo build --release -p kraft-raft --example raft_perf)"
    # The disk's write ceiling for three replicas sharing it, before and
    # after the runs (fsynced 1 MiB appends; its rate drifts).
    raft_disk before
    for ((r = 1; r <= raft_rounds; r++)); do
        for tp in $raft_throughputs; do
            for i in $(abba "$r"); do
                impl=$i
                echo "== $impl: raft layer throughput at $tp records/s, round $r"
                raft_once "$i" "$r" "$tp"
            done
        done
    done
    raft_disk after
}
# raft_disk WHEN: bench_floor --write-bandwidth (256 MiB per writer).
raft_disk() {
    local line was=$impl
    impl=machine
    line=$("$floorbin" --write-bandwidth "$root" 256) || fail "bench_floor --write-bandwidth failed"
    emit "$line when=$1"
    impl=$was
}
