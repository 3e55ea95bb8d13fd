#!/usr/bin/env bash
# The operator's live swap: a running Apache Kafka 4.4.0 cluster (Java
# controllers, Java brokers, a producer) gets kraft-rs controllers in place
# of its Java ones, with the seed features alone (dynamic quorum,
# add-controller, remove-controller), and back. The brokers are never
# restarted; records are produced throughout and checked exactly once at the
# end.
#
#   swap.sh KRAFT_BINARY
#
# Setup: Java controllers 1, 2, 3 formatted as a dynamic quorum (Kafka's
# StorageTool --initial-controllers, kraft.version 1); Java brokers 4, 5, 6
# whose controller.quorum.bootstrap.servers names the addresses of
# controllers 1-3 and of the kraft-rs controllers 7-9 to come (see "Broker
# bootstrap" below); kafka-topics --create --topic t --partitions 6
# --replication-factor 3 --config min.insync.replicas=2; an idempotent,
# acks=all producer (TopicWorkload produce, SW_RATE records/s) on t.
#
# 1. Java -> kraft-rs, while the producer runs:
#    - for N in 7 8 9: `kraft storage format --cluster-id <the cluster's>
#      --no-initial-controllers` (controller.quorum.bootstrap.servers: the
#      running controllers), `kraft server`; wait until `kraft
#      metadata-quorum describe --replication` shows N as an Observer with
#      lag 0 and its directory id, and `kraft cluster list-endpoints
#      --bootstrap-controller` lists its registration; `kraft metadata-quorum --bootstrap-controller ...
#      add-controller --controller-id N` (against the Java 4.4 leader the
#      tool derives N's directory id and endpoint itself: AddRaftVoter v1);
#      it must print N's directory id as in N's meta.properties; wait until N
#      is a Follower (a voter);
#    - for M in the Java followers, then the Java leader: SIGTERM M (exit
#      status 143), `kraft metadata-quorum ... remove-controller
#      --controller-id M --unregister` (the directory id from the voter set:
#      RemoveRaftVoter v0 to a Java leader; then UnregisterController);
#      stopping the Java leader, the last one, hands the leadership to a
#      kraft-rs voter; every broker's log says it now uses that controller;
#    - after every step: each broker process still runs (the same pid
#      since its start), ClusterTool list-endpoints shows each unfenced, the
#      leader's describe --replication lists each broker as an Observer that
#      fetched within the last 5 s (it follows the current leader), and the
#      producer's acknowledged count grew with no failed send;
#    - at the end: the voters are exactly 7, 8, 9 with the directory ids of
#      their meta.properties, ClusterTool list-endpoints
#      --bootstrap-controller lists only controllers 7, 8, 9 (the Java ones
#      were unregistered).
#    The producer then sends the rest unpaced: every record acknowledged,
#    none failed; TopicWorkload consume (consumer group swap-1) reads t and
#    checks every acknowledged record arrives exactly once at its partition
#    and offset, keys' sequences in order, nothing unacknowledged.
# 2. kraft-rs -> Java (SW_REVERSE=1, the default), on the same cluster and
#    brokers: kafka-topics --create --topic t2 (kraft-rs controllers now) and
#    a second producer on t2; Java controllers 1, 2, 3 come back at their
#    original addresses with fresh storage (Kafka's StorageTool format
#    --no-initial-controllers: new directory ids), formatted and started
#    together; each, once a caught-up observer, is added with Kafka's own
#    `kafka-metadata-quorum --command-config <its server.properties>
#    add-controller` (AddRaftVoter v1 to the kraft-rs leader); then the
#    kraft-rs followers and last the kraft-rs leader are stopped (SIGTERM,
#    exit status 0) and removed with Kafka's `remove-controller
#    --controller-id N --controller-directory-id D --unregister`; the same
#    checks after every step; at the end the voters are 1, 2, 3 with their
#    new directory ids and only they are registered; t2 is consumed (group
#    swap-2) with the same exactly-once checks.
#
# Broker bootstrap: a Kafka 4.4 broker learns the voters' endpoints from the
# metadata log while it follows a leader (fetch responses name the new
# leader), but once it has lost the leader it looks for one at the addresses
# of its controller.quorum.bootstrap.servers only (KafkaRaftClient
# maybeSendFetchToAnyBootstrap). Brokers whose list names controllers 1-3
# alone therefore lose the quorum for good when the last Java controller
# stops: they keep connecting to the dead addresses, the kraft-rs leader no
# longer sees them fetch, and their metadata stops. SW_BROKER_BOOTSTRAP=old
# starts them that way to show it (the check after the handover fails);
# the default (all) names the addresses of 1-3 and 7-9, and the Java
# controllers of the reverse swap come back at the addresses of 1-3.
#
# Secured (SW_SECURITY=sasl_ssl; default plaintext): the same swap, both
# ways, behind a SASL_SSL controller listener, with docs/operations.md's
# "Securing the quorum" blocks run word for word (cluster-lib.sh's
# security_init and doc_run; secure.sh's SASL_SSL settings): certs.sh makes
# a CA and PKCS12 key stores for controllers 1-3 and 7-9; every controller,
# Java or kraft-rs, old or new, gets the block sasl-ssl-controller with its
# own key store (PLAIN as user controller among the controllers); Java
# controllers 1-3 are formatted with the block sasl-ssl-format (Kafka's
# kafka-storage.sh format, --add-scram of user broker's SCRAM-SHA-512
# credentials); the brokers log in to the controllers with SCRAM-SHA-512
# (sasl-ssl-broker) while their own listener, the producer's and the
# consumer's stay PLAINTEXT; every kraft and Kafka tool call to the
# controllers takes --command-config with the block sasl-ssl-client
# (admin.properties); the doc's `kraft metadata-quorum ... describe
# --status` (sasl-ssl-describe) must show a leader after the setup; after
# the swap to kraft-rs a kraft CLI without security settings must be
# refused by controllers 7-9; swapping back, Kafka's add-controller gets
# the new controller's server.properties and admin.properties in one file
# (sasl-ssl-add-controller). Every other check is the plaintext one.
#
# Exits non-zero on the first failed check (with the tails of the
# workload's and every node's log); every wait is bounded; always stops
# every process. Prints each step's time and a summary (timings, producer
# summaries, max acknowledgement latency during the swaps).
#
# Environment: SW_SECURITY (plaintext or sasl_ssl, see above), SW_RECORDS
# (records per producer, default 5000), SW_KEYS
# (60), SW_RATE (records/s while a swap runs, default 20; the producer must
# not run out before the swap ends), SW_REVERSE (1: also swap back to Java;
# 0: only scenario 1), SW_BROKER_BOOTSTRAP (all or old, see above),
# SW_START_TIMEOUT (seconds for a broker to be unfenced, default 90),
# SW_JOIN_TIMEOUT (seconds for a new controller to start and catch up as an
# observer, default 90), SW_VOTER_TIMEOUT (seconds until an added
# controller is a voter / a removed one is gone, default 30),
# SW_FOLLOW_TIMEOUT (seconds for the brokers to follow a new leader and for
# the producer to be acknowledged again after a step, default 30),
# SW_PRODUCE_TIMEOUT (seconds for the producer to finish, default 120),
# SW_CONSUME_TIMEOUT (seconds for the consumer, default 90), SW_KEEP=1 keeps
# the work directory after a success. Each Kafka tool call is bounded by
# 60 s, each kraft CLI call by 60 s.
set -euo pipefail

kraft=${1:?usage: swap.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "swap.sh: $kraft is not executable" >&2; exit 2; }
records=${SW_RECORDS:-5000}
keys=${SW_KEYS:-60}
rate=${SW_RATE:-20}
start_timeout=${SW_START_TIMEOUT:-90}
join_timeout=${SW_JOIN_TIMEOUT:-90}
voter_timeout=${SW_VOTER_TIMEOUT:-30}
follow_timeout=${SW_FOLLOW_TIMEOUT:-30}
produce_timeout=${SW_PRODUCE_TIMEOUT:-120}
consume_timeout=${SW_CONSUME_TIMEOUT:-90}
for v in records keys rate start_timeout join_timeout voter_timeout follow_timeout produce_timeout consume_timeout; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "swap.sh: $v must be a positive integer (${!v})" >&2; exit 2; }
done
reverse=${SW_REVERSE:-1}
[[ $reverse == 0 || $reverse == 1 ]] || { echo "swap.sh: SW_REVERSE must be 0 or 1" >&2; exit 2; }
broker_bootstrap=${SW_BROKER_BOOTSTRAP:-all}
[[ $broker_bootstrap == all || $broker_bootstrap == old ]] ||
    { echo "swap.sh: SW_BROKER_BOOTSTRAP must be all or old" >&2; exit 2; }
sw_security=${SW_SECURITY:-plaintext}
[[ $sw_security == plaintext || $sw_security == sasl_ssl ]] ||
    { echo "swap.sh: SW_SECURITY must be plaintext or sasl_ssl" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-swap.XXXXXX")
script=swap.sh
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
partitions=6
java_ids=(1 2 3)
kraft_ids=(7 8 9)
d="$root/c"
tag=sw
w="$root/workload"
mkdir -p "$w"
# workload, bs and create_config: cluster-lib.sh's.
workload_brokers "$partitions"

snap= # the last describe --replication
desc= # the last kafka-topics --describe
fail_hook() {
    workload_logs
    [[ -n $snap ]] && { echo "--- last describe --replication:"; echo "$snap"; }
    [[ -n $desc ]] && { echo "--- last kafka-topics --describe:"; echo "$desc"; }
    return 0
}
cleanup_hook() { stop_pids "$w"/*.pid; }
trap cleanup EXIT
# sasl_ssl: the certificates, every controller's and broker's keys, ctl_cfg
# (cluster-lib.sh, docs/operations.md's blocks).
security_init "$sw_security" "${java_ids[@]}" "${kraft_ids[@]}"
# add-controller / remove-controller wait for a commit: more than ctl_cfg.
admin_cfg="$root/admin.properties"
client_security "$admin_cfg"
printf 'default.api.timeout.ms=40000\nrequest.timeout.ms=15000\n' >>"$admin_cfg"
# The doc's blocks this script runs later, checked now.
if [[ $sw_security == sasl_ssl ]]; then
    doc_fill sasl-ssl-describe ctl-1:9093 x admin.properties x
    doc_fill sasl-ssl-add-controller controller1-client.properties x controller1.properties x admin.properties x \
        new-7:9093,new-8:9093,new-9:9093 x
fi

# ---------- helpers ----------
# setup_controllers formats "${controllers[@]}" (1 2 3); afterwards every
# controller that may run: quorum() and cbs_now() bootstrap from the live ones.
controllers=("${java_ids[@]}")
cbs_now() { alive_bs "${controllers[@]}"; }
kraft_cli() { timeout 60 "$kraft" "$@"; }
# describe --replication into snap; its rows: ID DIR LEO LAG LAST_FETCH LAST_CAUGHT_UP STATUS.
refresh() { snap=$(quorum --replication); }
row() { awk -v id="$1" '$1 == id' <<<"$snap"; }
snap_leader() { awk '$7 == "Leader" {print $1}' <<<"$snap"; }
# "ID:DIR ..." of the voters, sorted by id.
snap_voters() { awk '$7 == "Leader" || $7 == "Follower" {print $1 ":" $2}' <<<"$snap" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
snap_voter_ids() { awk '$7 == "Leader" || $7 == "Follower" {print $1}' <<<"$snap" | sort -n | tr '\n' ' ' | sed 's/ $//'; }
dir_id() { sed -n 's/^directory.id=//p' "$d/node$1/data/meta.properties"; }
now_ms() { printf '%.0f' "$(awk -v t="$EPOCHREALTIME" 'BEGIN {printf "%.3f", t * 1000}')"; }
# brokers_follow: every broker is an Observer in the leader's table that
# fetched within the last 5 s (the snapshot's own clock: this host).
brokers_follow() {
    local id r t n
    n=$(now_ms)
    for id in "${brokers[@]}"; do
        r=$(row "$id")
        [[ $r == *Observer* ]] || return 1
        t=$(awk '{print $5}' <<<"$r")
        [[ $t =~ ^[0-9]+$ ]] && ((n - t < 5000)) || return 1
    done
}
broker_rows() {
    local id out=
    for id in "${brokers[@]}"; do out+="${out:+; }$(row "$id" | awk '{print $1 " " $7 " lag " $4}')"; done
    echo "${out:-none}"
}
# The controllers' registrations, ids sorted: kraft cluster list-endpoints
# --bootstrap-controller (quick, for the waits) and Kafka's ClusterTool.
kraft_registered() {
    kraft_cli cluster --bootstrap-controller "$(cbs_now)" --command-config "$ctl_cfg" list-endpoints 2>/dev/null |
        awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $1}' | sort -n | tr '\n' ' ' | sed 's/ $//' || true
}
# The controllers' registrations (ClusterTool list-endpoints --bootstrap-controller), ids sorted.
registered_controllers() {
    tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-controller "$(cbs_now)" --command-config "$ctl_cfg" 2>/dev/null |
        awk 'NR > 1 && $1 ~ /^[0-9]+$/ {print $1}' | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# The producers and consumers: cluster-lib.sh's start_producer,
# finish_producer and consume (records, keys, rate, w, produce_timeout,
# consume_timeout, summaries, pname, ppid_ are this script's).

# ---------- checks between steps ----------
# check_step WHAT: the brokers run (same pids), are unfenced and follow the
# leader; the producer got new acknowledgements after the step, none failed.
check_step() {
    local what=$1 a0 f0 a f deadline t0
    t0=$(now)
    read -r a0 f0 <<<"$(last_progress)"
    deadline=$((SECONDS + follow_timeout))
    until refresh && brokers_follow; do
        ((SECONDS < deadline)) || fail "$what: the brokers do not follow leader $(snap_leader) within ${follow_timeout}s (its table: $(broker_rows)); their last raft lines:
$(for b in "${brokers[@]}"; do grep -E 'RaftManager|KRaft controller' "$d/node$b/server.log" | tail -n 2 | cut -c1-300; done)"
        producer_alive
        sleep 0.5
    done
    check_brokers "$what"
    for b in "${brokers[@]}"; do
        [[ $(pid_of "$b") == "${first_pid[$b]}" ]] || fail "$what: broker $b's pid is $(pid_of "$b"), not ${first_pid[$b]} as at its start"
    done
    while read -r a f <<<"$(last_progress)"; ((a <= a0)); do
        producer_alive
        ((SECONDS < deadline)) || fail "$what: the producer got no acknowledgement within ${follow_timeout}s ($(progress_line))"
        sleep 0.5
    done
    ((f == 0)) || fail "$what: the producer reports $f failed sends ($(progress_line))"
    pass "$what: brokers ${brokers[*]} run (pids unchanged), unfenced, follow leader $(snap_leader) ($(broker_rows)); producer acknowledged $a0 -> $a, none failed"
}

# ---------- steps ----------
# join_kraft N: format and start kraft-rs controller N as an observer; add it.
join_kraft() {
    local id=$1 t0 t1 out deadline
    cbs=$(cbs_now) # the running controllers: N's bootstrap servers
    write_kraft_config "$id"
    t0=$(now)
    "$kraft" storage format --config "$d/node$id/server.properties" --cluster-id "$cluster_id" \
        --no-initial-controllers >"$d/node$id/format.log" 2>&1 ||
        fail "kraft storage format of controller $id: $(cat "$d/node$id/format.log")"
    start_controller "$id"
    deadline=$((SECONDS + join_timeout))
    until refresh; [[ $(row "$id" | awk '{print $7 " " $4}') == "Observer 0" ]]; do
        alive "$id" || fail "kraft-rs controller $id exited before it caught up"
        ((SECONDS < deadline)) || fail "kraft-rs controller $id is not a caught-up observer within ${join_timeout}s: $(row "$id")"
        producer_alive
        sleep 0.5
    done
    [[ $(row "$id" | awk '{print $2}') == "$(dir_id "$id")" ]] ||
        fail "observer $id's directory id $(row "$id" | awk '{print $2}') is not the one in its meta.properties ($(dir_id "$id"))"
    # add-controller --controller-id takes the endpoint from the registration.
    until [[ " $(kraft_registered) " == *" $id "* ]]; do
        ((SECONDS < deadline)) || fail "kraft-rs controller $id is not registered within ${join_timeout}s (kraft cluster list-endpoints --bootstrap-controller: $(kraft_registered))"
        sleep 0.5
    done
    timing "$tag: kraft-rs $id format + start -> caught-up observer, registered" "$(secs "$t0")"
    t1=$(now)
    out=$(kraft_cli metadata-quorum --bootstrap-controller "$(cbs_now)" --command-config "$admin_cfg" \
        add-controller --controller-id "$id" 2>&1) || fail "kraft metadata-quorum add-controller --controller-id $id failed: $out"
    [[ $out == *"Added controller $id with directory id $(dir_id "$id") and endpoints: CONTROLLER://127.0.0.1:$(port "$id")"* ]] ||
        fail "add-controller --controller-id $id printed: $out"
    deadline=$((SECONDS + voter_timeout))
    until refresh; [[ $(row "$id" | awk '{print $7}') =~ ^(Follower|Leader)$ ]]; do
        ((SECONDS < deadline)) || fail "controller $id is not a voter ${voter_timeout}s after add-controller: $(row "$id")"
        sleep 0.5
    done
    timing "$tag: add-controller --controller-id $id -> voter" "$(secs "$t1")"
    pass "kraft-rs controller $id caught up as an observer and was added: \"$out\"; voters now $(snap_voter_ids) (leader $(snap_leader))"
    check_step "after adding kraft-rs controller $id"
}
# stop_controller ID: SIGTERM, the expected exit status; a new leader when it led.
stop_controller() {
    local id=$1 was_leader=0 t0 nl counts=() b i want
    refresh
    [[ $(snap_leader) == "$id" ]] && was_leader=1
    for b in "${brokers[@]}"; do counts+=("$(log_lines "$d/node$b/server.log")"); done
    t0=$(now)
    kill_node "$id" TERM
    want=143
    [[ $(impl_of "$id") == kraft-rs ]] && want=0
    [[ $exit_rc == "$want" ]] || fail "$(impl_of "$id") controller $id exited with status $exit_rc after SIGTERM (want $want)"
    timing "$tag: SIGTERM $(impl_of "$id") controller $id -> exit ($exit_rc)" "$(secs "$t0" "$exit_at")"
    ((was_leader)) || return 0
    nl=$(wait_leader "$id" 60) || fail "no new leader within 60s of stopping leader $id"
    timing "$tag: SIGTERM leader $id -> new leader $nl ($(impl_of "$nl"))" "$(secs "$t0")"
    local deadline=$((SECONDS + follow_timeout))
    i=0
    for b in "${brokers[@]}"; do
        until log_since "$d/node$b/server.log" "${counts[$i]}" "Recorded new KRaft controller, from now on will use node .*\\(id: $nl " >/dev/null; do
            ((SECONDS < deadline)) || { refresh; fail "broker $b's log does not say it uses the new leader $nl within ${follow_timeout}s of its election (leader $(snap_leader)'s table: $(broker_rows); brokers' controller.quorum.bootstrap.servers: $(sed -n 's/^controller.quorum.bootstrap.servers=//p' "$d/node$b/server.properties"), of which $(alive_bs "${controllers[@]}" | tr ',' '\n' | grep -cxFf <(sed -n 's/^controller.quorum.bootstrap.servers=//p' "$d/node$b/server.properties" | tr ',' '\n') || true) run: a broker that lost the leader looks for one there only); its last raft lines:
$(grep -E 'RaftManager|KRaft controller' "$d/node$b/server.log" | tail -n 4 | cut -c1-300)"; }
            sleep 0.3
        done
        i=$((i + 1))
    done
    timing "$tag: SIGTERM leader $id -> every broker logs it uses $nl" "$(secs "$t0")"
    pass "leader $id stopped (status $exit_rc); $(impl_of "$nl") controller $nl leads; every broker logs it now uses controller $nl ($(secs "$t0")s after the SIGTERM)"
}
# remove_with_kraft ID: kraft's remove-controller --unregister of a stopped controller.
remove_with_kraft() {
    local id=$1 t0 out deadline dir
    dir=$(dir_id "$id")
    t0=$(now)
    out=$(kraft_cli metadata-quorum --bootstrap-controller "$(cbs_now)" --command-config "$admin_cfg" \
        remove-controller --controller-id "$id" --unregister 2>&1) || fail "kraft metadata-quorum remove-controller --controller-id $id --unregister failed: $out"
    [[ $out == *"Removed KRaft controller $id with directory id $dir"* && $out == *"Unregistered KRaft controller $id"* ]] ||
        fail "remove-controller --controller-id $id --unregister printed: $out"
    removed_check "$id" "$t0" "$out"
}
# remove_with_kafka ID: Kafka's remove-controller --controller-directory-id --unregister.
remove_with_kafka() {
    local id=$1 t0 out dir
    dir=$(dir_id "$id")
    t0=$(now)
    out=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$(cbs_now)" --command-config "$admin_cfg" \
        remove-controller --controller-id "$id" --controller-directory-id "$dir" --unregister 2>&1) ||
        fail "Kafka's kafka-metadata-quorum remove-controller --controller-id $id --controller-directory-id $dir --unregister failed: $out"
    [[ $out == *"Removed KRaft controller $id"* ]] || fail "Kafka's remove-controller --controller-id $id printed: $out"
    removed_check "$id" "$t0" "$out"
}
removed_check() {
    local id=$1 t0=$2 out=$3 deadline regs
    deadline=$((SECONDS + voter_timeout))
    until refresh; [[ -n $(snap_leader) && " $(snap_voter_ids) " != *" $id "* ]]; do
        ((SECONDS < deadline)) || fail "controller $id is still a voter ${voter_timeout}s after remove-controller: $snap"
        sleep 0.5
    done
    until regs=$(kraft_registered); [[ -n $regs && " $regs " != *" $id "* ]]; do
        ((SECONDS < deadline)) || fail "controller $id is still registered ${voter_timeout}s after remove-controller --unregister (registered: ${regs:-?})"
        sleep 0.5
    done
    timing "$tag: remove-controller $id --unregister -> not a voter, not registered" "$(secs "$t0")"
    pass "controller $id removed and unregistered: \"$(tr '\n' ' ' <<<"$out" | sed 's/ $//')\"; voters $(snap_voter_ids), registered controllers $regs"
}
# final_voters IDS...: exactly these voters, with the directory ids of their meta.properties, and registered.
final_voters() {
    local want= id regs
    for id in "$@"; do want+="${want:+ }$id:$(dir_id "$id")"; done
    refresh
    [[ $(snap_voters) == "$want" ]] || fail "the voters are $(snap_voters), want $want"
    regs=$(registered_controllers)
    [[ $regs == "$*" ]] || fail "the registered controllers are ${regs:-?}, want $*"
}

# ---------- the cluster ----------
summaries=()
declare -A first_pid=()
echo "swap.sh: controller listener $sw_security, $records records per producer at ${rate}/s during the swaps, brokers' bootstrap servers: $broker_bootstrap, reverse swap: $reverse; work directory $root"
t_setup=$(now)
setup_controllers java java java
effective_session
controllers=("${java_ids[@]}" "${kraft_ids[@]}")
cbs=$(alive_bs "${java_ids[@]}")
if [[ $broker_bootstrap == all ]]; then
    for id in "${kraft_ids[@]}"; do cbs+=",127.0.0.1:$(port "$id")"; done
fi
start_brokers "sw: first start"
for b in "${brokers[@]}"; do first_pid[$b]=$(pid_of "$b"); done
check_brokers "after the first start"
pass "Java controllers 1, 2, 3 (dynamic quorum) and Java brokers 4, 5, 6 (pids ${bpid[*]}, controller.quorum.bootstrap.servers=$cbs) unfenced"
if [[ $sw_security == sasl_ssl ]]; then
    # The brokers' controller connections log in with SCRAM-SHA-512 (their
    # credentials from the format); docs/operations.md's tool call.
    rc=0
    out=$(doc_run sasl-ssl-describe ctl-1:9093 "$(cbs_now)" admin.properties "$admin_cfg" 2>&1) || rc=$?
    [[ $rc == 0 ]] && grep -qE '^LeaderId: +[0-9]' <<<"$out" ||
        fail "docs/operations.md's kraft metadata-quorum --command-config admin.properties describe --status (status $rc): $out"
    pass "SASL_SSL controller listener (docs/operations.md's blocks): brokers log in with SCRAM-SHA-512; the doc's kraft metadata-quorum --command-config admin.properties describe --status: $(grep -E '^(LeaderId|LeaderEpoch):' <<<"$out" | tr -s ' ' | paste -sd ' ')"
fi

t0=$(now)
out=$(tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" --command-config "$create_config" --create \
    --topic t --partitions "$partitions" --replication-factor 3 --config min.insync.replicas=2 2>&1) ||
    fail "kafka-topics --create --topic t failed: $out"
grep -qx "Created topic t." <<<"$out" || fail "kafka-topics --create printed: $out"
# all_isr_full TOPIC: kafka-topics --describe shows every partition with a leader and 3 in Isr.
all_isr_full() {
    desc=$(tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" --command-config "$fast" --describe --topic "$1" 2>&1) || return 1
    [[ $(grep -c 'Partition: .*Leader: [0-9].*Isr: [0-9]*,[0-9]*,[0-9]*' <<<"$desc") == "$partitions" ]]
}
wait_isr() {
    local deadline=$((SECONDS + 60))
    until all_isr_full "$1"; do
        ((SECONDS < deadline)) || fail "topic $1: not every partition has a leader and 3 in Isr within 60s"
        sleep 0.5
    done
}
wait_isr t
timing "$tag: kafka-topics --create t -> 6 partitions with 3 in Isr" "$(secs "$t0")"
timing "$tag: setup (controllers, brokers, topic)" "$(secs "$t_setup")"
pass "topic t: 6 partitions, replication factor 3, min.insync.replicas=2, every Isr full"

# ===================== 1. Java -> kraft-rs =====================
echo "== 1. Java controllers 1, 2, 3 -> kraft-rs controllers 7, 8, 9 while producing"
tag=1
start_producer p1 t
t_swap=$(now)
for id in "${kraft_ids[@]}"; do join_kraft "$id"; done
refresh
l=$(snap_leader)
order=()
for id in "${java_ids[@]}"; do [[ $id != "$l" ]] && order+=("$id"); done
[[ " ${java_ids[*]} " == *" $l "* ]] && order+=("$l")
echo "   removing the Java controllers in the order ${order[*]} (leader $l last)"
for id in "${order[@]}"; do
    stop_controller "$id"
    remove_with_kraft "$id"
    check_step "after stopping and removing Java controller $id"
done
final_voters "${kraft_ids[@]}"
if [[ $sw_security == sasl_ssl ]]; then
    # The kraft-rs controllers' listener is the secured one: a client
    # without the security settings is refused, and told why.
    rc=0
    out=$(timeout 30 "$kraft" metadata-quorum --bootstrap-controller "$(cbs_now)" --command-config "$fast" describe --status 2>&1) || rc=$?
    [[ $rc != 0 && $rc != 124 && -n $out ]] ||
        fail "kraft metadata-quorum without security settings against the kraft-rs controllers: status $rc (want a refusal within 30 s): $out"
    pass "a client without security settings is refused by kraft-rs controllers $(cbs_now) (status $rc: $(head -n 1 <<<"$out" | cut -c1-160))"
fi
timing "1: swap Java -> kraft-rs (first add to last removal checked)" "$(secs "$t_swap")"
pass "only kraft-rs controllers vote: $(snap_voters) (leader $(snap_leader)); registered controllers: $(registered_controllers)"
finish_producer
wait_isr t
consume p1 t swap-1

# ===================== 2. kraft-rs -> Java =====================
if ((reverse)); then
    echo "== 2. kraft-rs controllers 7, 8, 9 -> fresh Java controllers 1, 2, 3 while producing"
    tag=2
    t0=$(now)
    out=$(tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$(bs)" --command-config "$create_config" --create \
        --topic t2 --partitions "$partitions" --replication-factor 3 --config min.insync.replicas=2 2>&1) ||
        fail "kafka-topics --create --topic t2 failed: $out"
    grep -qx "Created topic t2." <<<"$out" || fail "kafka-topics --create printed: $out"
    wait_isr t2
    timing "2: kafka-topics --create t2 (kraft-rs controllers) -> every Isr full" "$(secs "$t0")"
    start_producer p2 t2
    t_swap=$(now)
    # The three are formatted and started together (they are observers until
    # added), then added one at a time. The old node directories stay for the record.
    cbs=$(alive_bs "${kraft_ids[@]}")
    t_java=$(now)
    fjobs=()
    for id in "${java_ids[@]}"; do
        mv "$d/node$id" "$d/retired-node$id"
        write_java_controller_config "$id"
        tool kafka.tools.StorageTool format --config "$d/node$id/server.properties" --cluster-id "$cluster_id" \
            --no-initial-controllers >"$d/node$id/format.log" 2>&1 &
        fjobs+=($!)
    done
    for i in 0 1 2; do
        id=${java_ids[$i]}
        wait "${fjobs[$i]}" || fail "Kafka's StorageTool format of controller $id: $(cat "$d/node$id/format.log")"
        [[ -n $(dir_id "$id") && $(dir_id "$id") != "$(sed -n 's/^directory.id=//p' "$d/retired-node$id/data/meta.properties")" ]] ||
            fail "controller $id was not formatted with a new directory id: $(cat "$d/node$id/format.log")"
    done
    for id in "${java_ids[@]}"; do start_controller "$id"; done
    for id in "${java_ids[@]}"; do
        deadline=$((SECONDS + join_timeout))
        until refresh; [[ $(row "$id" | awk '{print $2 " " $7 " " $4}') == "$(dir_id "$id") Observer 0" ]]; do
            alive "$id" || fail "Java controller $id exited before it caught up"
            ((SECONDS < deadline)) || fail "Java controller $id is not a caught-up observer within ${join_timeout}s: $(row "$id")"
            producer_alive
            sleep 0.5
        done
        timing "2: Java 1-3 format + start -> $id is a caught-up observer" "$(secs "$t_java")"
        t1=$(now)
        if [[ $sw_security == plaintext ]]; then
            out=$(tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$(cbs_now)" \
                --command-config "$d/node$id/server.properties" add-controller 2>&1) ||
                fail "Kafka's kafka-metadata-quorum --command-config <controller $id's server.properties> add-controller failed: $out"
        else
            # docs/operations.md's: the controller's file and the client's in one.
            out=$(doc_run sasl-ssl-add-controller controller1-client.properties "$d/node$id/add-controller.properties" \
                controller1.properties "$d/node$id/server.properties" admin.properties "$admin_cfg" \
                new-7:9093,new-8:9093,new-9:9093 "$(cbs_now)" 2>&1) ||
                fail "Kafka's kafka-metadata-quorum --command-config <controller $id's server.properties and admin.properties> add-controller failed: $out"
        fi
        [[ $out == *"Added controller $id with directory id $(dir_id "$id")"* ]] || fail "Kafka's add-controller printed: $out"
        deadline=$((SECONDS + voter_timeout))
        until refresh; [[ $(row "$id" | awk '{print $2 " " $7}') =~ ^$(dir_id "$id")\ (Follower|Leader)$ ]]; do
            ((SECONDS < deadline)) || fail "Java controller $id is not a voter ${voter_timeout}s after add-controller: $(row "$id")"
            sleep 0.5
        done
        timing "2: Kafka's add-controller $id -> voter" "$(secs "$t1")"
        pass "Java controller $id (directory $(dir_id "$id")) caught up and was added by Kafka's tool: \"$(grep 'Added controller' <<<"$out")\"; voters $(snap_voter_ids)"
        check_step "after adding Java controller $id"
    done
    refresh
    l=$(snap_leader)
    order=()
    for id in "${kraft_ids[@]}"; do [[ $id != "$l" ]] && order+=("$id"); done
    [[ " ${kraft_ids[*]} " == *" $l "* ]] && order+=("$l")
    echo "   removing the kraft-rs controllers in the order ${order[*]} (leader $l last)"
    for id in "${order[@]}"; do
        stop_controller "$id"
        remove_with_kafka "$id"
        check_step "after stopping and removing kraft-rs controller $id"
    done
    final_voters "${java_ids[@]}"
    timing "2: swap kraft-rs -> Java (first add to last removal checked)" "$(secs "$t_swap")"
    pass "only Java controllers vote: $(snap_voters) (leader $(snap_leader)); registered controllers: $(registered_controllers)"
    finish_producer
    wait_isr t2
    consume p2 t2 swap-2
fi

echo "summary:"
printf '  %s\n' "${summaries[@]}"
for p in p1 p2; do
    [[ -f $w/$p.log ]] || continue
    echo "  $p: max acknowledgement latency per 5 s window during the swap: $(awk '/^progress/ {sub(/ ms$/, ""); if ($NF > m) m = $NF} END {print m + 0}' "$w/$p.log") ms; produce requests retried: $(grep -c 'retrying (' "$w/$p.log" || true)"
done
echo "  brokers 4, 5, 6 ran throughout with pids ${bpid[*]}"
echo "timings:"
printf '  %s\n' "${timings[@]}"
echo "swap.sh: all checks passed in $(secs "$started")s"
if [[ -z ${SW_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
