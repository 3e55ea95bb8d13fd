#!/usr/bin/env bash
# Unmodified Apache Kafka 4.4.0 brokers (the Maven jars, kafka.Kafka with
# process.roles=broker, started by kafka-quorum.sh run-node) on a controller
# quorum: they register with the active controller, heartbeat to it, are
# fenced and unfenced by it and shut down through it. Every check reads
# Kafka's own tools.
#
#   brokers.sh KRAFT_BINARY
#
# 1. Three controllers (kraft-rs: `kraft storage format --initial-controllers`
#    and `kraft server`) and three Java brokers 4-6 formatted with the same
#    cluster id and controller.quorum.bootstrap.servers naming the controllers.
#    - Every broker registers and is unfenced (ClusterTool list-endpoints
#      --bootstrap-server BROKERS --include-fenced-brokers: STATE unfenced)
#      and replicates the metadata log as an observer (describe --replication);
#      ClusterTool list-endpoints and cluster-id and BrokerApiVersionsCommand
#      work through a broker.
#    - kill -9 broker 5: it is still unfenced right after (no fencing on a
#      closed connection) and fenced once its session (broker.session.timeout.ms)
#      expires; restarted, it registers again and is unfenced.
#    - SIGTERM broker 6: its log shows the controller granted the controlled
#      shutdown ("The controller has asked us to exit controlled shutdown", no
#      timeout), it exits with the JVM's status for a clean SIGTERM (143: its
#      shutdown hook completed; 0 accepted too) and is fenced at once;
#      Kafka's kafka-cluster unregister --bootstrap-server (broker 4) --id 6
#      (the broker forwards UnregisterBroker to the active controller in an
#      Envelope) removes it from list-endpoints
#      --include-fenced-brokers; restarted, it registers anew and is
#      unfenced.
#    - kill -9 the raft leader (LeaderId of `kraft metadata-quorum describe
#      --status`): a new leader is elected; more than one session timeout
#      after the kill no broker is fenced and every broker process is alive;
#      the killed controller restarts and follows the new leader.
# 2. A mixed quorum: kraft-rs controller 1 and Java controllers 2 and 3, all
#    formatted as initial voters with known directory ids (`kraft storage
#    format` and Kafka's StorageTool with the same --initial-controllers),
#    and three Java brokers. The leader is stopped gracefully (SIGTERM: both
#    implementations resign with EndQuorumEpoch, which names the lowest id
#    first among equally caught-up voters, so a Java leader hands over to
#    controller 1), a new leader is awaited and the stopped controller
#    restarted, until the kraft-rs controller has led at least twice and a
#    Java controller led after it. After each move every broker's log says it
#    now uses the new controller, and more than one session timeout later no
#    broker is fenced and none exited.
# Exits non-zero on the first failed check (with the tails of every node's
# log); always stops every process. Prints the time of each step and a
# summary of the timings at the end.
#
# Environment: BR_CONTROLLERS=java runs every controller as Java Kafka
# (scenario 1 with kafka-quorum.sh start; in scenario 2 controller 1 is Java
# too): the same checks against the real thing, to validate them.
# BR_SCENARIOS (default "1 2"), BR_MAX_MOVES (scenario 2's bound, default
# 10), BR_START_TIMEOUT (seconds for a broker to be unfenced, default 90),
# BR_KEEP=1 keeps the work directory after a success.
set -euo pipefail

kraft=${1:?usage: brokers.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "brokers.sh: $kraft is not executable" >&2; exit 2; }
mode=${BR_CONTROLLERS:-kraft}
case $mode in kraft | java) ;; *) echo "brokers.sh: BR_CONTROLLERS must be kraft or java" >&2; exit 2 ;; esac
mode_label=kraft-rs
[[ $mode == java ]] && mode_label=Java
scenarios=${BR_SCENARIOS:-1 2}
max_moves=${BR_MAX_MOVES:-10}
start_timeout=${BR_START_TIMEOUT:-90}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-brokers.XXXXXX")
script=brokers.sh
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
trap cleanup EXIT

# ===================== Scenario 1 =====================
scenario1() {
    d="$root/s1"
    bpid=()
    tag=1
    echo "== 1. three $mode_label controllers, three Java brokers"
    local t0 id
    start_quorum "$mode"
    pass "three $mode_label controllers ($cbs) lead with three voters, cluster $cluster_id, broker session ${session_s}s"

    start_brokers "1: first start"
    check_brokers "after the first start"
    pass "Java brokers 4, 5, 6 registered and are unfenced (ClusterTool list-endpoints --include-fenced-brokers)"

    local rep
    for _ in $(seq 1 20); do
        rep=$(quorum --replication)
        local ok=1
        for id in "${brokers[@]}"; do [[ $(awk -v id="$id" '$1 == id' <<<"$rep") == *Observer* ]] || ok=0; done
        ((ok)) && break
        sleep 1
    done
    ((ok)) || fail "the brokers are not all observers in describe --replication:
$rep"
    pass "brokers 4, 5, 6 replicate the metadata log as observers ($(awk '$7 == "Observer" {printf "%s%s LEO %s lag %s", s, $1, $3, $4; s=", "}' <<<"$rep"))"

    local b4 out
    b4="127.0.0.1:$(port 4)"
    out=$(tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-server "$b4" 2>&1) ||
        fail "kafka-cluster list-endpoints --bootstrap-server $b4 failed: $out"
    for id in "${brokers[@]}"; do
        grep -qE "^$id +127\.0\.0\.1 +$(port "$id") .* unfenced +broker" <<<"$out" ||
            fail "kafka-cluster list-endpoints does not list broker $id unfenced: $out"
    done
    out=$(tool org.apache.kafka.tools.ClusterTool cluster-id --bootstrap-server "$b4" 2>&1) ||
        fail "kafka-cluster cluster-id failed: $out"
    [[ $out == *"Cluster ID: $cluster_id"* ]] || fail "kafka-cluster cluster-id: $out (want $cluster_id)"
    out=$(tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$b4" 2>&1) ||
        fail "kafka-broker-api-versions failed: $out"
    for id in "${brokers[@]}"; do
        grep -qE "^127\.0\.0\.1:$(port "$id") \(id: $id rack: null isFenced: false\) -> \(" <<<"$out" ||
            fail "kafka-broker-api-versions has no unfenced entry for broker $id: $(head -c 2000 <<<"$out")"
    done
    local napis
    napis=$(grep -cE '^\s+[A-Za-z]+\([0-9]+\): ' <<<"$out" || true)
    grep -qE '^\s+Produce\(0\): .*usable' <<<"$out" && grep -qE '^\s+Fetch\(1\): .*usable' <<<"$out" ||
        fail "kafka-broker-api-versions lists no usable Produce/Fetch: $(head -c 2000 <<<"$out")"
    pass "through broker 4: kafka-cluster list-endpoints (3 unfenced brokers), kafka-cluster cluster-id ($cluster_id), kafka-broker-api-versions (3 brokers, isFenced: false, $((napis / 3)) APIs each)"

    # --- kill -9 a broker: fenced when its session expires ---
    local t_kill lo hi
    t_kill=$(now)
    kill_node 5 KILL
    wait_state 5 fenced $((session_s + 20)) ||
        fail "broker 5 is not fenced $((session_s + 20))s after kill -9 ($(states))"
    [[ -n $prev_poll ]] ||
        fail "broker 5 was fenced at the first poll after kill -9 ($(secs "$t_kill" "$poll_start")s): no session timeout"
    lo=$(secs "$t_kill" "$prev_poll")
    hi=$(secs "$t_kill")
    timing "1: kill -9 broker 5 -> fenced (ClusterTool)" "$hi"
    pass "kill -9 broker 5: a poll that ended ${lo}s after still showed it unfenced, fenced by ${hi}s (session ${session_s}s; $(states))"
    restart_broker 5 "1: restart after kill -9"
    check_brokers "after broker 5's restart"
    pass "broker 5 restarted: registered again and unfenced ($(states))"

    # --- SIGTERM a broker: controlled shutdown ---
    local lines t_term rc t_exit
    lines=$(log_lines "$d/node6/server.log")
    t_term=$(now)
    kill_node 6 TERM
    rc=$exit_rc
    t_exit=$exit_at
    timing "1: SIGTERM broker 6 -> exit (controlled shutdown)" "$(secs "$t_term" "$t_exit")"
    local l6="$d/node6/server.log"
    [[ $rc == 143 || $rc == 0 ]] || fail "broker 6 exited with status $rc after SIGTERM (want 143 or 0)"
    log_since "$l6" "$lines" "Beginning controlled shutdown" >/dev/null ||
        fail "broker 6's log does not show a controlled shutdown"
    if log_since "$l6" "$lines" "Timed out waiting for the controller to approve controlled shutdown" >/dev/null; then
        fail "broker 6: the controller did not approve its controlled shutdown (it timed out)"
    fi
    log_since "$l6" "$lines" "The controller has asked us to exit controlled shutdown" >/dev/null ||
        fail "broker 6's log does not say the controller granted its controlled shutdown"
    log_since "$l6" "$lines" "\[BrokerServer id=6\] shut down completed" >/dev/null ||
        fail "broker 6's log does not say its shutdown completed"
    wait_state 6 fenced 4 || fail "broker 6 is not fenced 4s after its controlled shutdown ($(states))"
    pass "SIGTERM broker 6: its log says \"Beginning controlled shutdown\", \"The controller has asked us to exit controlled shutdown\", \"shut down completed\"; exit status $rc after $(secs "$t_term" "$t_exit")s; fenced at the poll $(secs "$t_exit" "$poll_start")s after the exit"
    # --- unregister the stopped broker: broker 4 forwards UnregisterBroker
    # to the active controller in an Envelope ---
    out=$(tool org.apache.kafka.tools.ClusterTool unregister --bootstrap-server "127.0.0.1:$(port 4)" \
        --id 6 2>&1) || fail "kafka-cluster unregister --bootstrap-server (broker 4) --id 6 failed: $out"
    grep -q "Broker 6 is no longer registered." <<<"$out" ||
        fail "kafka-cluster unregister --id 6 printed: $out"
    wait_state 6 "" 15 || fail "broker 6 is still listed 15s after kafka-cluster unregister ($(states))" # "": no row
    pass "kafka-cluster unregister --bootstrap-server (broker 4, forwarded in an Envelope) --id 6: broker 6 is gone from list-endpoints --include-fenced-brokers ($(states))"
    restart_broker 6 "1: restart after SIGTERM and unregister"
    check_brokers "after broker 6's restart"
    pass "broker 6 restarted: registered anew and unfenced ($(states))"

    # --- kill -9 the raft leader ---
    local l nl t_new
    l=$(wait_leader none 30) || fail "no leader before the leader kill"
    local counts=()
    for id in "${brokers[@]}"; do counts+=("$(log_lines "$d/node$id/server.log")"); done
    t_kill=$(now)
    kill_node "$l" KILL
    nl=$(wait_leader "$l" 60) || fail "no new leader within 60s of kill -9 of leader $l"
    t_new=$(now)
    timing "1: kill -9 leader $l ($(impl_of "$l")) -> new leader $nl" "$(secs "$t_kill" "$t_new")"
    local until
    until=$(awk -v t="$t_kill" -v s="$session_s" 'BEGIN {printf "%.3f", t + s + 3}')
    while awk -v u="$until" -v n="$(now)" 'BEGIN {exit !(n < u)}'; do sleep 0.2; done
    check_brokers "$(secs "$t_kill")s after kill -9 of leader $l"
    local i=0
    for id in "${brokers[@]}"; do
        log_since "$d/node$id/server.log" "${counts[$i]}" "Recorded new KRaft controller, from now on will use node .*\\(id: $nl " >/dev/null ||
            fail "broker $id's log does not say it now uses controller $nl"
        i=$((i + 1))
    done
    pass "kill -9 leader $l: controller $nl leads after $(secs "$t_kill" "$t_new")s; every broker's log says \"Recorded new KRaft controller, from now on will use node ... (id: $nl ...)\"; $(secs "$t_kill")s after the kill every broker runs and is unfenced ($(states))"
    t0=$(now)
    start_controller "$l"
    wait_follower "$l" 90 || fail "restarted controller $l does not follow leader $nl: $(quorum --replication)"
    local t_follow
    t_follow=$(secs "$t0")
    timing "1: restart controller $l -> caught-up follower" "$t_follow"
    check_brokers "after controller $l's restart"
    pass "controller $l restarted and follows leader $nl (${t_follow}s); brokers unfenced"

    stop_scenario "$d"
    wait 2>/dev/null || true
}

# ===================== Scenario 2 =====================
scenario2() {
    d="$root/s2"
    bpid=()
    tag=2
    local first=kraft
    [[ $mode == java ]] && first=java
    echo "== 2. mixed quorum: $mode_label controller 1, Java controllers 2 and 3, three Java brokers"
    setup_controllers "$first" java java
    effective_session
    pass "controllers 1 ($(impl_of 1)), 2, 3 (Java) formatted as initial voters lead with three voters (broker session ${session_s}s)"
    start_brokers "2: first start"
    check_brokers "after the first start"
    local cur
    cur=$(wait_leader none 30) || fail "no leader"
    pass "Java brokers 4, 5, 6 registered with leader $cur ($(impl_of "$cur")) and are unfenced"

    local seq=("$cur") led1=0 java_after=0 move=0
    [[ $cur == 1 ]] && led1=1
    while ! ((led1 >= 2 && java_after)); do
        move=$((move + 1))
        ((move <= max_moves)) || fail "after $max_moves moves the leaders were ${seq[*]}: controller 1 did not lead twice with a Java leader after it"
        local l=$cur rc t_term t_exit nl t_new t0 what id counts=() i
        for id in "${brokers[@]}"; do counts+=("$(log_lines "$d/node$id/server.log")"); done
        t_term=$(now)
        kill_node "$l" TERM
        rc=$exit_rc
        t_exit=$exit_at
        if [[ $(impl_of "$l") == kraft-rs ]]; then
            [[ $rc == 0 ]] || fail "move $move: kraft-rs controller $l exited with status $rc after SIGTERM (want 0)"
        else
            [[ $rc == 143 || $rc == 0 ]] || fail "move $move: Java controller $l exited with status $rc after SIGTERM"
        fi
        nl=$(wait_leader "$l" 60) || fail "move $move: no new leader within 60s of stopping leader $l"
        t_new=$(now)
        what="move $move: SIGTERM leader $l ($(impl_of "$l")) -> leader $nl ($(impl_of "$nl"))"
        timing "2: $what" "$(secs "$t_term" "$t_new")"
        t0=$(now)
        start_controller "$l"
        wait_follower "$l" 90 || fail "move $move: restarted controller $l does not follow leader $nl: $(quorum --replication)"
        local t_follow
        t_follow=$(secs "$t0")
        local until
        until=$(awk -v t="$t_new" -v s="$session_s" 'BEGIN {printf "%.3f", t + s + 2}')
        while awk -v u="$until" -v n="$(now)" 'BEGIN {exit !(n < u)}'; do sleep 0.2; done
        local cl
        cl=$(leader_id)
        [[ $cl == "$nl" ]] || fail "move $move: leadership moved again on its own ($nl -> ${cl:-none})"
        check_brokers "$what, $(secs "$t_new")s later"
        i=0
        for id in "${brokers[@]}"; do
            log_since "$d/node$id/server.log" "${counts[$i]}" "Recorded new KRaft controller, from now on will use node .*\\(id: $nl " >/dev/null ||
                fail "$what: broker $id's log does not say it now uses controller $nl"
            i=$((i + 1))
        done
        pass "$what: exit status $rc in $(secs "$t_term" "$t_exit")s, new leader after $(secs "$t_term" "$t_new")s; every broker logs it now uses controller $nl; controller $l restarted and follows (${t_follow}s); $(secs "$t_new")s after the move all brokers run and are unfenced"
        seq+=("$nl")
        if [[ $nl == 1 ]]; then
            led1=$((led1 + 1))
            java_after=0
        elif ((led1 > 0)); then
            java_after=1
        fi
        cur=$nl
    done
    local s
    s=$(printf '%s -> ' "${seq[@]}")
    pass "leaders over $move moves: ${s% -> } (controller 1 $(impl_of 1) led $led1 times); the brokers were never fenced"
    stop_scenario "$d"
    wait 2>/dev/null || true
}

echo "brokers.sh: $mode_label controllers (BR_CONTROLLERS=$mode); work directory $root"
for s in $scenarios; do
    case $s in
    1) scenario1 ;;
    2) scenario2 ;;
    *) fail "unknown scenario $s" ;;
    esac
done

echo "timings:"
printf '  %s\n' "${timings[@]}"
echo "brokers.sh ($mode_label controllers): all checks passed in $(secs "$started")s"
if [[ -z ${BR_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
