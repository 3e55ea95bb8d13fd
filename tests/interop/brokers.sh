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
kq="$here/kafka-quorum.sh"
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-brokers.XXXXXX")
release_version=4.4-IV2
brokers=(4 5 6)
controllers=(1 2 3)
# A shorter session than Kafka's 9 s default keeps the fencing checks short.
# A kraft-rs controller that does not know the key logs "Ignoring unknown
# configuration broker.session.timeout.ms." and keeps the default.
session_ms=6000
session_s=6
d=           # the current scenario's directory (kafka-quorum.sh DIR)
cbs=         # its controllers, host:port,...
declare -A bpid=() # broker id -> pid (children of this script)
timings=()
started=$EPOCHREALTIME
fast="$root/fast-client.properties"
printf 'default.api.timeout.ms=5000\nrequest.timeout.ms=3000\n' >"$fast"

now() { echo "$EPOCHREALTIME"; }
# secs FROM [TO]: seconds between two now()s, one decimal.
secs() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN {printf "%.1f", b - a}'; }
timing() { timings+=("$(printf '%-76s %6ss' "$1" "$2")"); }
pass() { echo "PASS $* [$(secs "$started")s]"; }
role() { cat "$d/node$1/role" 2>/dev/null || echo "node"; }
impl_of() { [[ $(role "$1") == kraft-rs* ]] && echo kraft-rs || echo Java; }
# Kafka's logs without the indented config dumps, long lines cut.
log_tail() { grep -v $'^\t' "$1" 2>/dev/null | tail -n "${2:-20}" | cut -c1-400 || true; }

fail() {
    echo "FAIL $*" >&2
    if [[ -n $d ]]; then
        local f id
        for f in "$d"/node*/server.log; do
            [[ -f $f ]] || continue
            id=${f%/server.log}
            id=${id##*/node}
            echo "--- node $id ($(role "$id")): $f, tail:" >&2
            case $(role "$id") in
            "Java controller") log_tail "$f" 12 >&2 ;;
            "Java broker") log_tail "$f" 15 >&2 ;;
            *) log_tail "$f" 25 >&2 ;;
            esac
        done
    fi
    echo "work directory kept: $root" >&2
    exit 1
}

# stop_pids PIDFILE...: SIGTERM every live process named there, SIGKILL
# what is left after 10 s.
stop_pids() {
    local pids=() f p left
    for f in "$@"; do
        [[ -f $f ]] || continue
        p=$(cat "$f")
        kill -0 "$p" 2>/dev/null && pids+=("$p")
    done
    ((${#pids[@]})) || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 40); do
        left=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
        ((left)) || break
        sleep 0.25
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}
# Brokers first: their controlled shutdown needs a controller.
stop_scenario() {
    local s=$1 id files=()
    for id in "${brokers[@]}"; do files+=("$s/node$id/pid"); done
    stop_pids "${files[@]}"
    stop_pids "$s"/node*/pid
    rm -f "$s"/node*/pid
}
cleanup() {
    local s
    disown -a 2>/dev/null || true
    for s in "$root"/s*; do [[ -d $s ]] && stop_scenario "$s"; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

tool() { bash "$kq" tool "$d" "$@"; }
port() { bash "$kq" port "$d" "$1"; }
pid_of() { cat "$d/node$1/pid" 2>/dev/null || true; }
alive() { local p; p=$(pid_of "$1"); [[ -n $p ]] && kill -0 "$p" 2>/dev/null; }
# The listed nodes that run, host:port,...
alive_bs() {
    local id out=
    for id in "$@"; do alive "$id" && out+="${out:+,}127.0.0.1:$(port "$id")"; done
    echo "$out"
}
# log_time LINE: a Kafka log line's "[yyyy-mm-dd hh:mm:ss,mmm]" as epoch seconds.
log_time() {
    local ts
    ts=$(sed -n 's/^\[\([0-9-]* [0-9:]*\),\([0-9]*\)\].*/\1.\2/p' <<<"$1")
    [[ -n $ts ]] && date -d "$ts" +%s.%N || now
}
log_lines() { if [[ -f $1 ]]; then wc -l <"$1"; else echo 0; fi; }
# log_since FILE LINES PATTERN: prints the first line after FILE's first
# LINES lines that matches PATTERN (an awk regex); fails when none does.
log_since() {
    [[ -f $1 ]] || return 1
    P=$3 awk -v n="$2" 'NR > n && $0 ~ ENVIRON["P"] {print; found = 1; exit} END {exit !found}' "$1"
}

# ---------- controllers ----------
write_kraft_config() {
    local id=$1 nd="$d/node$1"
    mkdir -p "$nd"
    echo "kraft-rs controller" >"$nd/role"
    cat >"$nd/server.properties" <<EOF
node.id=$id
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$(port "$id")
log.dirs=$nd/data
metadata.log.dir=$nd/data
controller.quorum.bootstrap.servers=$cbs
broker.session.timeout.ms=$session_ms
EOF
}
# The keys kafka-quorum.sh writes for its controllers.
write_java_controller_config() {
    local id=$1 nd="$d/node$1"
    mkdir -p "$nd"
    echo "Java controller" >"$nd/role"
    cat >"$nd/server.properties" <<EOF
process.roles=controller
node.id=$id
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$(port "$id")
advertised.listeners=CONTROLLER://127.0.0.1:$(port "$id")
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=$cbs
log.dirs=$nd/data
metadata.log.dir=$nd/data
broker.session.timeout.ms=$session_ms
EOF
}
# format_controller ID INITIAL_CONTROLLERS (run in the background: no fail)
format_controller() {
    local id=$1 nd="$d/node$1"
    if [[ $(impl_of "$id") == kraft-rs ]]; then
        "$kraft" storage format --config "$nd/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --initial-controllers "$2" >"$nd/format.log" 2>&1
    else
        tool kafka.tools.StorageTool format --config "$nd/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --initial-controllers "$2" >"$nd/format.log" 2>&1
    fi || { echo "format of controller $id failed:" >&2; cat "$nd/format.log" >&2; return 1; }
}
# start_controller ID: a child of this script; its pid in node ID/pid.
start_controller() {
    local id=$1 nd="$d/node$1"
    if [[ $(impl_of "$id") == kraft-rs ]]; then
        echo "=== brokers.sh: kraft server at $(date '+%F %T')" >>"$nd/server.log"
        KRAFT_LOG=info NO_COLOR=1 "$kraft" server --config "$nd/server.properties" >>"$nd/server.log" 2>&1 &
        echo $! >"$nd/pid"
    else
        rm -f "$nd/pid"
        bash "$kq" run-node "$d" "$id" >>"$nd/server.log" 2>&1 &
        # run-node writes the pid file itself (its pid, the JVM's after exec).
        local p=$!
        for _ in $(seq 1 100); do
            [[ -s $nd/pid ]] && break
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        [[ $(cat "$nd/pid" 2>/dev/null) == "$p" ]] || fail "controller $id did not start (kafka-quorum.sh run-node)"
    fi
}
# kill_node ID SIGNAL: signals node ID and waits (60 s at most) until it is
# gone; sets exit_rc to its exit status (when it is a child of this script)
# and exit_at to the time it was gone. Not in $(...): wait needs this shell.
exit_rc=
exit_at=
kill_node() {
    local p rc=0
    p=$(pid_of "$1")
    [[ -n $p ]] || fail "node $1 has no pid"
    # A job killed by a signal makes bash print "Killed"; nobody needs a
    # SIGKILLed node's status.
    [[ $2 == KILL ]] && { disown "$p" 2>/dev/null || true; }
    kill "-$2" "$p" 2>/dev/null || true
    local deadline=$((SECONDS + 60))
    while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -0 "$p" 2>/dev/null && fail "node $1 (pid $p) did not exit within 60s of SIG$2"
    exit_at=$(now)
    wait "$p" 2>/dev/null || rc=$?
    rm -f "$d/node$1/pid"
    exit_rc=$rc
}
quorum() {
    local bs
    bs=$(alive_bs "${controllers[@]}")
    [[ -n $bs ]] || return 0
    timeout 20 "$kraft" metadata-quorum --bootstrap-controller "$bs" --command-config "$fast" \
        describe "$@" 2>/dev/null || true
}
leader_id() { quorum --status | awk '/^LeaderId:/ {print $2}'; }
# wait_leader NOT SECONDS: prints a running leader other than NOT.
wait_leader() {
    local not=$1 deadline=$((SECONDS + $2)) l
    while ((SECONDS < deadline)); do
        l=$(leader_id)
        if [[ $l =~ ^[0-9]+$ && $l != "$not" ]] && alive "$l"; then
            echo "$l"
            return 0
        fi
        sleep 0.5
    done
    return 1
}
# wait_follower ID SECONDS: ID is a voter following the leader, lag < 20.
wait_follower() {
    local id=$1 deadline=$((SECONDS + $2)) r
    while ((SECONDS < deadline)); do
        r=$(quorum --replication | awk -v id="$id" '$1 == id')
        if [[ $r == *Follower* ]] && (($(awk '{print $4}' <<<"$r") < 20)); then return 0; fi
        sleep 1
    done
    return 1
}
# The session timeout the controllers apply: Kafka's default 9 s when a
# kraft-rs controller ignored broker.session.timeout.ms.
effective_session() {
    session_s=$((session_ms / 1000))
    if grep -qs "Ignoring unknown configuration broker.session.timeout.ms" "$d"/node*/server.log; then
        session_s=9
        echo "NOTE a kraft-rs controller ignores broker.session.timeout.ms; using Kafka's default 9 s"
    fi
}

# ---------- brokers ----------
format_brokers() {
    local id pids=() rc=0
    for id in "${brokers[@]}"; do
        KQ_BOOTSTRAP_SERVERS=$cbs bash "$kq" format-broker "$d" "$id" >/dev/null &
        pids+=($!)
    done
    for id in "${pids[@]}"; do wait "$id" || rc=1; done
    [[ $rc == 0 ]] || fail "formatting the brokers failed"
    for id in "${brokers[@]}"; do echo "Java broker" >"$d/node$id/role"; done
}
# start_broker ID: kafka-quorum.sh run-node as a child (its pid is the JVM's).
start_broker() {
    local id=$1
    bash "$kq" run-node "$d" "$id" >>"$d/node$id/server.log" 2>&1 &
    bpid[$id]=$!
}
# Kafka's ClusterTool through the running brokers: ID HOST PORT RACK STATE ENDPOINT_TYPE.
ep=
endpoints() {
    local bs
    bs=$(alive_bs "${brokers[@]}")
    ep=
    [[ -n $bs ]] || return 1
    ep=$(tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-server "$bs" \
        --include-fenced-brokers 2>/dev/null) || return 1
}
state_of() { awk -v id="$1" '$1 == id && $6 == "broker" {print $5}' <<<"$ep"; }
states() {
    local id out= st
    for id in "${brokers[@]}"; do
        st=$(state_of "$id")
        out+="${out:+, }$id: ${st:-not listed}"
    done
    echo "$out"
}
# wait_state ID STATE SECONDS: sets poll_start (start of the poll that saw
# it) and prev_poll (end of the poll before, which did not).
poll_start=
prev_poll=
wait_state() {
    local id=$1 want=$2 deadline t
    deadline=$(awk -v n="$(now)" -v s="$3" 'BEGIN {printf "%d", n + s}')
    prev_poll=
    while :; do
        t=$(now)
        if endpoints && [[ $(state_of "$id") == "$want" ]]; then
            poll_start=$t
            return 0
        fi
        prev_poll=$(now)
        ((${t%.*} < deadline)) || return 1
        sleep 0.3
    done
}
# check_brokers WHAT: every broker process runs and ClusterTool shows every broker unfenced.
check_brokers() {
    local id
    for id in "${brokers[@]}"; do
        if ! kill -0 "${bpid[$id]}" 2>/dev/null; then
            local rc=0
            wait "${bpid[$id]}" 2>/dev/null || rc=$?
            fail "$1: broker $id exited (status $rc)"
        fi
    done
    endpoints || fail "$1: ClusterTool list-endpoints failed"
    for id in "${brokers[@]}"; do
        [[ $(state_of "$id") == unfenced ]] || fail "$1: broker $id is not unfenced ($(states)):
$ep"
    done
}
# wait_unfenced ID LINES T0 WHAT: broker ID's log (after LINES) says it was
# unfenced, then ClusterTool shows it unfenced; records the time since T0.
wait_unfenced() {
    local id=$1 lines=$2 t0=$3 what=$4 log="$d/node$1/server.log" deadline=$((SECONDS + start_timeout)) t_log
    while ! log_since "$log" "$lines" "The broker has been unfenced" >/dev/null; do
        if ! kill -0 "${bpid[$id]}" 2>/dev/null; then
            local rc=0
            wait "${bpid[$id]}" 2>/dev/null || rc=$?
            fail "$what: broker $id exited (status $rc) before it was unfenced"
        fi
        if ((SECONDS >= deadline)); then
            local why
            why=$(tail -n "+$((lines + 1))" "$log" | grep -E "BrokerLifecycleManager|ControllerChannelManager|ERROR|WARN" |
                tail -n 8 | cut -c1-400 || true)
            fail "$what: broker $id was not unfenced within ${start_timeout}s; its last lifecycle lines:
$why"
        fi
        sleep 0.2
    done
    t_log=$(secs "$t0" "$(log_time "$(log_since "$log" "$lines" "The broker has been unfenced")")")
    wait_state "$id" unfenced 30 || fail "$what: broker $id's log says unfenced but ClusterTool shows $(states)"
    timing "$what: broker $id start -> unfenced (its log)" "$t_log"
    echo "  broker $id unfenced ${t_log}s after its start (its log; ClusterTool confirmed $(secs "$t0")s after the start)"
}
# start_brokers WHAT: format and start brokers 4-6 together, wait until each is unfenced.
start_brokers() {
    local what=$1 id t0
    format_brokers
    t0=$(now)
    for id in "${brokers[@]}"; do start_broker "$id"; done
    for id in "${brokers[@]}"; do wait_unfenced "$id" 0 "$t0" "$what"; done
}
# restart_broker ID WHAT
restart_broker() {
    local id=$1 lines t0
    lines=$(log_lines "$d/node$id/server.log")
    t0=$(now)
    start_broker "$id"
    wait_unfenced "$id" "$lines" "$t0" "$2"
}

# setup_controllers ROLE1 ROLE2 ROLE3: format and start controllers 1-3 of $d
# (kraft or java each) as initial voters with known directory ids; wait for
# a leader with three voters.
setup_controllers() {
    local id initial= t0 impl
    cluster_id=$(bash "$kq" init "$d")
    cbs=$(bash "$kq" bootstrap "$d")
    for id in "${controllers[@]}"; do
        impl=${*:id:1}
        if [[ $impl == kraft ]]; then write_kraft_config "$id"; else write_java_controller_config "$id"; fi
        local did
        did=$("$kraft" storage random-uuid)
        echo "$did" >"$d/node$id/directory-id"
        initial+="${initial:+,}$id@127.0.0.1:$(port "$id"):$did"
    done
    local jobs_=() j rc=0
    for id in "${controllers[@]}"; do
        format_controller "$id" "$initial" &
        jobs_+=($!)
    done
    for j in "${jobs_[@]}"; do wait "$j" || rc=1; done
    [[ $rc == 0 ]] || fail "formatting the controllers failed"
    for id in "${controllers[@]}"; do
        local got
        got=$(sed -n 's/^directory.id=//p' "$d/node$id/data/meta.properties")
        [[ $got == "$(cat "$d/node$id/directory-id")" ]] ||
            fail "controller $id was formatted with directory id $got, not the one in --initial-controllers"
    done
    t0=$(now)
    for id in "${controllers[@]}"; do start_controller "$id"; done
    local deadline=$((SECONDS + 120)) st=
    while ((SECONDS < deadline)); do
        st=$(quorum --status)
        if grep -qE '^LeaderId: +[0-9]' <<<"$st" &&
            [[ $(grep '^CurrentVoters:' <<<"$st" | grep -o '"id": *[0-9]*' | wc -l) == 3 ]]; then
            break
        fi
        st=
        for id in "${controllers[@]}"; do alive "$id" || fail "controller $id exited at start"; done
        sleep 0.5
    done
    [[ -n $st ]] || fail "no leader with three voters within 120s"
    timing "${d##*/s}: controllers $*: start -> leader with 3 voters" "$(secs "$t0")"
    echo "  leader $(awk '/^LeaderId:/ {print $2}' <<<"$st") after $(secs "$t0")s"
}
# ===================== Scenario 1 =====================
scenario1() {
    d="$root/s1"
    bpid=()
    echo "== 1. three $mode_label controllers, three Java brokers"
    local t0 id
    if [[ $mode == java ]]; then
        t0=$(now)
        KQ_CONTROLLER_PROPS="broker.session.timeout.ms=$session_ms" bash "$kq" start "$d" >/dev/null ||
            fail "kafka-quorum.sh start failed"
        for id in "${controllers[@]}"; do echo "Java controller" >"$d/node$id/role"; done
        cluster_id=$(cat "$d/cluster-id")
        cbs=$(bash "$kq" bootstrap "$d")
        timing "1: controllers java java java (kafka-quorum.sh start, incl. format)" "$(secs "$t0")"
    else
        setup_controllers kraft kraft kraft
    fi
    effective_session
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
