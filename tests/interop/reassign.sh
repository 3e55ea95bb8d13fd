#!/usr/bin/env bash
# Partition reassignment with unmodified Apache Kafka 4.4.0 brokers and
# tools on a controller quorum: the brokers forward the Admin client's
# AlterPartitionReassignments and ListPartitionReassignments to the active
# controller, which moves the replicas through PartitionChangeRecords.
#
#   reassign.sh KRAFT_BINARY
#
# Three controllers (kraft-rs; Java with RA_CONTROLLERS=java: the same
# checks against the real thing; kraft-rs controller 1 and Java controllers
# 2 and 3 with RA_CONTROLLERS=mixed), all with delete.topic.enable=false, and
# three Java brokers 4-6 (__consumer_offsets of replication factor 2, so
# that it survives the drained broker's removal). Then:
#  1. kafka-topics --create moves (6 partitions, replication factor 2:
#     broker 6 holds some replicas); TopicWorkload's idempotent producer
#     (acks=all) sends keyed records, paced, through everything below.
#  2. Drain broker 6: kafka-reassign-partitions --generate --broker-list 4,5
#     proposes moves without 6; --execute with --throttle starts them
#     ("Successfully started partition reassignments"); broker 4, a target
#     of some moves, is killed -9 at once: --list shows moves still in
#     progress (adding or removing replicas) while it is down; it is
#     restarted and unfenced; --verify until every partition "is
#     completed" and the throttles are cleared; kafka-topics --describe
#     shows no replica on broker 6 and 2 in every ISR.
#  3. Cancel: topic held (one partition on broker 5, 2 MB written with
#     kafka-producer-perf-test) is moved to broker 4 with a 1 byte/s
#     throttle; --list shows it in progress; --cancel ("Successfully
#     cancelled partition reassignment for: held-0") restores replica 5
#     alone; --list finds none.
#  3b. mixed only: the drain of 2. is started under a kraft-rs leader and
#     completes under a Java one (leadership moved while broker 4 is down);
#     the reverse: with broker 4 killed again, held-0 is moved to broker 4
#     under a Java leader, leadership moves to kraft-rs, broker 4 restarts
#     and the move completes there. At the end every controller's snapshots
#     hold the same image (compare_images) and kraft-rs and Java leaders
#     each wrote PartitionChangeRecords.
#  4. Broker 6 stopped and removed: kafka-cluster unregister --id 6; the
#     brokers' list-endpoints no longer shows it.
#  5. The producer finishes (every send acknowledged); a consumer group
#     reads every acknowledged record of moves exactly once.
#  6. delete.topic.enable=false on the controllers: kafka-topics --delete
#     --topic held is refused with Kafka's "Topic deletion is disabled."
#     and held is still listed.
# Exits non-zero on the first failed check (with the tails of the
# workload's and every node's log); every wait is bounded; always stops
# every process.
#
# Environment: RA_CONTROLLERS (kraft | java | mixed), RA_RECORDS (default 12000),
# RA_RATE (records/s while paced, default 150), RA_KEEP=1 keeps the work
# directory after a success.
set -euo pipefail

kraft=${1:?usage: reassign.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "reassign.sh: $kraft is not executable" >&2; exit 2; }
mode=${RA_CONTROLLERS:-kraft}
case $mode in kraft | java | mixed) ;; *) echo "reassign.sh: RA_CONTROLLERS must be kraft, java or mixed" >&2; exit 2 ;; esac
records=${RA_RECORDS:-12000}
keys=60
rate=${RA_RATE:-150}
produce_timeout=120
consume_timeout=90
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-reassign.XXXXXX")
script=reassign.sh
start_timeout=90
controller_props="delete.topic.enable=false"
# mixed: frequent snapshots, for compare_images.
[[ $mode != mixed ]] || controller_props+="
metadata.log.max.snapshot.interval.ms=2000"
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
d="$root/c"
tag=ra
w="$root/workload"
mkdir -p "$w"
summaries=()
export KQ_BROKER_PROPS="auto.create.topics.enable=false
offsets.topic.replication.factor=2
offsets.topic.num.partitions=3
group.initial.rebalance.delay.ms=0"
fail_hook() {
    workload_logs
    return 0
}
cleanup_hook() { stop_pids "$w"/*.pid; }
trap cleanup EXIT

reassign() { tool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$(bs)" "$@" 2>&1; }
topics() { tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" --command-config "$create_config" "$@" 2>&1; }
# replicas_of TOPIC: "PARTITION REPLICAS ISR" per partition (kafka-topics --describe).
replicas_of() {
    topics --describe --topic "$1" |
        sed -n 's/.*Partition: \([0-9]*\).*Replicas: \([0-9,]*\).*Isr: \([0-9,]*\).*/\1 \2 \3/p'
}

case $mode in kraft) label="three kraft-rs" ;; java) label="three Java" ;; mixed) label="kraft-rs 1 and Java 2, 3" ;; esac
echo "== $label controllers (delete.topic.enable=false), three Java brokers: reassignments under a producer"
if [[ $mode == mixed ]]; then
    setup_controllers kraft java java
    effective_session
else
    start_quorum "$mode"
fi
pass "$label controllers ($cbs) lead with three voters"
start_brokers "first start"
pass "Java brokers 4, 5, 6 are unfenced"
cur=$(wait_leader none 30) || fail "no raft leader"
leaders=("$cur")
# mixed: leadership moves by move and lead_by (cluster-lib.sh); lead_by does
# nothing in kraft and java mode.

# ---- 1. the topic and its producer ----
out=$(topics --create --topic moves --partitions 6 --replication-factor 2) ||
    fail "kafka-topics --create moves: $out"
on6=$(replicas_of moves | awk '$2 ~ /(^|,)6(,|$)/' | wc -l)
((on6 > 0)) || fail "no replica of moves on broker 6: $(replicas_of moves | tr '\n' ';')"
start_producer p1 moves
until read -r acked _ <<<"$(last_progress)"; ((acked >= rate * 5)); do
    producer_alive
    sleep 0.5
done

# ---- 2. drain broker 6 under the producer, with a throttle and a broker kill ----
t_drain=$(now)
printf '{"topics":[{"topic":"moves"}],"version":1}\n' >"$w/topics.json"
out=$(reassign --generate --topics-to-move-json-file "$w/topics.json" --broker-list 4,5) ||
    fail "kafka-reassign-partitions --generate: $out"
sed -n '/^Proposed partition reassignment configuration/{n;p}' <<<"$out" >"$w/drain.json"
grep -q '"partitions"' "$w/drain.json" || fail "--generate proposed nothing: $out"
! grep -q '6' <<<"$(grep -o '"replicas":\[[0-9,]*\]' "$w/drain.json")" ||
    fail "--generate kept broker 6: $(cat "$w/drain.json")"
lead_by kraft-rs
out=$(reassign --execute --reassignment-json-file "$w/drain.json" --throttle 50000) ||
    fail "kafka-reassign-partitions --execute: $out"
grep -q "Successfully started partition reassignments for" <<<"$out" || fail "--execute: $out"
kill_node 4 KILL
pass "kafka-reassign-partitions --generate/--execute --throttle 50000 moves every partition of moves off broker 6; broker 4, a target, killed -9"
listed=$(reassign --list)
grep -q "^Current partition reassignments:" <<<"$listed" && grep -qE '^moves-[0-9]+: replicas: .*adding: [0-9]' <<<"$listed" ||
    fail "--list with broker 4 down shows no reassignment in progress: $listed"
pass "--list with broker 4 down: $(grep -c '^moves-' <<<"$listed") partitions still moving ($(grep -m1 '^moves-' <<<"$listed"))"
lead_by Java
restart_broker 4 "restart after the kill mid-reassignment"
deadline=$((SECONDS + 90))
while :; do
    out=$(reassign --verify --reassignment-json-file "$w/drain.json")
    if ! grep -q "still in progress" <<<"$out" && [[ $(grep -c "is completed" <<<"$out") == 6 ]]; then break; fi
    ((SECONDS < deadline)) || fail "the drain did not complete within 90s: $out"
    producer_alive
    sleep 1
done
grep -q "Clearing broker-level throttles" <<<"$out" || fail "--verify did not clear the throttles: $out"
layout=$(replicas_of moves)
[[ $(wc -l <<<"$layout") == 6 ]] || fail "moves has not 6 partitions: $layout"
while read -r p r i; do
    [[ $r != *6* ]] || fail "moves-$p still has a replica on broker 6: $r"
    [[ $(tr ',' '\n' <<<"$i" | wc -l) == 2 ]] || fail "moves-$p's ISR is $i"
done <<<"$layout"
timing "$tag: drain of broker 6 (execute -> verified, a broker kill between)" "$(secs "$t_drain")"
pass "--verify: all 6 partitions completed, throttles cleared; no replica on broker 6, 2 in every ISR"

# ---- 3. a cancelled reassignment ----
out=$(topics --create --topic held --replica-assignment 5) || fail "kafka-topics --create held: $out"
out=$(tool org.apache.kafka.tools.ProducerPerformance --topic held --num-records 2000 --record-size 1000 \
    --throughput -1 --producer-props bootstrap.servers="$(bs)" acks=all 2>&1) ||
    fail "kafka-producer-perf-test on held: $out"
printf '{"version":1,"partitions":[{"topic":"held","partition":0,"replicas":[4],"log_dirs":["any"]}]}\n' >"$w/held.json"
out=$(reassign --execute --reassignment-json-file "$w/held.json" --throttle 1) ||
    fail "kafka-reassign-partitions --execute held: $out"
listed=$(reassign --list)
grep -q '^held-0: replicas: ' <<<"$listed" || fail "--list does not show held-0 moving: $listed"
out=$(reassign --cancel --reassignment-json-file "$w/held.json") || fail "kafka-reassign-partitions --cancel: $out"
grep -q "Successfully cancelled partition reassignment for: held-0" <<<"$out" || fail "--cancel: $out"
deadline=$((SECONDS + 30))
until [[ $(replicas_of held) == "0 5 5" ]]; do
    ((SECONDS < deadline)) || fail "held-0 is not back on broker 5 alone: $(replicas_of held)"
    sleep 1
done
listed=$(reassign --list)
grep -q "No partition reassignments found." <<<"$listed" || fail "--list after the cancel: $listed"
pass "held-0 moved to broker 4 at 1 byte/s: --list shows it; --cancel restores replica 5 alone; --list finds none"

if [[ $mode == mixed ]]; then
    # ---- 3b. the reverse: started under Java, completed under kraft-rs ----
    lead_by Java
    kill_node 4 KILL
    out=$(reassign --execute --reassignment-json-file "$w/held.json") ||
        fail "kafka-reassign-partitions --execute held (Java leader $cur): $out"
    grep -q '^held-0: replicas: ' <<<"$(reassign --list)" || fail "held-0 is not moving with broker 4 down"
    lead_by kraft-rs
    restart_broker 4 "restart with held-0 moving to it"
    deadline=$((SECONDS + 60))
    until [[ $(replicas_of held) == "0 4 4" ]]; do
        ((SECONDS < deadline)) || fail "held-0's move to broker 4 did not complete under kraft-rs leader $cur: $(replicas_of held)"
        sleep 1
    done
    out=$(reassign --verify --reassignment-json-file "$w/held.json")
    grep -q "Reassignment of partition held-0 is completed." <<<"$out" || fail "--verify held: $out"
    pass "held-0's move, started under a Java leader, completed under kraft-rs leader $cur (replicas 4, ISR 4)"
fi

# ---- 4. the drained broker stopped and unregistered ----
kill_node 6 TERM
out=$(tool org.apache.kafka.tools.ClusterTool unregister --bootstrap-server "$(bs)" --id 6 2>&1) ||
    fail "kafka-cluster unregister --id 6: $out"
deadline=$((SECONDS + 30))
while :; do
    endpoints || true
    [[ -n $ep ]] && ! awk '$6 == "broker" {print $1}' <<<"$ep" | grep -qx 6 && break
    ((SECONDS < deadline)) || fail "broker 6 still listed after unregister: $ep"
    sleep 1
done
brokers=(4 5)
pass "broker 6 stopped and unregistered (kafka-cluster unregister); list-endpoints shows brokers $(awk '$6 == "broker" {print $1}' <<<"$ep" | tr '\n' ' ')"

# ---- 5. every acknowledged record, exactly once ----
finish_producer
consume p1 moves reassign-sh

# ---- the controllers' images (mixed) ----
if [[ $mode == mixed ]]; then
    await_restarted
    compare_images
    for who in kraft-rs Java; do
        grep -q "^WRITES $who PARTITION_CHANGE_RECORD [1-9]" <<<"$images_out" ||
            fail "no PartitionChangeRecord written by a $who leader:
$(grep -E '^(TERM|WRITES)' <<<"$images_out")"
    done
    pass "every controller's snapshots hold the same image; kraft-rs and Java leaders each wrote PartitionChangeRecords (leaders ${leaders[*]})"
fi

# ---- 6. delete.topic.enable=false ----
rc=0
out=$(topics --delete --topic held) || rc=$?
grep -q "Topic deletion is disabled." <<<"$out" || fail "kafka-topics --delete with delete.topic.enable=false (status $rc): $out"
grep -qx held <<<"$(topics --list)" || fail "held was deleted"
pass "kafka-topics --delete held refused with Kafka's \"Topic deletion is disabled.\"; held kept"

echo "== reassign.sh ($label): every check passed"
printf '%s\n' "${timings[@]}"
printf '%s\n' "${summaries[@]}"
if [[ -z ${RA_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
