#!/usr/bin/env bash
# Side-by-side benchmark of a kraft-rs 3-controller quorum and a Java Kafka
# 4.4.0 3-controller quorum serving brokers, for `cargo xtask bench-brokers`
# (which builds the binaries, runs this and writes docs/benchmarks-brokers.md).
#
#   bench-brokers.sh KRAFT_BINARY BROKER_LOAD_BINARY OUT_FILE
#
# On fresh directories:
# 1. both quorums, kraft-rs first: three controllers 1-3 each (kraft-rs:
#    `kraft storage format --initial-controllers` + `kraft server`; Java:
#    `kafka-quorum.sh start`), broker.session.timeout.ms,
#    broker.heartbeat.interval.ms and metadata.log.max.snapshot.interval.ms
#    set to the same values on both. Both run from then on, but only one is
#    measured at a time; the other idles;
# 2. BB_WARMUP_ROUNDS + BB_ROUNDS rounds of three unmodified Java 4.4.0
#    brokers 4-6 per quorum, the quorums taking turns in ABBA order (so a
#    drift of the machine's speed falls on both), formatted anew each round
#    (`kafka-quorum.sh format-broker`) and started together with
#    `kafka-quorum.sh run-node`, as brokers.sh starts them. From each
#    broker's own log, against the time the script spawned it:
#    "Incarnation ... is now STARTING" (BrokerLifecycleManager, logged right
#    after it hands its BrokerRegistration to its controller channel),
#    "Successfully registered broker" (the answer), "The broker has caught
#    up", BrokerServer's "Waiting for the broker to be unfenced" (logged once
#    it has called setReadyToUnfence, which sends a heartbeat with
#    WantFence=false at once; an answer can beat this line by a few ms) and
#    "The broker has been unfenced. Transitioning from RECOVERY to RUNNING"
#    (the heartbeat answer that unfenced it). ClusterTool list-endpoints
#    --include-fenced-brokers then confirms all three unfenced, the
#    controllers' VmRSS and thread counts are read, and the brokers are
#    stopped (SIGTERM: controlled shutdown) and unregistered
#    (BROKER_LOAD_BINARY --phases none);
# 3. per quorum in turn (topic_phase), three fresh Java brokers and
#    TopicBench.java (kafka-quorum/src/main/java): BB_SINGLE one-topic
#    CreateTopics (1 partition, RF 3) timed per call after 5 untimed (through
#    the brokers, which forward them to the active controller: Kafka 4.4's
#    Admin client with bootstrap.controllers fails CreateTopics itself with
#    UnsupportedEndpointTypeException, "not yet supported when communicating
#    directly with the controller quorum", and sends nothing), then
#    BB_PACED more, each after an untimed pause of BB_PACE_MS (the brokers
#    have created the previous replica by then: back to back, three Java
#    brokers creating a replica each on two shared cores bound the loop,
#    docs/forwarded-createtopics.md), then BB_TOPICS topics x BB_PARTITIONS partitions RF 3 in calls of BB_BATCH,
#    the controllers' VmRSS (and for Java the heap used after jcmd GC.run)
#    while they exist, and their deletion; between the two (on brokers not
#    yet loaded with 30,000 replicas), BB_FAILOVERS (default 3) times: once
#    every one-topic partition has 3 in its ISR, SIGKILL of the broker
#    leading most of them, describeTopics polled until each has another
#    leader, and its restart; the brokers are then stopped and unregistered;
# 4. per quorum in turn, BROKER_LOAD_BINARY
#    (crates/controller/examples/broker_load/) registers fake brokers (3,
#    then 50), times their heartbeats, samples the controllers' /proc and
#    unregisters its brokers;
# 5. per quorum in turn (big_phase), BB_BIG_TOPICS x BB_BIG_PARTITIONS
#    partitions (default 10,000 x 10 = 100,000, RF 3) on BB_BIG_BROKERS fake
#    brokers (ids 300..., `broker_load --hold`: registered, unfenced, kept
#    heartbeating every BB_HEARTBEAT_MS until its stdin closes; Java brokers
#    could not host 300,000 replicas on this machine); first BB_SINGLE
#    sequential CreateTopics of one topic of one partition (RF 3) straight
#    to the active controller, each call timed from request written to
#    answer read (`direct_create_batch`, call_p50_ms/call_p99_ms), deleted
#    again; then the topics created by `broker_load --create-topics` (CreateTopics v7 straight to the
#    active controller, BB_BATCH topics a call: no broker, and no Admin
#    client, see step 3; `big_create_batch`);
#    then, bounded, until every controller has written a snapshot at or past
#    the high watermark after the creation (`big_snapshot`: the newest
#    `*.checkpoint` of each, its offset and size); then each controller's
#    VmRSS, and for Java the heap used after `jcmd PID GC.run`
#    (`big_proc`); then the load time at that size (`big_load`): a follower
#    controller is stopped (SIGTERM) and, 1.5 s later (the leader may still
#    complete the stopped follower's last long-poll Fetch and move its
#    LastCaughtUpTimestamp), started again on the same data, and
#    `kraft metadata-quorum describe --replication` is polled with no pause
#    until the leader reports it a Follower caught up (LastCaughtUpTimestamp)
#    after the spawn; then the topics are deleted (`broker_load
#    --delete-topics`, `big_delete_batch`) and the fake brokers unregistered. Last, so no other step sees the restart,
#    but for the reassignment at scale (`big_reassign_batch`, before the
#    deletion): the partitions of the first topics, BB_REASSIGN in all
#    (default 10,000), moved to other fake brokers in one
#    AlterPartitionReassignments call, listed and cancelled (`broker_load
#    --reassign`), each call timed, then the active controller's VmRSS
#    (`big_reassign_proc`);
# 6. every controller is stopped.
# OUT_FILE receives one line per fact: `IMPL KIND key=value ...` with IMPL
# kraft-rs or kafka. Always stops every process it started.
#
# Environment: BB_SESSION_MS (default 9000, Kafka's default), BB_HEARTBEAT_MS
# (2000, Kafka's default; the Java brokers' interval too), BB_INTERVAL_MS
# (the fake brokers' heartbeat interval, default 100: more samples),
# BB_ROUNDS (timed rounds of three fresh Java brokers per quorum, default 4:
# each quorum goes first in half of them), BB_WARMUP_ROUNDS (untimed rounds
# before them, numbered from 0 down and emitted as `broker_warmup`, default
# 1: the first JVMs read the Kafka jars cold), BB_PHASES (3,50), BB_SECONDS
# (30,20), BB_WARMUP (seconds of untimed heartbeats before each phase, 5),
# BB_IMPLS ("kraft-rs kafka"), BB_START_TIMEOUT (seconds for a broker to be
# unfenced, 150), BB_SINGLE (one-topic CreateTopics calls, default 50; 0
# skips the topic phase), BB_PACED (one-topic calls after a pause, 30; 0
# skips them), BB_PACE_MS (the pause, 300), BB_TOPICS (1000; 0 skips the batch), BB_PARTITIONS
# (10), BB_BATCH (topics per call, 100), BB_BIG_TOPICS (10000; 0 skips step
# 5), BB_BIG_PARTITIONS (10), BB_BIG_BROKERS (3), BB_REASSIGN (partitions
# reassigned in one call, 10000; 0 skips it), BB_BIG_TIMEOUT (seconds
# for step 5's creation, for its snapshots and for the restarted follower,
# each, default 600), BB_SNAPSHOT_MS (metadata.log.max.snapshot.interval.ms
# on every controller, default 10000; Kafka's default is an hour and 100,000
# partitions stay under its 20 MiB record-bytes threshold), BB_STEPS (which
# of steps 2-5 run: "rounds topics fake big", the default, or a subset; e.g.
# BB_STEPS=big BB_BIG_TOPICS=300 runs only a small step 5), BB_KEEP=1 keeps
# the work directory.
set -euo pipefail

kraft=${1:?usage: bench-brokers.sh KRAFT_BINARY BROKER_LOAD_BINARY OUT_FILE}
loadgen=${2:?usage: bench-brokers.sh KRAFT_BINARY BROKER_LOAD_BINARY OUT_FILE}
out=${3:?usage: bench-brokers.sh KRAFT_BINARY BROKER_LOAD_BINARY OUT_FILE}
for b in kraft loadgen; do
    case ${!b} in /*) ;; *) printf -v "$b" '%s' "$PWD/${!b}" ;; esac
    [[ -x ${!b} ]] || { echo "bench-brokers.sh: ${!b} is not executable" >&2; exit 2; }
done
session_ms=${BB_SESSION_MS:-9000}
heartbeat_ms=${BB_HEARTBEAT_MS:-2000}
interval_ms=${BB_INTERVAL_MS:-100}
phases=${BB_PHASES:-3,50}
seconds=${BB_SECONDS:-30,20}
warmup=${BB_WARMUP:-5}
impls=${BB_IMPLS:-kraft-rs kafka}
start_timeout=${BB_START_TIMEOUT:-150}
rounds=${BB_ROUNDS:-4}
warmup_rounds=${BB_WARMUP_ROUNDS:-1}
single_n=${BB_SINGLE:-50}
paced_n=${BB_PACED:-30}
pace_ms=${BB_PACE_MS:-300}
failovers=${BB_FAILOVERS:-3}
topics_n=${BB_TOPICS:-1000}
partitions_n=${BB_PARTITIONS:-10}
batch_n=${BB_BATCH:-100}
big_topics=${BB_BIG_TOPICS:-10000}
big_partitions=${BB_BIG_PARTITIONS:-10}
big_brokers=${BB_BIG_BROKERS:-3}
big_timeout=${BB_BIG_TIMEOUT:-600}
reassign_n=${BB_REASSIGN:-10000}
snapshot_ms=${BB_SNAPSHOT_MS:-10000}
steps=" ${BB_STEPS:-rounds topics fake big} "
for s in $steps; do
    case $s in rounds | topics | fake | big) ;; *) echo "bench-brokers.sh: unknown step '$s' in BB_STEPS" >&2; exit 2 ;; esac
done
step() { [[ $steps == *" $1 "* ]]; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kq="$here/kafka-quorum.sh"
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-bench-brokers.XXXXXX")
release_version=4.4-IV2
brokers=(4 5 6)
controllers=(1 2 3)
d=
cbs=
impl=
declare -A bpid=()
: >"$out"
fast="$root/fast-client.properties"
printf 'default.api.timeout.ms=5000\nrequest.timeout.ms=3000\n' >"$fast"
started=$EPOCHREALTIME

emit() {
    echo "$impl $*" >>"$out"
    echo "  $impl $*"
}
secs() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN {printf "%.3f", b - a}'; }
log_tail() { grep -v $'^\t' "$1" 2>/dev/null | tail -n "${2:-20}" | cut -c1-300 || true; }

fail() {
    echo "FAIL $*" >&2
    if [[ -n $d ]]; then
        local f
        for f in "$d"/node*/server.log; do
            [[ -f $f ]] || continue
            echo "--- $f, tail:" >&2
            log_tail "$f" 15 >&2
        done
    fi
    echo "work directory kept: $root" >&2
    exit 1
}

# stop_pids PIDFILE...: SIGTERM, SIGKILL what is left after 20 s.
stop_grace_s=20
# shellcheck source=tests/interop/proc-lib.sh
source "$here/proc-lib.sh"
stop_dir() {
    local s=$1 id files=()
    for id in "${brokers[@]}"; do files+=("$s/node$id/pid"); done
    stop_pids "${files[@]}"
    stop_pids "$s"/node*/pid
    rm -f "$s"/node*/pid
}
cleanup() {
    local s
    disown -a 2>/dev/null || true
    # Step 5's fake brokers first (SIGTERM: they unregister and exit).
    for s in "$root"/*/; do [[ -d $s ]] && stop_pids "${s%/}/hold.pid" "${s%/}/targets.pid"; done
    for s in "$root"/*/; do [[ -d $s ]] && stop_dir "${s%/}"; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

port() { bash "$kq" port "$d" "$1"; }
pid_of() { cat "$d/node$1/pid" 2>/dev/null || true; }
# log_time LINE: a Kafka log line's "[yyyy-mm-dd hh:mm:ss,mmm]" as epoch seconds.
log_time() {
    local ts
    ts=$(sed -n 's/^\[\([0-9-]* [0-9:]*\),\([0-9]*\)\].*/\1.\2/p' <<<"$1")
    [[ -n $ts ]] && date -d "$ts" +%s.%N
}
first_line() { grep -m1 -F "$2" "$1" 2>/dev/null || true; }
# proc_fields PID: "rss_kb=N threads=N" from /proc.
proc_fields() {
    awk '/^VmRSS:/ {r = $2} /^Threads:/ {t = $2} END {printf "rss_kb=%s threads=%s", r, t}' "/proc/$1/status"
}

# CPU accounting in clock ticks (USER_HZ, 100 a second).
machine_busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }
proc_ticks() { awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# Every controller of every quorum started so far.
controller_ticks() {
    local f t=0
    for f in "$root"/*/node{1,2,3}/pid; do
        [[ -f $f ]] || continue
        t=$((t + $(proc_ticks "$(cat "$f")")))
    done
    echo "$t"
}

# ---------- controllers ----------
start_kraft_controllers() {
    local id nd initial= did
    cluster_id=$(bash "$kq" init "$d")
    cbs=$(bash "$kq" bootstrap "$d")
    for id in "${controllers[@]}"; do
        nd="$d/node$id"
        mkdir -p "$nd"
        cat >"$nd/server.properties" <<EOF
node.id=$id
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$(port "$id")
log.dirs=$nd/data
metadata.log.dir=$nd/data
controller.quorum.bootstrap.servers=$cbs
broker.session.timeout.ms=$session_ms
broker.heartbeat.interval.ms=$heartbeat_ms
metadata.log.max.snapshot.interval.ms=$snapshot_ms
EOF
        did=$("$kraft" storage random-uuid)
        initial+="${initial:+,}$id@127.0.0.1:$(port "$id"):$did"
    done
    for id in "${controllers[@]}"; do
        nd="$d/node$id"
        "$kraft" storage format --config "$nd/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --initial-controllers "$initial" >"$nd/format.log" 2>&1 ||
            fail "kraft storage format of controller $id failed: $(cat "$nd/format.log")"
    done
    local t0
    t0=$(now)
    for id in "${controllers[@]}"; do
        nd="$d/node$id"
        KRAFT_LOG=info NO_COLOR=1 "$kraft" server --config "$nd/server.properties" >>"$nd/server.log" 2>&1 &
        echo $! >"$nd/pid"
    done
    local deadline=$((SECONDS + 60)) st=
    while ((SECONDS < deadline)); do
        st=$(timeout 20 "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" \
            describe --status 2>/dev/null || true)
        if grep -qE '^LeaderId: +[0-9]' <<<"$st" &&
            [[ $(grep '^CurrentVoters:' <<<"$st" | grep -o '"id": *[0-9]*' | wc -l) == 3 ]]; then
            break
        fi
        st=
        for id in "${controllers[@]}"; do kill -0 "$(pid_of "$id")" 2>/dev/null || fail "controller $id exited"; done
        sleep 0.3
    done
    [[ -n $st ]] || fail "no kraft-rs leader with three voters within 60s"
    emit "quorum start_s=$(secs "$t0") how=kraft_storage_format+kraft_server"
}
start_java_controllers() {
    local t0
    t0=$(now)
    KQ_CONTROLLER_PROPS="broker.session.timeout.ms=$session_ms
broker.heartbeat.interval.ms=$heartbeat_ms
metadata.log.max.snapshot.interval.ms=$snapshot_ms" bash "$kq" start "$d" >/dev/null || fail "kafka-quorum.sh start failed"
    cluster_id=$(cat "$d/cluster-id")
    cbs=$(bash "$kq" bootstrap "$d")
    emit "quorum start_s=$(secs "$t0") how=kafka-quorum.sh_start(format+start+registrations)"
    local flags
    flags=$(tr '\0' '\n' <"/proc/$(pid_of 1)/cmdline" | grep -E '^-X' | paste -sd, -)
    emit "jvm flags=$flags java=$(java -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')"
}
now() { echo "$EPOCHREALTIME"; }

# ---------- Java brokers ----------
# broker_round R: fresh brokers 4-6 (formatted anew), started at once, timed
# to unfenced, confirmed, measured, stopped and unregistered.
broker_round() {
    local round=$1 kind=broker id pids=() rc=0 p
    ((round > 0)) || kind=broker_warmup
    for id in "${brokers[@]}"; do
        if [[ -d $d/node$id ]]; then
            mv "$d/node$id/server.log" "$d/round$((round - 1))-node$id.log" 2>/dev/null || true
            rm -rf "$d/node$id"
        fi
    done
    for id in "${brokers[@]}"; do
        KQ_BOOTSTRAP_SERVERS=$cbs KQ_BROKER_PROPS="broker.heartbeat.interval.ms=$heartbeat_ms
broker.session.timeout.ms=$session_ms" bash "$kq" format-broker "$d" "$id" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [[ $rc == 0 ]] || fail "formatting the brokers failed"
    declare -gA t_spawn=()
    local busy0 ours0
    busy0=$(machine_busy_ticks)
    ours0=$(controller_ticks)
    for id in "${brokers[@]}"; do
        t_spawn[$id]=$(now)
        bash "$kq" run-node "$d" "$id" >>"$d/node$id/server.log" 2>&1 &
        bpid[$id]=$!
    done
    local deadline=$((SECONDS + start_timeout)) all
    while :; do
        all=1
        for id in "${brokers[@]}"; do
            grep -qF "The broker has been unfenced" "$d/node$id/server.log" 2>/dev/null && continue
            all=0
            kill -0 "${bpid[$id]}" 2>/dev/null || fail "broker $id exited before it was unfenced"
        done
        ((all)) && break
        ((SECONDS < deadline)) || fail "the brokers were not all unfenced within ${start_timeout}s"
        sleep 0.2
    done
    # CPU from the spawn to the last unfence: the whole machine (both
    # cores), every controller of both quorums, the three brokers; the rest
    # is this script and whatever else ran on the machine.
    local busy ours brokers_t=0 wall
    busy=$(($(machine_busy_ticks) - busy0))
    ours=$(($(controller_ticks) - ours0))
    for id in "${brokers[@]}"; do brokers_t=$((brokers_t + $(proc_ticks "${bpid[$id]}"))); done
    wall=$(secs "${t_spawn[4]}")
    emit "round_cpu round=$round wall_s=$wall machine_busy_s=$(awk -v t="$busy" 'BEGIN {printf "%.2f", t / 100}') controllers_s=$(awk -v t="$ours" 'BEGIN {printf "%.2f", t / 100}') brokers_s=$(awk -v t="$brokers_t" 'BEGIN {printf "%.2f", t / 100}') other_s=$(awk -v t="$((busy - ours - brokers_t))" 'BEGIN {printf "%.2f", t / 100}')"
    local log l_first l_start l_reg l_caught l_ready l_unf t0
    for id in "${brokers[@]}"; do
        log="$d/node$id/server.log"
        t0=${t_spawn[$id]}
        # The first line the JVM logged (after run-node's own marker line).
        l_first=$(log_time "$(grep -m1 '^\[' "$log")")
        l_start=$(log_time "$(first_line "$log" "is now STARTING")")
        l_reg=$(log_time "$(first_line "$log" "Successfully registered broker $id")")
        l_caught=$(log_time "$(first_line "$log" "The broker has caught up")")
        l_ready=$(log_time "$(first_line "$log" "Waiting for the broker to be unfenced")")
        l_unf=$(log_time "$(first_line "$log" "The broker has been unfenced")")
        [[ -n $l_start && -n $l_reg && -n $l_caught && -n $l_ready && -n $l_unf ]] ||
            fail "broker $id's log lacks a BrokerLifecycleManager line"
        emit "$kind round=$round id=$id spawn_to_first_log_s=$(secs "$t0" "$l_first") spawn_to_starting_s=$(secs "$t0" "$l_start") spawn_to_registered_s=$(secs "$t0" "$l_reg") spawn_to_caught_up_s=$(secs "$t0" "$l_caught") spawn_to_unfenced_s=$(secs "$t0" "$l_unf") starting_to_registered_s=$(secs "$l_start" "$l_reg") starting_to_unfenced_s=$(secs "$l_start" "$l_unf") registered_to_unfenced_s=$(secs "$l_reg" "$l_unf") caught_up_to_unfenced_s=$(secs "$l_caught" "$l_unf") ready_to_unfenced_s=$(secs "$l_ready" "$l_unf")"
    done
    local ep st
    ep=$(bash "$kq" tool "$d" org.apache.kafka.tools.ClusterTool list-endpoints \
        --bootstrap-server "127.0.0.1:$(port 4)" --include-fenced-brokers 2>/dev/null) ||
        fail "ClusterTool list-endpoints failed"
    for id in "${brokers[@]}"; do
        st=$(awk -v id="$id" '$1 == id && $6 == "broker" {print $5}' <<<"$ep")
        [[ $st == unfenced ]] || fail "ClusterTool shows broker $id as '${st:-not listed}': $ep"
    done
    emit "clustertool round=$round brokers=4,5,6 state=unfenced"
    sleep 1
    for id in "${controllers[@]}"; do
        emit "proc_java_brokers round=$round brokers=3 name=$id $(proc_fields "$(pid_of "$id")")"
    done
    local files=() t0
    for id in "${brokers[@]}"; do files+=("$d/node$id/pid"); done
    t0=$(now)
    stop_pids "${files[@]}"
    for id in "${brokers[@]}"; do wait "${bpid[$id]}" 2>/dev/null || true; done
    rm -f "${files[@]}"
    emit "brokers_stopped round=$round s=$(secs "$t0") how=SIGTERM(controlled_shutdown)"
    "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" --phases none --unregister 4,5,6 \
        >"$d/unregister.out" 2>&1 || fail "unregistering brokers 4-6 failed: $(cat "$d/unregister.out")"
}

# ---------- topics through the Admin client (TopicBench.java) ----------
# topic_phase IMPL: three fresh Java brokers (as in a round), then
# TopicBench: BB_SINGLE sequential one-topic CreateTopics (after 5 untimed),
# BB_PACED more with a BB_PACE_MS pause before each,
# BB_TOPICS topics x BB_PARTITIONS partitions RF 3 in calls of BB_BATCH (the
# controllers' RSS read, heap after GC for Java, while they exist), their
# deletion, and the failover: SIGKILL of the broker leading the most
# one-topic partitions, polled until each has another leader.
topic_phase() {
    use "$1"
    echo "== $impl: topics through the Admin client ($(secs "$started")s)"
    local id pids=() rc=0 p
    for id in "${brokers[@]}"; do
        if [[ -d $d/node$id ]]; then
            mv "$d/node$id/server.log" "$d/pre-topics-node$id.log" 2>/dev/null || true
            rm -rf "$d/node$id"
        fi
    done
    for id in "${brokers[@]}"; do
        KQ_BOOTSTRAP_SERVERS=$cbs KQ_BROKER_PROPS="broker.heartbeat.interval.ms=$heartbeat_ms
broker.session.timeout.ms=$session_ms" bash "$kq" format-broker "$d" "$id" >/dev/null &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [[ $rc == 0 ]] || fail "formatting the brokers failed"
    for id in "${brokers[@]}"; do
        bash "$kq" run-node "$d" "$id" >>"$d/node$id/server.log" 2>&1 &
        bpid[$id]=$!
    done
    local deadline=$((SECONDS + start_timeout)) all
    while :; do
        all=1
        for id in "${brokers[@]}"; do
            grep -qF "The broker has been unfenced" "$d/node$id/server.log" 2>/dev/null && continue
            all=0
            kill -0 "${bpid[$id]}" 2>/dev/null || fail "broker $id exited before it was unfenced"
        done
        ((all)) && break
        ((SECONDS < deadline)) || fail "the brokers were not all unfenced within ${start_timeout}s"
        sleep 0.2
    done
    local bs="127.0.0.1:$(port 4),127.0.0.1:$(port 5),127.0.0.1:$(port 6)" line
    line=$(bash "$kq" java "$d" org.kraftrs.interop.TopicBench single "$bs" one- 5 "$single_n" 2>"$d/topicbench.err") ||
        fail "TopicBench single failed: $(tail -n 5 "$d/topicbench.err")"
    emit "$(grep '^create_single' <<<"$line")"
    if ((paced_n > 0)); then
        line=$(bash "$kq" java "$d" org.kraftrs.interop.TopicBench single "$bs" paced- 0 "$paced_n" "$pace_ms" 2>>"$d/topicbench.err") ||
            fail "TopicBench single (paced) failed: $(tail -n 5 "$d/topicbench.err")"
        emit "$(grep '^create_paced' <<<"$line")"
    fi
    # BB_FAILOVERS samples, each: wait until every one-topic partition has
    # all 3 replicas in its ISR, SIGKILL the broker leading the most of
    # them (TopicBench picks it), time until each has another leader, and
    # restart the victim (same data) until it is unfenced again.
    local victim sample unfenced_before
    for ((sample = 1; sample <= failovers; sample++)); do
        bash "$kq" java "$d" org.kraftrs.interop.TopicBench isr "$bs" one- "$single_n" >>"$d/topicbench.out" 2>>"$d/topicbench.err" ||
            fail "TopicBench isr (before failover $sample) failed: $(tail -n 5 "$d/topicbench.err")"
        line=$(bash "$kq" java "$d" org.kraftrs.interop.TopicBench failover "$bs" one- "$single_n" "4=${bpid[4]},5=${bpid[5]},6=${bpid[6]}" 2>>"$d/topicbench.err") ||
            fail "TopicBench failover $sample failed: $(tail -n 5 "$d/topicbench.err")"
        emit "$(grep '^failover' <<<"$line") sample=$sample session_ms=$session_ms"
        victim=$(grep -o 'victim=[0-9]*' <<<"$line" | cut -d= -f2)
        unfenced_before=$(grep -cF "The broker has been unfenced" "$d/node$victim/server.log" || true)
        wait "${bpid[$victim]}" 2>/dev/null || true
        bash "$kq" run-node "$d" "$victim" >>"$d/node$victim/server.log" 2>&1 &
        bpid[$victim]=$!
        deadline=$((SECONDS + start_timeout))
        until (($(grep -cF "The broker has been unfenced" "$d/node$victim/server.log") > unfenced_before)); do
            kill -0 "${bpid[$victim]}" 2>/dev/null || fail "broker $victim exited after its restart"
            ((SECONDS < deadline)) || fail "broker $victim was not unfenced again within ${start_timeout}s"
            sleep 0.2
        done
    done
    # The batch needs all three replicas of every partition in sync.
    bash "$kq" java "$d" org.kraftrs.interop.TopicBench isr "$bs" one- "$single_n" >>"$d/topicbench.out" 2>>"$d/topicbench.err" ||
        fail "TopicBench isr (after the failovers) failed: $(tail -n 5 "$d/topicbench.err")"
    if ((topics_n > 0)); then
        local fifo="$d/topicbench.in" tb
        rm -f "$fifo"
        mkfifo "$fifo"
        bash "$kq" java "$d" org.kraftrs.interop.TopicBench batch "$bs" many- "$topics_n" "$partitions_n" "$batch_n" \
            <"$fifo" >"$d/topicbench.out" 2>>"$d/topicbench.err" &
        tb=$!
        exec {tbfd}>"$fifo"
        while ! grep -q '^created' "$d/topicbench.out" 2>/dev/null; do
            kill -0 "$tb" 2>/dev/null || fail "TopicBench batch failed: $(tail -n 5 "$d/topicbench.err")"
            sleep 0.2
        done
        emit "$(grep '^create_batch' "$d/topicbench.out")"
        sleep 3
        local cp heap
        for id in "${controllers[@]}"; do
            cp=$(pid_of "$id")
            heap=
            if [[ $impl == kafka ]]; then
                jcmd "$cp" GC.run >/dev/null 2>&1 || true
                # Serial GC: "def new generation total NK, used NK" and "tenured generation total NK, used NK".
                heap=$(jcmd "$cp" GC.heap_info 2>/dev/null | awk '/generation +total/ {for (i = 1; i <= NF; i++) if ($i == "used") {v = $(i + 1); sub(/K,?/, "", v); u += v}} END {printf " heap_used_after_gc_kb=%d", u}')
            fi
            emit "proc_partitions partitions=$((topics_n * partitions_n + single_n + 5)) name=$id $(proc_fields "$cp")$heap"
        done
        echo go >&"$tbfd"
        exec {tbfd}>&-
        wait "$tb" || fail "TopicBench batch (delete) failed: $(tail -n 5 "$d/topicbench.err")"
        emit "$(grep '^delete_batch' "$d/topicbench.out")"
    fi
    local files=()
    for id in "${brokers[@]}"; do files+=("$d/node$id/pid"); done
    stop_pids "${files[@]}"
    for id in "${brokers[@]}"; do wait "${bpid[$id]}" 2>/dev/null || true; done
    rm -f "${files[@]}"
    "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" --phases none --unregister 4,5,6 \
        >"$d/unregister.out" 2>&1 || fail "unregistering brokers 4-6 failed: $(cat "$d/unregister.out")"
}

# ---------- 100,000 partitions on fake brokers (step 5) ----------
# quorum_field KEY: KEY's value in `describe --status` of the current quorum.
quorum_field() {
    timeout 20 "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" \
        describe --status 2>/dev/null | awk -v k="$1:" '$1 == k {print $2; exit}'
}
# newest_snapshot ID: "OFFSET BYTES" of controller ID's newest snapshot file.
newest_snapshot() {
    local f
    f=$(find "$d/node$1/data/__cluster_metadata-0" -maxdepth 1 -name '*.checkpoint' 2>/dev/null | sort | tail -n 1)
    [[ -n $f ]] || return 0
    f=${f##*/}
    echo "$((10#${f%%-*})) $(stat -c %s "$d/node$1/data/__cluster_metadata-0/$f")"
}
# big_phase IMPL: BB_BIG_BROKERS fake brokers held by broker_load, topics
# created by broker_load on the active controller; snapshots, RSS (heap
# after GC for Java), a follower's restart timed, deletion.
big_phase() {
    use "$1"
    local total=$((big_topics * big_partitions))
    echo "== $impl: $big_topics topics x $big_partitions partitions on $big_brokers fake brokers ($(secs "$started")s)"
    local deadline holdfd
    hold_start hold "$big_brokers" 300
    holdfd=${hold_fd[hold]}
    emit "big_$(grep '^ready' "$d/hold.out")"
    # One topic of one partition a call, straight to the active controller:
    # the controller's own CreateTopics latency, without a Java broker's
    # forwarding and Admin client in front (deleted again at once).
    timeout 120 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --create-topics "direct-:$single_n:1:1" >"$d/directcreate.out" 2>"$d/directcreate.err" ||
        fail "broker_load --create-topics direct-:$single_n:1:1 failed: $(tail -n 5 "$d/directcreate.err")"
    emit "direct_$(grep '^create_batch' "$d/directcreate.out")"
    timeout 120 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --delete-topics "direct-:$single_n:$single_n" >"$d/directdelete.out" 2>"$d/directdelete.err" ||
        fail "broker_load --delete-topics direct-:$single_n failed: $(tail -n 5 "$d/directdelete.err")"
    timeout "$big_timeout" "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --create-topics "big-:$big_topics:$big_partitions:$batch_n" >"$d/bigcreate.out" 2>"$d/bigcreate.err" ||
        fail "broker_load --create-topics ($total partitions) failed: $(tail -n 5 "$d/bigcreate.err")"
    emit "big_$(grep '^create_batch' "$d/bigcreate.out")"
    local hw leader id
    hw=$(quorum_field HighWatermark)
    leader=$(quorum_field LeaderId)
    [[ $hw =~ ^[0-9]+$ && $leader =~ ^[0-9]+$ ]] || fail "describe --status: no leader or high watermark"
    # Every controller's newest snapshot at or past the creation.
    local t0 snap off bytes
    t0=$(now)
    deadline=$((SECONDS + big_timeout))
    for id in "${controllers[@]}"; do
        while :; do
            snap=$(newest_snapshot "$id")
            off=${snap% *}
            [[ -n $snap ]] && ((off >= hw)) && break
            ((SECONDS < deadline)) || fail "controller $id wrote no snapshot at or past offset $hw within ${big_timeout}s (newest: ${snap:-none})"
            sleep 0.2
        done
    done
    local waited role
    waited=$(secs "$t0")
    sleep 2
    local cp heap
    for id in "${controllers[@]}"; do
        cp=$(pid_of "$id")
        role=follower
        [[ $id == "$leader" ]] && role=active
        heap=
        if [[ $impl == kafka ]]; then
            jcmd "$cp" GC.run >/dev/null 2>&1 || true
            heap=$(jcmd "$cp" GC.heap_info 2>/dev/null | awk '/generation +total/ {for (i = 1; i <= NF; i++) if ($i == "used") {v = $(i + 1); sub(/K,?/, "", v); u += v}} END {printf " heap_used_after_gc_kb=%d", u}')
        fi
        emit "big_proc partitions=$total name=$id role=$role $(proc_fields "$cp")$heap"
    done
    for id in "${controllers[@]}"; do
        snap=$(newest_snapshot "$id")
        off=${snap% *}
        bytes=${snap#* }
        role=follower
        [[ $id == "$leader" ]] && role=active
        emit "big_snapshot partitions=$total name=$id role=$role offset=$off bytes=$bytes created_hw=$hw waited_s=$waited snapshot_interval_ms=$snapshot_ms"
    done
    # Load time: a follower stopped (SIGTERM) and started on the same data;
    # polled (no pause) until the leader reports it a caught-up Follower
    # after the spawn.
    local f=
    for id in "${controllers[@]}"; do [[ $id != "$leader" ]] && { f=$id; break; }; done
    snap=$(newest_snapshot "$f")
    t0=$(now)
    stop_pids "$d/node$f/pid"
    kill -0 "$(pid_of "$f")" 2>/dev/null && fail "controller $f did not stop"
    local stop_s spawn_ms polls=0 rep st
    stop_s=$(secs "$t0")
    rm -f "$d/node$f/pid"
    # A Fetch the stopped follower sent last can still complete at the
    # leader (long poll, up to 500 ms) and move its LastCaughtUpTimestamp:
    # that must come before the spawn.
    sleep 1.5
    t0=$(now)
    # (Bash arithmetic: mawk's printf %d stops at 2^31.)
    spawn_ms=$((${t0/./} / 1000))
    if [[ $impl == kraft-rs ]]; then
        KRAFT_LOG=info NO_COLOR=1 "$kraft" server --config "$d/node$f/server.properties" >>"$d/node$f/server.log" 2>&1 {holdfd}>&- &
        echo $! >"$d/node$f/pid"
    else
        bash "$kq" run-node "$d" "$f" >/dev/null 2>&1 {holdfd}>&- &
    fi
    local np=$!
    deadline=$((SECONDS + big_timeout))
    while :; do
        polls=$((polls + 1))
        rep=$(timeout 20 "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" \
            describe --replication 2>/dev/null || true)
        # NodeId DirectoryId LogEndOffset Lag LastFetchTimestamp LastCaughtUpTimestamp Status
        st=$(awk -v id="$f" -v t="$spawn_ms" '$1 == id && $7 == "Follower" && $6 ~ /^[0-9]+$/ && $6 >= t {print "ok"; exit}' <<<"$rep")
        [[ $st == ok ]] && break
        kill -0 "$np" 2>/dev/null || fail "controller $f exited after its restart"
        ((SECONDS < deadline)) || fail "controller $f did not catch up within ${big_timeout}s of its restart"
    done
    local load_s
    load_s=$(secs "$t0")
    pids_of[$impl]=$(for id in "${controllers[@]}"; do printf '%s=%s,' "$id" "$(pid_of "$id")"; done)
    emit "big_load partitions=$total name=$f snapshot_offset=${snap% *} snapshot_bytes=${snap#* } stop_s=$stop_s spawn_to_caught_up_s=$load_s polls=$polls how=SIGTERM+restart,describe_replication_LastCaughtUpTimestamp>=spawn"
    # Reassignment at scale: the partitions of the first topics, up to
    # BB_REASSIGN partitions, moved in one AlterPartitionReassignments call
    # straight to the active controller, listed (ListPartitionReassignments
    # of everything: the fake brokers never fetch, so every move stays in
    # progress) and cancelled in one call; then the active controller's
    # VmRSS. The targets are three more fake brokers (ids 400-402).
    local rtopics=$((reassign_n / big_partitions))
    if ((rtopics > big_topics)); then rtopics=$big_topics; fi
    if ((rtopics > 0)); then
        # Three more fake brokers, the targets: every replica moves.
        hold_start targets 3 400
        timeout "$big_timeout" "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
            --reassign "big-:$rtopics:$big_partitions:400:3" >"$d/reassign.out" 2>"$d/reassign.err" ||
            fail "broker_load --reassign ($((rtopics * big_partitions)) partitions) failed: $(tail -n 5 "$d/reassign.err")"
        emit "big_$(grep '^reassign_batch' "$d/reassign.out")"
        emit "big_reassign_proc partitions=$((rtopics * big_partitions)) name=$leader role=active $(proc_fields "$(pid_of "$leader")")"
        hold_stop targets
    fi
    timeout "$big_timeout" "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --delete-topics "big-:$big_topics:$batch_n" >"$d/bigdelete.out" 2>"$d/bigdelete.err" ||
        fail "broker_load --delete-topics failed: $(tail -n 5 "$d/bigdelete.err")"
    emit "big_$(grep '^delete_batch' "$d/bigdelete.out")"
    hold_stop hold
    emit "big_$(grep '^unregistered' "$d/hold.out")"
}

# hold_start NAME COUNT FIRST_ID: `broker_load --hold COUNT` (ids FIRST_ID
# on) in the background, fed by the fifo $d/NAME.in, whose write end stays
# open in ${hold_fd[NAME]}; returns once every broker is unfenced.
declare -A hold_fd=() hold_pid=()
hold_start() {
    local name=$1 in="$d/$1.in" out="$d/$1.out" fd deadline
    rm -f "$in" "$out"
    mkfifo "$in"
    "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" --hold "$2" --first-id "$3" \
        --interval-ms "$heartbeat_ms" <"$in" >"$out" 2>"$d/$name.err" &
    hold_pid[$name]=$!
    echo "${hold_pid[$name]}" >"$d/$name.pid"
    exec {fd}>"$in"
    hold_fd[$name]=$fd
    deadline=$((SECONDS + 90))
    until grep -q '^ready' "$out" 2>/dev/null; do
        kill -0 "${hold_pid[$name]}" 2>/dev/null || fail "broker_load --hold ($name) failed: $(tail -n 5 "$d/$name.err")"
        ((SECONDS < deadline)) || fail "broker_load --hold ($name): brokers not unfenced within 90s"
        sleep 0.2
    done
}
# hold_stop NAME: released by SIGTERM (its stdin's end of file would do
# too, but every process spawned since holds the write end of the fifo as
# well); its brokers must be unregistered.
hold_stop() {
    local name=$1 lp=${hold_pid[$1]} deadline fd=${hold_fd[$1]}
    exec {fd}>&-
    kill -TERM "$lp" 2>/dev/null || true
    deadline=$((SECONDS + 60))
    while kill -0 "$lp" 2>/dev/null; do
        ((SECONDS < deadline)) || fail "broker_load --hold ($name) did not exit within 60s of SIGTERM"
        sleep 0.2
    done
    wait "$lp" || fail "broker_load --hold ($name) failed: $(tail -n 5 "$d/$name.err")"
    rm -f "$d/$name.pid"
    grep -q '^unregistered count=[0-9]* errors=0 ' "$d/$name.out" ||
        fail "broker_load --hold ($name) did not unregister its brokers: $(tail -n 5 "$d/$name.err")"
}

declare -A cbs_of=() cid_of=() pids_of=()
# use IMPL: make IMPL's quorum the current one (d, impl, cbs, cluster_id).
use() {
    impl=$1
    d="$root/$impl"
    cbs=${cbs_of[$impl]:-}
    cluster_id=${cid_of[$impl]:-}
}
setup_quorum() {
    use "$1"
    echo "== $impl controllers ($(secs "$started")s)"
    if [[ $impl == kraft-rs ]]; then start_kraft_controllers; else start_java_controllers; fi
    cbs_of[$impl]=$cbs
    cid_of[$impl]=$cluster_id
    local id p pids=
    for id in "${controllers[@]}"; do
        p=$(pid_of "$id")
        [[ -n $p ]] && kill -0 "$p" 2>/dev/null || fail "controller $id is not running"
        emit "controller node=$id pid=$p port=$(port "$id") comm=$(cat "/proc/$p/comm")"
        pids+="${pids:+,}$id=$p"
    done
    pids_of[$impl]=$pids
    emit "settings broker.session.timeout.ms=$session_ms broker.heartbeat.interval.ms=$heartbeat_ms metadata.log.max.snapshot.interval.ms=$snapshot_ms release_version=$release_version"
}
fake_brokers() {
    use "$1"
    echo "== $impl: fake brokers, phases $phases ($(secs "$started")s)"
    local lg_out="$d/broker_load.out" line id f timed_out=0
    "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" --phases "$phases" --seconds "$seconds" \
        --warmup-secs "$warmup" --interval-ms "$interval_ms" --first-id 100 --pids "${pids_of[$impl]}" \
        --unregister 4,5,6 >"$lg_out" 2>"$d/broker_load.err" ||
        fail "broker_load failed: $(tail -n 5 "$d/broker_load.err")"
    while IFS= read -r line; do emit "$line"; done <"$lg_out"
    for id in "${controllers[@]}"; do
        f="$d/node$id/server.log"
        timed_out=$((timed_out + $(grep -c "Timed out heartbeat" "$f" 2>/dev/null || true)))
    done
    emit "controller_logs heartbeat_timeouts=$timed_out"
}

echo "bench-brokers.sh: work directory $root"
read -ra order <<<"$impls"
for i in "${order[@]}"; do
    case $i in kraft-rs | kafka) ;; *) fail "unknown implementation $i" ;; esac
done
# Both quorums run from here on; only one is measured at a time, the other
# idles. The rounds of Java brokers alternate between them (ABBA...), so a
# drift of the machine's speed over the run falls on both.
for i in "${order[@]}"; do setup_quorum "$i"; done
sleep 2
step rounds || rounds=0 warmup_rounds=0
for r in $(seq "$((1 - warmup_rounds))" "$rounds"); do
    round_order=("${order[@]}")
    if (((r + warmup_rounds - 1) % 2 == 1)); then
        round_order=()
        for ((k = ${#order[@]} - 1; k >= 0; k--)); do round_order+=("${order[k]}"); done
    fi
    for i in "${round_order[@]}"; do
        use "$i"
        echo "== $impl: three Java brokers, round $r of $rounds ($(secs "$started")s)"
        broker_round "$r"
    done
done
if ((single_n > 0)) && step topics; then
    for i in "${order[@]}"; do topic_phase "$i"; done
fi
if step fake; then
    for i in "${order[@]}"; do fake_brokers "$i"; done
fi
if ((big_topics > 0)) && step big; then
    for i in "${order[@]}"; do big_phase "$i"; done
fi
for i in "${order[@]}"; do
    use "$i"
    stop_dir "$d"
done
wait 2>/dev/null || true
impl=all
emit "run seconds=$(secs "$started")"
if [[ -z ${BB_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
