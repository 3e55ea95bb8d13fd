#!/usr/bin/env bash
# Records produced and consumed through failures: unmodified Apache Kafka
# 4.4.0 brokers (the Maven jars, kafka.Kafka with process.roles=broker,
# started by kafka-quorum.sh run-node) on a controller quorum, with Kafka's
# own tools and the plain Kafka 4.4 clients (kafka-clients).
#
#   topics.sh KRAFT_BINARY
#
# Runs the scenarios of TP_SCENARIOS in turn (default "kraft mixed"), each
# on a fresh cluster: three controllers and three Java brokers 4-6
# (auto.create.topics.enable=false, __consumer_offsets with 6 partitions
# and replication factor 3). The controllers:
#   kraft  three kraft-rs controllers (`kraft storage format
#          --initial-controllers` and `kraft server`, as brokers.sh
#          scenario 1 starts them);
#   java   three Java controllers (kafka-quorum.sh start): the same checks
#          against the real thing;
#   mixed  kraft-rs controller 1 and Java controllers 2 and 3, all formatted
#          as initial voters with known directory ids (as brokers.sh
#          scenario 2), with metadata.log.max.snapshot.interval.ms=2000 on
#          every controller (java mode too) so that each writes a snapshot
#          every 2 s.
# Then:
# 1. kafka-topics --create --topic t --partitions 6 --replication-factor 3
#    --config min.insync.replicas=2 (Kafka's TopicCommand through a broker,
#    which forwards CreateTopics to the active controller) prints "Created
#    topic t."; kafka-topics --describe shows 6 partitions, each with 3
#    replicas, a leader and 3 in Isr. Every broker has two log directories
#    (KQ_BROKER_JBOD, KIP-858): each replica is put in one and assigned to
#    it through the active controller (AssignReplicasToDirs). Within 30 s
#    Kafka's DumpLogSegments finds, in the controller's metadata log, every
#    partition of t with each replica in one of its broker's registered
#    directories (meta.properties), replicas in both directories, and no
#    broker's AssignmentsManager logged a failed request.
# 2. org.kraftrs.interop.TopicWorkload produce (kafka-quorum/src/main/java):
#    an idempotent producer (enable.idempotence=true, so InitProducerId and
#    the controller's AllocateProducerIds; acks=all, default retries,
#    delivery.timeout.ms=120000) sends TP_RECORDS keyed records, keys
#    k0..k(TP_KEYS-1), value "KEY:SEQ:...", paced while the failures run,
#    and writes every acknowledged record (partition, offset, key, seq) to a
#    file. Meanwhile:
#    - kill -9 the broker leading partition 0 (kafka-topics --describe);
#      wait until --describe shows it out of partition 0's Isr and not its
#      leader (the controller fences it when its session expires and shrinks
#      the ISRs);
#    - restart it; it is unfenced (its log and ClusterTool); wait until every
#      partition has 3 in Isr again (the leaders' AlterPartition);
#    - kraft and java: kill -9 the raft leader controller (LeaderId of
#      `kraft metadata-quorum describe --status`); a new leader; restart the
#      killed controller, it follows; every partition still has 3 in Isr.
#    - mixed, instead: raft leadership moves between the implementations.
#      Whichever controller leads first (kraft-rs or Java) serves 1., the
#      producer's AllocateProducerIds and the first broker kill -9/restart
#      (fencing, ISR shrink, registration, unfencing, ISR expansion). Then
#      the leader is stopped with SIGTERM (both implementations resign with
#      EndQuorumEpoch) and restarted, until the other implementation leads
#      (at most TP_MAX_MOVES moves in all); the new leader serves a second
#      kill -9/restart of partition 0's leader broker. Then leadership moves
#      back to the first implementation the same way, which serves the rest
#      of 2. and 3. (the brokers' CreateTopics of __consumer_offsets). So
#      kraft-rs leads while topics, producer ids, fencing and ISRs change
#      and a Java controller leads after it, on the state kraft-rs wrote
#      (and, when Java led first, kraft-rs takes over Java's state).
#      After every move the stopped controller restarts and follows, every
#      partition has 3 in Isr and every broker is unfenced.
#    Then the rest of the records are sent unpaced; the producer must finish
#    with every send acknowledged (else the test fails with the count and
#    the errors).
# 3. TopicWorkload consume: a consumer in consumer group topics-sh
#    (auto.offset.reset=earliest, default isolation) reads t from the start
#    to its end offsets (the group coordinator needs __consumer_offsets,
#    which the brokers create with CreateTopics to the controller). Checks:
#    every acknowledged record arrives exactly once, at its partition and
#    offset; offsets increase per partition; each key stays in one
#    partition and its sequence numbers are 0, 1, 2, ... in offset order;
#    nothing arrives that was not acknowledged; the counts are equal; the
#    offsets it commits read back as the end offsets. kafka-topics lists
#    __consumer_offsets with 6 partitions of 3 replicas.
# 3b. Topic administration through a broker, on a second topic "admin":
#    kafka-topics --create (2 partitions, RF 2), --alter --partitions 5 (5
#    partitions with leaders and 2 in Isr, 10 replica logs on the brokers),
#    --alter --partitions 3 refused with Kafka's message; kafka-configs
#    --alter --add-config retention.ms=3600000,cleanup.policy=compact
#    ("Completed updating config for topic admin.", both shown by the
#    brokers' --describe as DYNAMIC_TOPIC_CONFIG), retention.ms=soon refused
#    with Kafka's message, --delete-config retention.ms; kafka-topics
#    --delete: gone from --list, --describe says it does not exist, the
#    brokers remove its replica logs. Then kafka-configs
#    --bootstrap-controller on controller 1: --describe --all
#    --entity-type brokers (node.id from the static configuration,
#    log.retention.hours by default, log.retention.ms null), --alter
#    --entity-type broker-loggers --add-config root=DEBUG read back by
#    --describe, then root=INFO again.
# 3c. Eligible leader replicas (KIP-966; on at metadata.version 4.4-IV2):
#    topics elr (kafka-topics --create --replica-assignment 4:5:6, RF 3)
#    and elr2 (--replica-assignment 4:5, RF 2), both with
#    min.insync.replicas=2; broker 6 stays up. kafka-topics --describe of
#    both through the running brokers must show, as "leader isr elr
#    lastKnownElr" (ISR sorted; the values Kafka 4.4's controller gives,
#    TP_SCENARIOS=java checks the same):
#    - created: elr 4 [4,5,6] [] [], elr2 4 [4,5] [] [];
#    - kill -9 broker 4, fenced when its session expires: elr 5 [5,6] [] []
#      (2 in sync = min.insync.replicas: no ELR), elr2 5 [5] [4] [];
#    - kill -9 broker 5, fenced: elr 6 [6] [5] [], elr2 none [] [4,5] [5]
#      (empty ISR: both in the ELR, no eligible leader alive, the last
#      leader kept as the last known ELR);
#    - broker 4 restarted (an unclean shutdown: its registration takes it
#      out of every ELR), unfenced and caught up: elr any [4,6] [] []
#      (min.insync.replicas reached again: ELR cleared), elr2 none [] [5] [5]
#      (4 is not eligible, so elr2 stays leaderless);
#    - broker 5 restarted: it leaves elr2's ELR, then, unfenced, leads it as
#      the last known leader: elr any [4,5,6] [] [], elr2 any [4,5] [] [];
#      every partition of t has 3 in Isr again.
# 4. mixed and java: the controllers' images. Once every controller has a
#    snapshot at or past the leader's end offset, every snapshot of every
#    controller (the newest TP_MAX_SNAPSHOTS of each) and their metadata
#    log segments are decoded by Kafka's DumpLogSegments
#    --cluster-metadata-decoder in one call. Checks:
#    - the three logs agree record for record (epoch, timestamp, sizes,
#      payload) at every offset two of them hold; the merged log tells,
#      through its LeaderChange records, which leader (and implementation)
#      wrote each record: printed per epoch ("TERM ...") and checked in
#      mixed mode (kraft-rs and Java each wrote PartitionChangeRecords and
#      fenced/unfenced a broker, kraft-rs wrote in an epoch before a Java
#      one that wrote);
#    - every snapshot of controller 1 is paired, for each other controller,
#      with its snapshot nearest in offset such that the log between the two
#      holds only NoOpRecords and LeaderChange records (the same offset when
#      they have one); both hold the same image. The images are compared as
#      multisets of records (payloads with their versions, and the
#      KRaftVersion/KRaftVoters control records; SnapshotHeader/Footer,
#      which carry timestamps, left out), with Kafka's unordered "mapKey"
#      lists (features and endPoints of Register{Broker,Controller}Record,
#      the voters of a VotersRecord) compared as sets: Kafka writes its image
#      in HashMap order. Replicas, ISR, ELR and directories keep their
#      order. A difference fails the test with the differing records of
#      each side, keyed by record type and topic/partition/broker/config;
#    - controller 1's newest snapshot equals the newest of controllers 2 and
#      3 (retried with newer snapshots while records that change the image
#      lie between them, TP_SNAPSHOT_TIMEOUT in all); a summary of that
#      image (topics, partitions, epochs, ELR, brokers, producer ids,
#      features) is printed.
# Exits non-zero on the first failed check (with the tails of the workload's
# and every node's log); every wait is bounded; always stops every process.
# Prints the time of each step, a summary per scenario (acknowledged,
# consumed, per-partition counts, which leader did what) and the timings.
#
# Environment: TP_SCENARIOS (default "kraft mixed"; TP_CONTROLLERS=MODE is
# the same as TP_SCENARIOS=MODE). TP_RECORDS (records to produce per
# scenario, default 20000), TP_KEYS (default 60), TP_PACE (seconds the
# paced phase would need for all records, default 300: the rate while the
# failures run is TP_RECORDS/TP_PACE, at least 50/s), TP_START_TIMEOUT
# (seconds for a broker to be unfenced, default 90), TP_ISR_TIMEOUT (seconds
# for each ISR change and for the topic's first leaders, default 60),
# TP_PRODUCE_TIMEOUT (seconds for the producer to finish once the failures
# are over, default 180), TP_CONSUME_TIMEOUT (seconds for the consumer,
# default 90), TP_MAX_MOVES (mixed: leadership moves at most, default 6),
# TP_SNAPSHOT_TIMEOUT (seconds for step 4's snapshots, default 60),
# TP_MAX_SNAPSHOTS (default 100), TP_KEEP=1 keeps the work directory after a
# success. Each Kafka tool call is bounded by 60 s.
set -euo pipefail

kraft=${1:?usage: topics.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "topics.sh: $kraft is not executable" >&2; exit 2; }
scenarios=${TP_SCENARIOS:-${TP_CONTROLLERS:-kraft mixed}}
for s in $scenarios; do
    case $s in kraft | java | mixed) ;; *) echo "topics.sh: TP_SCENARIOS (or TP_CONTROLLERS) names kraft, java or mixed, not $s" >&2; exit 2 ;; esac
done
records=${TP_RECORDS:-20000}
keys=${TP_KEYS:-60}
pace=${TP_PACE:-300}
start_timeout=${TP_START_TIMEOUT:-90}
isr_timeout=${TP_ISR_TIMEOUT:-60}
produce_timeout=${TP_PRODUCE_TIMEOUT:-180}
consume_timeout=${TP_CONSUME_TIMEOUT:-90}
max_moves=${TP_MAX_MOVES:-6}
snapshot_timeout=${TP_SNAPSHOT_TIMEOUT:-60}
max_snapshots=${TP_MAX_SNAPSHOTS:-100}
for v in records keys pace start_timeout isr_timeout produce_timeout consume_timeout max_moves snapshot_timeout max_snapshots; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "topics.sh: $v must be a positive integer (${!v})" >&2; exit 2; }
done
snapshot_interval_ms=2000
rate=$(awk -v n="$records" -v p="$pace" 'BEGIN {r = n / p; if (r < 50) r = 50; printf "%.1f", r}')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-topics.XXXXXX")
script=topics.sh
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
topic=t
partitions=6
w= # the current scenario's workload files
# workload, bs and create_config: cluster-lib.sh's.
workload_brokers 6
export KQ_BROKER_JBOD=1

fail_hook() {
    local f
    [[ -n $w ]] || return 0
    for f in "$w"/producer.log "$w"/consumer.log; do
        [[ -f $f ]] || continue
        echo "--- ${f##*/}, tail:"
        tail -n 15 "$f" | cut -c1-400
    done
    if [[ -n ${desc:-} ]]; then
        echo "--- last kafka-topics --describe:"
        echo "$desc"
    fi
    if ((${#terms[@]})); then
        echo "--- leaders so far:"
        printf '  %s\n' "${terms[@]}"
    fi
}
cleanup_hook() { [[ -z $w ]] || stop_pids "$w"/*.pid; }
trap cleanup EXIT

topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" "$@"; }
# describe: kafka-topics --describe --topic t into desc (the tool's output)
# and parts ("PARTITION LEADER REPLICAS ISR" a line, ISR empty when none).
desc=
parts=
describe() {
    desc=$(topics --command-config "$fast" --describe --topic "$topic" 2>&1) || { parts=; return 1; }
    parts=$(sed -n 's/.*Partition: \([0-9]*\).*Leader: \([-0-9a-z]*\).*Replicas: \([0-9,]*\).*Isr: \([0-9,]*\).*/\1 \2 \3 \4/p' <<<"$desc")
}
# The conditions on parts.
all_isr_full() {
    [[ $(wc -l <<<"$parts") == "$partitions" ]] &&
        awk -v n="$partitions" '{
            if (!($2 ~ /^[0-9]+$/) || split($3, r, ",") != 3 || split($4, i, ",") != 3) bad = 1
            seen[$1] = 1
        } END { for (p = 0; p < n; p++) if (!(p in seen)) bad = 1; exit bad }' <<<"$parts"
}
# p0_without ID: partition 0 is led by another broker and ID is not in its Isr.
p0_without() {
    awk -v id="$1" '$1 == 0 { found = 1; n = split($4, i, ","); for (k = 1; k <= n; k++) if (i[k] == id) bad = 1
        if ($2 == id || !($2 ~ /^[0-9]+$/)) bad = 1 } END { exit !(found && !bad) }' <<<"$parts"
}
leader_of() { awk -v p="$1" '$1 == p {print $2}' <<<"$parts"; }
isr_summary() { awk '{printf "%s%s: leader %s isr %s", s, $1, $2, $4; s = "; "}' <<<"$parts"; }
# wait_describe COND SECONDS WHAT [ARG]: polls --describe until COND [ARG] holds.
wait_describe() {
    local cond=$1 limit=$2 deadline=$((SECONDS + $2)) what=$3
    shift 3
    while :; do
        if describe && "$cond" "$@"; then return 0; fi
        ((SECONDS < deadline)) || fail "$what: not within ${limit}s; kafka-topics --describe:
$desc"
        producer_alive
        sleep 0.5
    done
}
ppid_=
producer_alive() {
    [[ -n $ppid_ ]] || return 0
    kill -0 "$ppid_" 2>/dev/null && return 0
    local rc=0
    wait "$ppid_" 2>/dev/null || rc=$?
    ppid_=
    rm -f "$w/producer.pid"
    fail "the producer exited (status $rc) before the failures were over: $(grep -E '^(PRODUCED|FIRST_ACK)' "$w/producer.log" | tr '\n' ' ')$( ((rc == 0)) && echo "(it sent all $records records while paced: raise TP_RECORDS or TP_PACE)")"
}
acked_now() { grep -c '' "$w/acked.txt" 2>/dev/null || echo 0; }
progress_line() { grep '^progress' "$w/producer.log" 2>/dev/null | tail -n 1 || true; }
leader_epoch() { quorum --status | awk '/^LeaderEpoch:/ {print $2}'; }

# ---------- who leads, and what they did ----------
# A term: one raft leader, from the script's view (its epoch from describe
# --status); did() notes what the workload made it do. Step 4 reads the
# same from the metadata log.
terms=()
term_leader=
term_epoch=
term_what=()
term_start() {
    term_leader=$(wait_leader none 30) || fail "$tag: no raft leader"
    term_epoch=$(leader_epoch)
    term_what=()
}
did() { term_what+=("$*"); }
term_end() {
    [[ -n $term_leader ]] || return 0
    local what
    what=$(printf '%s; ' "${term_what[@]}")
    terms+=("controller $term_leader ($(impl_of "$term_leader")), epoch ${term_epoch:-?}: ${what%; }")
    term_leader=
}

# ---------- mixed: leadership moves ----------
# cur, restarting, moves, leaders, await_restarted and lead_by:
# cluster-lib.sh's. This move (rather than cluster-lib.sh's) keeps the
# terms and the producer's progress, and does not wait for the brokers.
# move: SIGTERM the leader (after any restarted controller follows: two
# stopped controllers would leave no majority); a new leader.
move() {
    await_restarted
    local l=$cur t0 rc nl
    moves=$((moves + 1))
    ((moves <= max_moves)) || fail "$tag: $max_moves leadership moves (leaders ${leaders[*]}) did not reach the wanted implementation"
    term_end
    t0=$(now)
    kill_node "$l" TERM
    rc=$exit_rc
    if [[ $(impl_of "$l") == kraft-rs ]]; then
        [[ $rc == 0 ]] || fail "$tag: move $moves: kraft-rs controller $l exited with status $rc after SIGTERM (want 0)"
    else
        [[ $rc == 143 || $rc == 0 ]] || fail "$tag: move $moves: Java controller $l exited with status $rc after SIGTERM"
    fi
    nl=$(wait_leader "$l" 60) || fail "$tag: move $moves: no new leader within 60s of stopping leader $l"
    local t_new
    t_new=$(secs "$t0")
    term_start
    [[ $term_leader == "$nl" ]] || nl=$term_leader
    timing "$tag: move $moves: SIGTERM leader $l ($(impl_of "$l")) -> leader $nl ($(impl_of "$nl"))" "$t_new"
    pass "move $moves: SIGTERM leader $l ($(impl_of "$l")): exit status $rc; controller $nl ($(impl_of "$nl")) leads after ${t_new}s (epoch $term_epoch); producer: $(progress_line)"
    cur=$nl
    leaders+=("$nl")
    producer_alive
    restarting=$l
    restart_t0=$(now)
    start_controller "$l"
}
other_impl() { [[ $1 == kraft-rs ]] && echo Java || echo kraft-rs; }

# ---------- the steps ----------
create_topic() {
    local t0 rc=0 out why head_line
    t0=$(now)
    out=$(topics --command-config "$create_config" --create --topic "$topic" --partitions "$partitions" \
        --replication-factor 3 --config min.insync.replicas=2 2>&1) || rc=$?
    t_create=$(secs "$t0")
    if ((rc == 124)); then
        fail "kafka-topics --create did not finish within 60s (the brokers forward CreateTopics to the active controller, leader $(leader_id)): no answer. Its output: $out"
    fi
    if ((rc != 0)); then
        # A broker that forwarded CreateTopics and got UNSUPPORTED_VERSION back
        # logs "controller responded unsupported version exception".
        sleep 1
        why=$(grep -l "controller responded unsupported version exception" "$d"/node[4-6]/server.log 2>/dev/null |
            sed 's|.*/node\([0-9]*\)/server.log|\1|' | tr '\n' ' ' || true)
        [[ -n $why ]] && why=": the active controller (leader $(leader_id)) answered the CreateTopics forwarded by broker(s) ${why% } with UNSUPPORTED_VERSION"
        fail "kafka-topics --create --topic $topic failed (status $rc after ${t_create}s)${why}. Its output:
$(tail -c 3000 <<<"$out")"
    fi
    grep -qx "Created topic $topic." <<<"$out" || fail "kafka-topics --create printed: $out"
    timing "$tag: kafka-topics --create (6 partitions, RF 3)" "$t_create"
    wait_describe all_isr_full "$isr_timeout" "topic $topic with 6 partitions of 3 replicas, each with a leader and 3 in Isr"
    head_line=$(grep -m1 "^Topic: $topic" <<<"$desc" || true)
    [[ $head_line =~ PartitionCount:\ 6 && $head_line =~ ReplicationFactor:\ 3 && $head_line =~ min.insync.replicas=2 ]] ||
        fail "kafka-topics --describe header: $head_line"
    timing "$tag: --create -> --describe shows 6 partitions with 3 in Isr" "$(secs "$t0")"
    pass "kafka-topics --create printed \"Created topic $topic.\" (${t_create}s); --describe: PartitionCount 6, ReplicationFactor 3, min.insync.replicas=2; $(isr_summary)"
    did "created topic $topic"
}

# directories_assigned: the directory each replica of $topic is in, by
# the last PartitionRecord/PartitionChangeRecord naming its directories in
# the current leader's metadata log (a copy decoded by DumpLogSegments),
# checked against the directory ids of the brokers' meta.properties;
# prints the failure, if any.
directories_assigned() {
    local cdir="$w/dirs" f list= id topic_id known=
    topic_id=$(sed -n "s/^Topic: $topic\tTopicId: \([^	]*\).*/\1/p" <<<"$desc" | head -n 1)
    [[ -n $topic_id ]] || { echo "no topic id of $topic in --describe"; return 1; }
    for id in 4 5 6; do
        for f in "$d/node$id"/data/meta.properties "$d/node$id"/data2/meta.properties; do
            known+="$id:$(sed -n 's/^directory.id=//p' "$f") "
        done
    done
    rm -rf "$cdir" && mkdir -p "$cdir"
    for f in "$(metadata_dir "$(leader_id)")"/*.log; do
        cp "$f" "$cdir/" && list+="${list:+,}$cdir/${f##*/}"
    done
    tool org.apache.kafka.tools.DumpLogSegments --cluster-metadata-decoder --files "$list" >"$cdir/dump.txt" 2>&1 ||
        { echo "DumpLogSegments failed: $(tail -n 5 "$cdir/dump.txt")"; return 1; }
    TOPIC_ID=$topic_id KNOWN=$known PARTS=$partitions python3 - "$cdir/dump.txt" <<'PY'
import json, os, sys
topic, parts = os.environ["TOPIC_ID"], int(os.environ["PARTS"])
known = {}
for kv in os.environ["KNOWN"].split():
    b, d = kv.split(":", 1)
    known[d] = int(b)
replicas, dirs = {}, {}
for line in open(sys.argv[1], encoding="utf-8"):
    if " payload: " not in line:
        continue
    try:
        rec = json.loads(line.split(" payload: ", 1)[1])
    except ValueError:
        continue
    data = rec.get("data", {})
    if rec.get("type") not in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD") or data.get("topicId") != topic:
        continue
    p = data["partitionId"]
    if data.get("replicas") is not None:
        replicas[p] = data["replicas"]
    if data.get("directories") is not None:
        dirs[p] = data["directories"]
bad, used = [], set()
for p in range(parts):
    r, ds = replicas.get(p), dirs.get(p)
    if r is None or ds is None or len(r) != len(ds):
        bad.append(f"{p}: replicas {r} directories {ds}")
        continue
    for b, d in zip(r, ds):
        if known.get(d) != b:
            bad.append(f"{p}: broker {b} in {d}, not one of its directories")
        used.add(d)
if bad:
    print("partitions of the topic whose replicas have no directory of their broker: " + "; ".join(bad))
    sys.exit(1)
if len(used) < 4:
    print(f"only {len(used)} distinct directories used by 18 replicas")
    sys.exit(1)
PY
}
# KIP-858 with two log directories per broker (see 1.).
directories_step() {
    local t0 why bad deadline
    t0=$(now)
    deadline=$((SECONDS + 30))
    until why=$(directories_assigned); do
        ((SECONDS < deadline)) || fail "$tag: directory assignment: $why"
        sleep 1
    done
    bad=$(grep -l "assignments failed; global error" "$d"/node[4-6]/server.log 2>/dev/null | tr '\n' ' ' || true)
    [[ -z $bad ]] || fail "$tag: the AssignmentsManager of broker(s) ${bad% } logged failed requests: $(grep -h -m1 "assignments failed; global error" "$d"/node[4-6]/server.log)"
    timing "$tag: every replica of $topic assigned to a directory (DumpLogSegments)" "$(secs "$t0")"
    pass "every replica of $topic is recorded in one of its broker's two log directories (AssignReplicasToDirs, Kafka's DumpLogSegments of the leader's log); no AssignmentsManager failure"
}

start_producer() {
    t_prod=$(now)
    bash "$kq" java "$d" "$workload" produce "$(bs)" "$topic" "$records" "$keys" "$rate" \
        "$w/acked.txt" "$w/finish" >"$w/producer.log" 2>&1 &
    ppid_=$!
    echo "$ppid_" >"$w/producer.pid"
    local deadline=$((SECONDS + 60))
    until grep -q '^FIRST_ACK' "$w/producer.log" 2>/dev/null; do
        producer_alive
        ((SECONDS < deadline)) || fail "the producer has no acknowledged record 60s after its start (InitProducerId needs the controller's AllocateProducerIds)"
        sleep 0.2
    done
    timing "$tag: producer start -> first acknowledged record" "$(secs "$t_prod")"
    pass "idempotent producer running: $(grep -m1 '^FIRST_ACK' "$w/producer.log") (${rate} records/s)"
    did "the producer's producer id block (AllocateProducerIds)"
    sleep 2
}

# bounce: kill -9 the leader of partition 0, wait for the ISR shrink;
# restart it, wait until it is unfenced and every ISR is full again.
bounce() {
    local victim t_kill t_shrunk lines t0 t_expand
    wait_describe all_isr_full 20 "before the kill -9 of partition 0's leader: every partition with 3 in Isr"
    victim=$(leader_of 0)
    [[ $victim =~ ^[4-6]$ ]] || fail "partition 0 has no broker leader: $desc"
    t_kill=$(now)
    kill_node "$victim" KILL
    wait_describe p0_without "$((session_s + isr_timeout))" "after kill -9 of broker $victim: partition 0 led by another broker without $victim in its Isr" "$victim"
    t_shrunk=$(secs "$t_kill")
    timing "$tag: kill -9 broker $victim (leader of partition 0) -> Isr without it" "$t_shrunk"
    pass "kill -9 broker $victim (leader of partition 0): --describe shows partition 0 led by $(leader_of 0) without $victim in its Isr after ${t_shrunk}s ($(isr_summary)); producer: $(progress_line)"

    lines=$(log_lines "$d/node$victim/server.log")
    t0=$(now)
    start_broker "$victim"
    wait_unfenced "$victim" "$lines" "$t0" "$tag: restart of broker $victim"
    wait_describe all_isr_full "$isr_timeout" "after broker $victim's restart: every partition with 3 in Isr"
    t_expand=$(secs "$t0")
    timing "$tag: restart broker $victim -> every partition with 3 in Isr" "$t_expand"
    pass "broker $victim restarted, unfenced, and back in every Isr ${t_expand}s after its start ($(isr_summary)); producer: $(progress_line)"
    did "kill -9 of broker $victim (fenced, ISR shrink), its restart (registration, unfencing, ISR expansion)"
}

# kill_leader: kill -9 the raft leader, a new one; the killed one restarts and follows.
kill_leader() {
    local l nl t_kill t_new t0 t_follow
    l=$(wait_leader none 30) || fail "no raft leader before the controller kill"
    term_end
    t_kill=$(now)
    kill_node "$l" KILL
    nl=$(wait_leader "$l" 60) || fail "no new raft leader within 60s of kill -9 of controller $l"
    t_new=$(secs "$t_kill")
    term_start
    timing "$tag: kill -9 raft leader $l -> new leader $nl" "$t_new"
    pass "kill -9 raft leader controller $l: controller $nl leads after ${t_new}s"
    sleep 3
    producer_alive
    t0=$(now)
    start_controller "$l"
    wait_follower "$l" 90 || fail "restarted controller $l does not follow leader $nl: $(quorum --replication)"
    t_follow=$(secs "$t0")
    timing "$tag: restart controller $l -> caught-up follower" "$t_follow"
    wait_describe all_isr_full 20 "after the controller failover: every partition with 3 in Isr"
    check_brokers "after the controller failover"
    pass "controller $l restarted and follows $nl (${t_follow}s); all brokers unfenced, every partition with 3 in Isr; producer: $(progress_line)"
}

finish_producer() {
    local t_fin deadline rc=0 failed
    producer_alive
    t_fin=$(now)
    touch "$w/finish"
    deadline=$((SECONDS + produce_timeout))
    while kill -0 "$ppid_" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -0 "$ppid_" 2>/dev/null &&
        fail "the producer did not finish within ${produce_timeout}s of the failures' end ($(progress_line))"
    wait "$ppid_" 2>/dev/null || rc=$?
    ppid_=
    rm -f "$w/producer.pid"
    summary=$(grep '^PRODUCED' "$w/producer.log" || true)
    [[ -n $summary ]] || fail "the producer exited (status $rc) without a summary"
    failed=$(sed -n 's/.* failed=\([0-9]*\).*/\1/p' <<<"$summary")
    acked=$(sed -n 's/.* acked=\([0-9]*\).*/\1/p' <<<"$summary")
    ((rc == 0 && failed == 0)) || fail "the producer: $failed of $records sends failed (status $rc): $summary
$(sed -n '/^send errors/,$p' "$w/producer.log")"
    ((acked == records)) || fail "the producer: $acked of $records acknowledged: $summary"
    [[ $(acked_now) == "$acked" ]] || fail "the producer reported $acked acknowledged, its file has $(acked_now)"
    [[ $summary =~ finish_seen_at=([0-9]+) ]] && ((BASH_REMATCH[1] > 0)) ||
        fail "the producer did not see the end of the failures: $summary"
    timing "$tag: failures over -> producer done" "$(secs "$t_fin")"
    timing "$tag: producer start -> done" "$(secs "$t_prod")"
    pass "producer done: all $records sends acknowledged, none failed ($summary)"
}

consume() {
    local t0 rc=0 t_consume out head_line
    t0=$(now)
    timeout "$((consume_timeout + 60))" bash "$kq" java "$d" "$workload" consume "$(bs)" "$topic" topics-sh \
        "$w/acked.txt" "$consume_timeout" >"$w/consumer.log" 2>&1 || rc=$?
    t_consume=$(secs "$t0")
    ((rc != 124)) || fail "the consumer did not finish within $((consume_timeout + 60))s"
    ((rc == 0)) || fail "the consumer's checks failed (status $rc):
$(grep -v '^\[' "$w/consumer.log" | tail -n 40)"
    consumed=$(sed -n 's/^CONSUMED .* consumed=\([0-9]*\).*/\1/p' "$w/consumer.log")
    timing "$tag: consumer group: start -> all read, committed, checked" "$t_consume"
    pass "consumer group topics-sh read $consumed records: $(grep '^CHECKS' "$w/consumer.log" | cut -c8-)"

    out=$(topics --command-config "$fast" --describe --topic __consumer_offsets 2>&1) ||
        fail "kafka-topics --describe --topic __consumer_offsets failed: $out"
    head_line=$(grep -m1 '^Topic: __consumer_offsets' <<<"$out" || true)
    [[ $head_line =~ PartitionCount:\ 6 && $head_line =~ ReplicationFactor:\ 3 ]] ||
        fail "__consumer_offsets: $out"
    pass "the brokers created __consumer_offsets (PartitionCount 6, ReplicationFactor 3) through the controller"
    did "the brokers' CreateTopics of __consumer_offsets (the consumer group)"
}

# ---------- 3b. topic administration through a broker ----------
admin_topic=admin
configs() { tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$(bs)" "$@"; }
# admin_describe: kafka-topics --describe --topic admin into admin_desc.
admin_desc=
admin_describe() { admin_desc=$(topics --command-config "$fast" --describe --topic "$admin_topic" 2>&1); }
# admin_has N RF: admin has N partitions, each with a leader and RF in Isr.
admin_has() {
    admin_describe || return 1
    grep -q "^Topic: $admin_topic.*PartitionCount: $1	*ReplicationFactor: $2" <<<"$admin_desc" || return 1
    sed -n 's/.*Partition: \([0-9]*\).*Leader: \([-0-9a-z]*\).*Replicas: \([0-9,]*\).*Isr: \([0-9,]*\).*/\1 \2 \3 \4/p' <<<"$admin_desc" |
        awk -v n="$1" -v rf="$2" '{ if (!($2 ~ /^[0-9]+$/) || split($3, r, ",") != rf || split($4, i, ",") != rf) bad = 1; seen[$1] = 1 }
            END { for (p = 0; p < n; p++) if (!(p in seen)) bad = 1; exit bad }'
}
# admin_configs: the dynamic configs of topic admin, as kafka-configs
# --describe prints them ("  NAME=VALUE sensitive=... synonyms={...}").
admin_configs() { configs --command-config "$fast" --describe --entity-type topics --entity-name "$admin_topic" 2>&1; }
# until_true SECONDS WHAT CMD...: polls CMD until it succeeds.
until_true() {
    local limit=$1 deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        ((SECONDS < deadline)) || fail "$tag: $what: not within ${limit}s"
        sleep 0.5
    done
}
admin_config_is() { grep -q "^  $1=$2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:$1=$2" <<<"$(admin_configs)"; }
admin_config_gone() { local out; out=$(admin_configs) && grep -q "^Dynamic configs for topic $admin_topic are:" <<<"$out" && ! grep -q "^  $1=" <<<"$out"; }
admin_listed() { topics --command-config "$fast" --list 2>&1 | grep -qx "$admin_topic"; }
admin_unlisted() { local out; out=$(topics --command-config "$fast" --list 2>&1) && grep -qx "$topic" <<<"$out" && ! grep -qx "$admin_topic" <<<"$out"; }
# No broker keeps a live log directory of admin (deleted ones are renamed
# admin-N.ID-delete and removed later).
admin_logs_gone() { ! find "$d"/node[4-6]/data "$d"/node[4-6]/data2 -maxdepth 1 -regex ".*/$admin_topic-[0-9]+" 2>/dev/null | grep -q .; }
admin_logs_present() { (($(find "$d"/node[4-6]/data "$d"/node[4-6]/data2 -maxdepth 1 -regex ".*/$admin_topic-[0-9]+" 2>/dev/null | wc -l) == $1)); }

# administer: Kafka's kafka-topics --create / --alter --partitions /
# --delete and kafka-configs --alter / --describe through a broker on a
# second topic, with the answers a Java controller gives (TP_CONTROLLERS=java
# runs the same checks against Kafka's).
administer() {
    local out rc t0 leader
    leader=$(leader_id)
    t0=$(now)
    out=$(topics --command-config "$create_config" --create --topic "$admin_topic" --partitions 2 --replication-factor 2 2>&1) ||
        fail "kafka-topics --create --topic $admin_topic failed: $out"
    grep -qx "Created topic $admin_topic." <<<"$out" || fail "kafka-topics --create --topic $admin_topic printed: $out"
    until_true "$isr_timeout" "topic $admin_topic with 2 partitions of 2 replicas in Isr" admin_has 2 2
    until_true 30 "the brokers' logs of $admin_topic's 4 replicas" admin_logs_present 4
    until_true 30 "kafka-topics --list shows $admin_topic" admin_listed

    out=$(topics --command-config "$create_config" --alter --topic "$admin_topic" --partitions 5 2>&1) ||
        fail "kafka-topics --alter --topic $admin_topic --partitions 5 failed: $out"
    until_true "$isr_timeout" "kafka-topics --alter --partitions 5: 5 partitions of 2 replicas in Isr" admin_has 5 2
    until_true 30 "the brokers' logs of $admin_topic's 10 replicas" admin_logs_present 10
    pass "kafka-topics --alter --topic $admin_topic --partitions 5: --describe shows 5 partitions, each with a leader and 2 in Isr; 10 replica logs on the brokers"

    rc=0
    out=$(topics --command-config "$create_config" --alter --topic "$admin_topic" --partitions 3 2>&1) || rc=$?
    ((rc != 0)) || fail "kafka-topics --alter --partitions 3 (fewer) succeeded: $out"
    grep -qF "Error while executing topic command : The topic $admin_topic currently has 5 partition(s); 3 would not be an increase." <<<"$out" ||
        fail "kafka-topics --alter --partitions 3 (fewer) printed: $(grep -v '^\s*at ' <<<"$out" | head -n 5)"
    admin_has 5 2 || fail "after the refused --partitions 3: $admin_desc"
    pass "kafka-topics --alter --partitions 3 refused with Kafka's message (\"... currently has 5 partition(s); 3 would not be an increase.\")"

    out=$(configs --command-config "$fast" --alter --entity-type topics --entity-name "$admin_topic" \
        --add-config retention.ms=3600000,cleanup.policy=compact 2>&1) ||
        fail "kafka-configs --alter --add-config failed: $out"
    grep -qx "Completed updating config for topic $admin_topic." <<<"$out" || fail "kafka-configs --alter --add-config printed: $out"
    until_true 30 "kafka-configs --describe shows retention.ms=3600000" admin_config_is retention.ms 3600000
    until_true 30 "kafka-configs --describe shows cleanup.policy=compact" admin_config_is cleanup.policy compact
    pass "kafka-configs --alter --add-config retention.ms=3600000,cleanup.policy=compact: \"Completed updating config for topic $admin_topic.\"; the brokers' --describe shows both as DYNAMIC_TOPIC_CONFIG"

    rc=0
    out=$(configs --command-config "$fast" --alter --entity-type topics --entity-name "$admin_topic" \
        --add-config retention.ms=soon 2>&1) || rc=$?
    ((rc != 0)) || fail "kafka-configs --add-config retention.ms=soon succeeded: $out"
    grep -qF "Invalid value soon for configuration retention.ms: Not a number of type LONG" <<<"$out" ||
        fail "kafka-configs --add-config retention.ms=soon printed: $(grep -v '^\s*at ' <<<"$out" | head -n 5)"
    admin_config_is retention.ms 3600000 || fail "after the refused retention.ms=soon: $(admin_configs)"
    pass "kafka-configs --add-config retention.ms=soon refused with Kafka's message (\"Invalid value soon for configuration retention.ms: Not a number of type LONG\"); retention.ms unchanged"

    out=$(configs --command-config "$fast" --alter --entity-type topics --entity-name "$admin_topic" \
        --delete-config retention.ms 2>&1) || fail "kafka-configs --alter --delete-config failed: $out"
    grep -qx "Completed updating config for topic $admin_topic." <<<"$out" || fail "kafka-configs --alter --delete-config printed: $out"
    until_true 30 "kafka-configs --describe without retention.ms" admin_config_gone retention.ms
    admin_config_is cleanup.policy compact || fail "after --delete-config retention.ms: $(admin_configs)"
    pass "kafka-configs --alter --delete-config retention.ms: gone from --describe, cleanup.policy=compact kept"

    out=$(topics --command-config "$create_config" --delete --topic "$admin_topic" 2>&1) ||
        fail "kafka-topics --delete --topic $admin_topic failed: $out"
    until_true 30 "kafka-topics --list without $admin_topic" admin_unlisted
    rc=0
    out=$(topics --command-config "$fast" --describe --topic "$admin_topic" 2>&1) || rc=$?
    ((rc != 0)) && grep -qF "Error while executing topic command : Topic '$admin_topic' does not exist as expected" <<<"$out" ||
        fail "kafka-topics --describe of the deleted topic (status $rc) printed: $(grep -v '^\s*at ' <<<"$out" | head -n 5)"
    until_true 60 "the brokers delete $admin_topic's replica logs" admin_logs_gone
    timing "$tag: kafka-topics/kafka-configs on topic $admin_topic (create, alter, configs, delete)" "$(secs "$t0")"
    pass "kafka-topics --delete --topic $admin_topic: gone from --list, --describe says it does not exist, every broker removed its replica logs"
    did "served kafka-topics --create/--alter --partitions/--delete and kafka-configs --alter of topic $admin_topic"
    [[ $(leader_id) == "$leader" ]] || echo "note: the raft leader moved from $leader to $(leader_id) during the administration"
}

# ---------- 3b (end). a controller's own configs, through --bootstrap-controller ----------
ctl_configs() { tool org.apache.kafka.tools.ConfigCommand --bootstrap-controller "$cbs" --command-config "$fast" "$@"; }
# controller_configs: kafka-configs describes controller 1's configs and
# changes, then reads back, its root log level (the same lines on Java and
# kraft-rs controllers).
controller_configs() {
    local out t0 line
    t0=$(now)
    out=$(ctl_configs --describe --all --entity-type brokers --entity-name 1 2>&1) ||
        fail "kafka-configs --bootstrap-controller --describe --all --entity-type brokers --entity-name 1 failed: $(grep -v '^\s*at ' <<<"$out" | head -n 5)"
    for line in "All configs for broker 1 are:" \
        "  node.id=1 sensitive=false synonyms={STATIC_BROKER_CONFIG:node.id=1}" \
        "  log.retention.hours=168 sensitive=false synonyms={DEFAULT_CONFIG:log.retention.hours=168}" \
        "  log.retention.ms=null sensitive=false synonyms={}"; do
        grep -qxF "$line" <<<"$out" || fail "kafka-configs --describe --all of controller 1 lacks \"$line\": $(head -n 5 <<<"$out")"
    done
    pass "kafka-configs --bootstrap-controller --describe --all --entity-type brokers --entity-name 1: node.id from the static configuration, log.retention.hours by default, log.retention.ms null"
    out=$(ctl_configs --alter --entity-type broker-loggers --entity-name 1 --add-config root=DEBUG 2>&1) ||
        fail "kafka-configs --alter --entity-type broker-loggers --add-config root=DEBUG failed: $(grep -v '^\s*at ' <<<"$out" | head -n 5)"
    grep -qx "Completed updating config for broker-logger 1." <<<"$out" || fail "kafka-configs --alter of broker-logger 1 printed: $out"
    out=$(ctl_configs --describe --entity-type broker-loggers --entity-name 1 2>&1) ||
        fail "kafka-configs --describe --entity-type broker-loggers failed: $(head -n 5 <<<"$out")"
    grep -qxF "  root=DEBUG sensitive=false synonyms={}" <<<"$out" || fail "after root=DEBUG, broker-logger 1 shows: $(head -n 5 <<<"$out")"
    out=$(ctl_configs --alter --entity-type broker-loggers --entity-name 1 --add-config root=INFO 2>&1) ||
        fail "kafka-configs --alter --add-config root=INFO failed: $(head -n 5 <<<"$out")"
    timing "$tag: kafka-configs --bootstrap-controller on controller 1 (describe, loggers)" "$(secs "$t0")"
    pass "kafka-configs --bootstrap-controller --alter --entity-type broker-loggers --entity-name 1 --add-config root=DEBUG, read back by --describe, then root=INFO again"
    did "served kafka-configs --bootstrap-controller --describe of controller 1 and of its loggers, and changed its root log level"
}

# ---------- 3b (end). api-versions and describe --replication --human-readable ----------
# tool_outputs: Kafka's `kafka-cluster api-versions` (KIP-1220) and
# `kraft cluster api-versions`, pointed at the same controllers and at the
# same brokers, print the same stdout; so do `kafka-metadata-quorum describe
# --replication --human-readable` and kraft's, once the cells that move
# between two runs (LogEndOffset, Lag, "<n> ms ago") are masked.
mask_replication() {
    sed -E 's/[0-9]+ ms ago/N_ms_ago/g' | awk 'NR > 1 {$3 = "N"; $4 = "N"} {$1 = $1; print}'
}
tool_outputs() {
    local t0 flag target kafka_out ours rc counts=
    t0=$(now)
    for flag in --bootstrap-controller --bootstrap-server; do
        if [[ $flag == --bootstrap-controller ]]; then target=$cbs; else target=$(bs); fi
        rc=0
        kafka_out=$(tool org.apache.kafka.tools.ClusterTool api-versions "$flag" "$target" --command-config "$fast" 2>/dev/null) || rc=$?
        ((rc == 0)) || fail "kafka-cluster api-versions $flag exited with $rc: $(head -n 3 <<<"$kafka_out")"
        ours=$("$kraft" cluster api-versions "$flag" "$target" --command-config "$fast" 2>&1) ||
            fail "kraft cluster api-versions $flag failed: $(head -n 3 <<<"$ours")"
        [[ $ours == "$kafka_out" ]] ||
            fail "kraft cluster api-versions $flag differs from Kafka's: $(diff <(echo "$kafka_out") <(echo "$ours") | head -n 20)"
        grep -q -- '-> ($' <<<"$ours" || fail "kafka-cluster api-versions $flag listed no node: $(head -n 3 <<<"$ours")"
        counts+="${counts:+, }$flag: $(grep -c -- '-> ($' <<<"$ours") nodes"
    done
    pass "kraft cluster api-versions prints what kafka-cluster api-versions prints ($counts)"
    kafka_out=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$cbs" --command-config "$fast" describe --replication --human-readable 2>/dev/null) ||
        fail "kafka-metadata-quorum describe --replication --human-readable failed: $(head -n 3 <<<"$kafka_out")"
    ours=$("$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" describe --replication --human-readable 2>&1) ||
        fail "kraft metadata-quorum describe --replication --human-readable failed: $(head -n 3 <<<"$ours")"
    grep -q ' ms ago' <<<"$ours" || fail "kraft describe --replication --human-readable shows no \"ms ago\": $ours"
    [[ $(mask_replication <<<"$ours") == "$(mask_replication <<<"$kafka_out")" ]] ||
        fail "kraft describe --replication --human-readable differs from Kafka's: $(diff <(mask_replication <<<"$kafka_out") <(mask_replication <<<"$ours"))"
    timing "$tag: api-versions and describe --replication --human-readable, Kafka's and kraft's" "$(secs "$t0")"
    pass "kraft metadata-quorum describe --replication --human-readable: the rows, node ids, directory ids and statuses of Kafka's"
}

# ---------- 3c. eligible leader replicas ----------
# Two topics with min.insync.replicas=2 and fixed replicas: elr (RF 3,
# replicas 4,5,6) and elr2 (RF 2, replicas 4,5); broker 6 stays up to answer.
elr_topic=elr
elr2_topic=elr2
# elr_state: kafka-topics --describe of both topics into elr_desc, and
# "TOPIC/PARTITION leader=L isr=I elr=E lastKnownElr=K" a line into elr_got
# (ISR sorted, ELR and last known ELR as Kafka lists them; "-" for none).
elr_desc=
elr_got=
elr_state() {
    elr_desc=$(topics --command-config "$fast" --describe --topic "$elr_topic,$elr2_topic" 2>&1) || { elr_got=; return 1; }
    elr_got=$(awk -F'\t' '
        function sorted(s,   n, a, i, j, t, out) {
            n = split(s, a, ",")
            for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
            for (i = 1; i <= n; i++) out = out (i > 1 ? "," : "") a[i]
            return out
        }
        function v(x) { return x == "" ? "-" : x }
        $1 == "" && $2 ~ /^Topic: / {
            split("", f)
            for (i = 2; i <= NF; i++) {
                k = $i; sub(/:.*/, "", k)
                val = substr($i, length(k) + 2); sub(/^ /, "", val); sub(/ +$/, "", val)
                f[k] = val
            }
            print f["Topic"] "/" f["Partition"] " leader=" v(f["Leader"]) " isr=" v(sorted(f["Isr"])) \
                " elr=" v(f["Elr"]) " lastKnownElr=" v(f["LastKnownElr"])
        }' <<<"$elr_desc" | sort)
}
# elr_is EXPECTED: elr_state equals EXPECTED (lines as elr_got; leader=any
# stands for any broker id).
elr_is() {
    elr_state || return 1
    awk -v want="$1" 'BEGIN { n = split(want, w, "\n") }
        { got[NR] = $0 }
        END {
            if (NR != n) exit 1
            for (i = 1; i <= n; i++) {
                a = w[i]; b = got[i]
                if (a ~ / leader=any /) {
                    if (!match(b, / leader=[0-9]+ /)) exit 1
                    sub(/ leader=[0-9]+ /, " leader=any ", b)
                }
                if (a != b) exit 1
            }
        }' <<<"$elr_got"
}
# elr_wait WHAT SECONDS EXPECTED: polls until elr_is EXPECTED.
elr_wait() {
    local what=$1 limit=$2 deadline=$((SECONDS + $2))
    until elr_is "$3"; do
        ((SECONDS < deadline)) || fail "$tag: $what: kafka-topics --describe did not show Kafka's eligible leader replicas within ${limit}s; want:
$3
got:
${elr_got:-(no partitions)}
kafka-topics --describe:
$elr_desc"
        sleep 0.5
    done
}
elr_show() { tr '\n' ';' <<<"$elr_got" | sed 's/;$//; s/;/; /g'; }
# elr_restart ID: restarts broker ID and waits until its log says it is
# unfenced (no ClusterTool: the ISR checks that follow need it caught up).
elr_restart() {
    local id=$1 lines t0 deadline=$((SECONDS + start_timeout)) rc=0
    lines=$(log_lines "$d/node$id/server.log")
    t0=$(now)
    start_broker "$id"
    until log_since "$d/node$id/server.log" "$lines" "The broker has been unfenced" >/dev/null; do
        if ! kill -0 "${bpid[$id]}" 2>/dev/null; then
            wait "${bpid[$id]}" 2>/dev/null || rc=$?
            fail "$tag: ELR: broker $id exited (status $rc) before it was unfenced"
        fi
        ((SECONDS < deadline)) || fail "$tag: ELR: broker $id was not unfenced within ${start_timeout}s of its restart"
        sleep 0.2
    done
    timing "$tag: ELR: restart broker $id -> unfenced (its log)" "$(secs "$t0" "$(log_time "$(log_since "$d/node$id/server.log" "$lines" "The broker has been unfenced")")")"
}

# elr_step: brokers 4 then 5 killed (-9), each fenced when its session
# expires; then 4 and 5 restarted in turn. At every stage kafka-topics
# --describe through the surviving brokers shows the leader, ISR, Elr and
# LastKnownElr that Kafka 4.4's controller gives (TP_SCENARIOS=java runs the
# same checks on Java controllers).
elr_step() {
    local t0 t_step out head_line a b
    t_step=$(now)
    for a in "$elr_topic:4:5:6" "$elr2_topic:4:5"; do
        b=${a#*:}
        out=$(topics --command-config "$create_config" --create --topic "${a%%:*}" --replica-assignment "$b" \
            --config min.insync.replicas=2 2>&1) || fail "kafka-topics --create --topic ${a%%:*} --replica-assignment $b failed: $out"
        grep -qx "Created topic ${a%%:*}." <<<"$out" || fail "kafka-topics --create --topic ${a%%:*} printed: $out"
    done
    # Created with every replica in sync: the first replica leads.
    elr_wait "topics $elr_topic (replicas 4,5,6) and $elr2_topic (replicas 4,5) created" "$isr_timeout" \
        "$elr_topic/0 leader=4 isr=4,5,6 elr=- lastKnownElr=-
$elr2_topic/0 leader=4 isr=4,5 elr=- lastKnownElr=-"
    for a in "$elr_topic" "$elr2_topic"; do
        head_line=$(grep -m1 "^Topic: $a	" <<<"$elr_desc" || true)
        [[ $head_line =~ min.insync.replicas=2 ]] || fail "kafka-topics --describe header of $a: $head_line"
    done
    pass "kafka-topics --create $elr_topic --replica-assignment 4:5:6 and $elr2_topic --replica-assignment 4:5, min.insync.replicas=2: $(elr_show)"

    # Broker 4 fenced: elr keeps 2 in its ISR (= min.insync.replicas), no
    # ELR; elr2's ISR falls to 1 < 2: 4 leaves the ISR for the ELR.
    t0=$(now)
    kill_node 4 KILL
    elr_wait "kill -9 of broker 4" "$((session_s + isr_timeout))" \
        "$elr_topic/0 leader=5 isr=5,6 elr=- lastKnownElr=-
$elr2_topic/0 leader=5 isr=5 elr=4 lastKnownElr=-"
    timing "$tag: ELR: kill -9 broker 4 -> fenced, ISR/ELR as Kafka's" "$(secs "$t0")"
    pass "kill -9 broker 4, fenced after its session: $(elr_show)"

    # Broker 5 fenced: elr's ISR falls to 1: 5 joins the ELR; elr2's ISR
    # empties: 5 joins the ELR too, no replica may lead, and the last
    # leader is kept as the last known ELR.
    t0=$(now)
    kill_node 5 KILL
    elr_wait "kill -9 of broker 5" "$((session_s + isr_timeout))" \
        "$elr_topic/0 leader=6 isr=6 elr=5 lastKnownElr=-
$elr2_topic/0 leader=none isr=- elr=4,5 lastKnownElr=5"
    timing "$tag: ELR: kill -9 broker 5 -> fenced, ISR/ELR as Kafka's" "$(secs "$t0")"
    pass "kill -9 broker 5, fenced after its session: $(elr_show)"

    # Broker 4 restarts after an unclean shutdown (kill -9): its
    # registration takes it out of every ELR (elr2's ELR keeps 5, still no
    # leader: 4 is not eligible); once caught up it rejoins elr's ISR, which
    # reaches min.insync.replicas again: ELR cleared.
    t0=$(now)
    elr_restart 4
    elr_wait "broker 4 restarted" "$isr_timeout" \
        "$elr_topic/0 leader=any isr=4,6 elr=- lastKnownElr=-
$elr2_topic/0 leader=none isr=- elr=5 lastKnownElr=5"
    timing "$tag: ELR: restart broker 4 -> ISR/ELR as Kafka's" "$(secs "$t0")"
    pass "broker 4 restarted (unclean shutdown): $(elr_show)"

    # Broker 5 restarts uncleanly too: it leaves elr2's ELR, then, unfenced,
    # leads it as the last known leader; both topics' ISRs fill up and
    # every ELR and last known ELR is empty.
    t0=$(now)
    elr_restart 5
    elr_wait "broker 5 restarted" "$isr_timeout" \
        "$elr_topic/0 leader=any isr=4,5,6 elr=- lastKnownElr=-
$elr2_topic/0 leader=any isr=4,5 elr=- lastKnownElr=-"
    timing "$tag: ELR: restart broker 5 -> ISRs full, ELR empty" "$(secs "$t0")"
    pass "broker 5 restarted (unclean shutdown): $(elr_show)"
    wait_describe all_isr_full "$isr_timeout" "after the ELR step: every partition of $topic with 3 in Isr"
    timing "$tag: ELR step (create, 2 kills, 2 restarts)" "$(secs "$t_step")"
    did "fenced brokers 4 and 5 into the ELRs of topics $elr_topic and $elr2_topic, and out of them again"
}

# ---------- 4. the controllers' images ----------
# mixed_writes: in mixed mode, kraft-rs and Java leaders each wrote ISR
# changes, broker registrations and fencing/unfencing, and a Java leader
# wrote after a kraft-rs one (from compare_images' images_out).
mixed_writes() {
    local out=$images_out
    local impl_ t
    for impl_ in kraft-rs Java; do
        for t in PARTITION_CHANGE_RECORD.isr BROKER_REGISTRATION_CHANGE_RECORD REGISTER_BROKER_RECORD; do
            grep -q "^WRITES $impl_ $t [1-9]" <<<"$out" ||
                fail "$tag: the metadata log holds no $t written by a $impl_ leader:
$(grep -E '^(TERM|WRITES)' <<<"$out")"
        done
    done
    # A kraft-rs epoch with ISR changes, then a Java epoch that wrote.
    awk '/^TERM/ && /\(kraft-rs\)/ && /PARTITION_CHANGE_RECORD/ {k = 1} /^TERM/ && /\(Java\)/ && k && /PARTITION_CHANGE_RECORD|TOPIC_RECORD/ {j = 1} END {exit !j}' <<<"$out" ||
        fail "$tag: no Java leader wrote after a kraft-rs leader changed partitions:
$(grep '^TERM' <<<"$out")"
    pass "the metadata log: kraft-rs and Java leaders each wrote ISR changes, broker registrations and fencing/unfencing; a Java leader wrote after a kraft-rs one ($(grep '^WRITES' <<<"$out" | awk '$3 !~ /\./ {n[$2] += $4} END {for (i in n) {printf "%s%s %d records", s, i, n[i]; s = ", "}}') besides NoOps)"
}

# ---------- a scenario ----------
run_scenario() {
    mode=$1
    case $mode in
    kraft) mode_label="three kraft-rs controllers" ;;
    java) mode_label="three Java controllers" ;;
    mixed) mode_label="kraft-rs controller 1, Java controllers 2 and 3" ;;
    esac
    d="$root/$mode"
    tag=$mode
    w="$root/$mode-workload"
    mkdir -p "$w"
    bpid=()
    desc= parts= ppid_= cur= restarting= moves=0 leaders=() terms=() term_leader= images_out= acked= consumed= summary=
    controller_props=
    [[ $mode == kraft ]] || controller_props="metadata.log.max.snapshot.interval.ms=$snapshot_interval_ms"
    local t_scenario first
    t_scenario=$(now)
    echo "== $mode: $mode_label, three Java brokers; $records records, $keys keys, paced at ${rate}/s during the failures"

    # ---------- the cluster ----------
    if [[ $mode == mixed ]]; then
        setup_controllers kraft java java
        effective_session
    else
        start_quorum "$mode"
    fi
    pass "$mode_label ($cbs) lead with three voters, cluster $cluster_id, broker session ${session_s}s"
    start_brokers "$tag: first start"
    check_brokers "after the first start"
    pass "Java brokers 4, 5, 6 registered and are unfenced"
    term_start
    cur=$term_leader
    leaders=("$cur")

    # ---------- 1. and 2. ----------
    create_topic
    directories_step
    start_producer
    bounce
    if [[ $mode == mixed ]]; then
        first=$(impl_of "$cur")
        lead_by "$(other_impl "$first")"
        check_brokers "after the move to controller $cur"
        pass "controller $cur ($(impl_of "$cur")) leads; all brokers unfenced; producer: $(progress_line)"
        # The stopped controller restarts meanwhile; the next move waits
        # until it follows (two stopped controllers would leave no majority).
        bounce # first waits until every partition has 3 in Isr
        lead_by "$first"
        # Again the restarted controller catches up while the producer finishes.
    else
        kill_leader
    fi

    finish_producer
    # ---------- 3. ----------
    consume
    administer
    controller_configs
    elr_step
    if [[ $mode == mixed ]]; then
        await_restarted
        check_brokers "at the end"
        wait_describe all_isr_full 20 "at the end: every partition with 3 in Isr"
    fi
    tool_outputs
    term_end
    # ---------- 4. ----------
    if [[ $mode != kraft ]]; then
        compare_images
        [[ $mode != mixed ]] || mixed_writes
    fi

    local s
    s=$(printf '%s -> ' "${leaders[@]}")
    echo "summary ($mode):"
    echo "  acknowledged $acked, consumed $consumed ($records sent, $keys keys)"
    echo "  producer: $summary; produce requests retried: $(grep -c 'retrying (' "$w/producer.log" || true)"
    grep -E '^(CONSUMED|  partition|keys:)' "$w/consumer.log" | sed 's/^/  /' || true
    echo "  raft leaders: ${s% -> }$( ((moves)) && echo " ($moves moves by SIGTERM)")"
    printf '  leader %s\n' "${terms[@]}"
    if [[ -n $images_out ]]; then
        grep -E '^WRITES' <<<"$images_out" | grep -v ' PARTITION_CHANGE_RECORD\.' |
            awk '{w[$2] = w[$2] (w[$2] ? ", " : "") $3 "x" $4} END {for (i in w) print "  records written by " i " leaders (the log): " w[i]}' || true
    fi
    timing "$tag: the whole scenario" "$(secs "$t_scenario")"
    echo "topics.sh $mode ($mode_label): all checks passed in $(secs "$t_scenario")s"
    stop_scenario "$d"
    wait 2>/dev/null || true
}

echo "topics.sh: scenarios ${scenarios}; work directory $root"
for s in $scenarios; do run_scenario "$s"; done
w=
echo "timings:"
printf '  %s\n' "${timings[@]}"
echo "topics.sh (${scenarios}): all checks passed in $(secs "$started")s"
if [[ -z ${TP_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
