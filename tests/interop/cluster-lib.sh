# Shared by brokers.sh, topics.sh, authz.sh, secure.sh, swap.sh and
# reassign.sh (sourced,
# not run): Java 4.4 brokers
# (kafka-quorum.sh run-node) on three controllers, kraft-rs (`kraft server`)
# or Java, each a child of the calling script so that it owns their pids and
# exit statuses; Kafka's tools to look at them; timings, failure report with
# the tail of every node's log, cleanup.
#
# The caller sets, before sourcing: kraft (the kraft binary, absolute path),
# root (its work directory), start_timeout (seconds for a broker to be
# unfenced) and script (its name, for the logs); then it sets d (the current
# cluster's kafka-quorum.sh DIR, under root) and tag (a label for the
# timings) and calls start_quorum / setup_controllers, start_brokers, ...
# It may define fail_hook (run by fail before the node logs, e.g. to show
# its own processes' logs) and cleanup_hook (run by cleanup first), and set
# controller_props: lines appended to every controller's server.properties
# (kraft-rs and Java, written by setup_controllers or start_quorum java),
# e.g. snapshot thresholds; empty by default; snapshot_timeout and
# max_snapshots for compare_images (60 s, 100); and max_moves for move (8).
# A secured controller listener (secure.sh, swap.sh): security_init MODE,
# see "a secured controller listener" below.
# shellcheck shell=bash

kq="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kafka-quorum.sh"
release_version=4.4-IV2
brokers=(4 5 6)
controllers=(1 2 3)
# A shorter session than Kafka's 9 s default keeps the fencing checks short.
# A kraft-rs controller that does not know the key logs "Ignoring unknown
# configuration broker.session.timeout.ms." and keeps the default.
session_ms=6000
session_s=6
d=           # the current cluster's directory (kafka-quorum.sh DIR)
tag=         # its label in the timings
cbs=         # its controllers, host:port,...
cluster_id=
declare -A bpid=() # broker id -> pid (children of this script)
timings=()
started=$EPOCHREALTIME
fast="$root/fast-client.properties"
: "${controller_props:=}" "${snapshot_timeout:=60}" "${max_snapshots:=100}" "${max_moves:=8}"
security=plaintext # the controller listener's (security_init)
# The client settings of the controller listener for quorum() and the
# tools: $fast, or security_init's controller-client.properties.
ctl_cfg=$fast
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
    if declare -F fail_hook >/dev/null; then fail_hook >&2 || true; fi
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

# shellcheck source=tests/interop/proc-lib.sh
source "${kq%/*}/proc-lib.sh"
# Brokers first: their controlled shutdown needs a controller.
stop_scenario() {
    local s=$1 id files=()
    for id in "${brokers[@]}"; do files+=("$s/node$id/pid"); done
    stop_pids "${files[@]}"
    stop_pids "$s"/node*/pid
    rm -f "$s"/node*/pid
}
# Every cluster under $root.
cleanup() {
    local s
    disown -a 2>/dev/null || true
    if declare -F cleanup_hook >/dev/null; then cleanup_hook || true; fi
    for s in "$root"/*/; do [[ -f $s/base-port ]] && stop_scenario "${s%/}"; done
    wait 2>/dev/null || true
}

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
    [[ -z $controller_props ]] || printf '%s\n' "$controller_props" >>"$nd/server.properties"
    [[ $security == plaintext ]] || node_security "$id" >>"$nd/server.properties"
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
    [[ -z $controller_props ]] || printf '%s\n' "$controller_props" >>"$nd/server.properties"
    [[ $security == plaintext ]] || node_security "$id" >>"$nd/server.properties"
}
# format_controller ID INITIAL_CONTROLLERS (run in the background: no fail);
# sasl_ssl: docs/operations.md's format command, with the brokers' SCRAM
# credentials (kafka-storage.sh format for a Java controller).
format_controller() {
    local id=$1 nd="$d/node$1"
    if [[ $security == sasl_ssl ]]; then
        local java=()
        [[ $(impl_of "$id") == kraft-rs ]] || java=("kraft storage format" "kafka-storage.sh format")
        set_format_fills "$nd/server.properties" "$2"
        doc_run sasl-ssl-format "${format_fills[@]}" ${java[@]+"${java[@]}"} >"$nd/format.log" 2>&1
    elif [[ $(impl_of "$id") == kraft-rs ]]; then
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
        echo "=== $script: kraft server at $(date '+%F %T')" >>"$nd/server.log"
        KRAFT_LOG=${KRAFT_LOG:-info} NO_COLOR=1 "$kraft" server --config "$nd/server.properties" >>"$nd/server.log" 2>&1 &
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
    timeout 20 "$kraft" metadata-quorum --bootstrap-controller "$bs" --command-config "$ctl_cfg" \
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
# The metadata log directory of controller ID (kraft-rs and Java alike).
metadata_dir() { echo "$d/node$1/data/__cluster_metadata-0"; }
# latest_snapshot ID: the name of controller ID's newest <offset>-<epoch>.checkpoint, or nothing.
latest_snapshot() { (cd "$(metadata_dir "$1")" 2>/dev/null && ls -- *.checkpoint 2>/dev/null | sort | tail -n 1) || true; }
# snapshot_offset NAME: a checkpoint's end offset (the first offset it does not contain).
snapshot_offset() { local b=${1##*/}; echo $((10#${b%%-*})); }
# leader_end_offset: the raft leader's LogEndOffset (describe --replication).
leader_end_offset() { quorum --replication | awk '$7 == "Leader" {print $3; exit}'; }
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
    for id in "${brokers[@]}"; do
        echo "Java broker" >"$d/node$id/role"
        # A later key overrides an earlier one.
        [[ $security == plaintext ]] || broker_security "$id" >>"$d/node$id/server.properties"
    done
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
    timing "$tag: controllers $*: start -> leader with 3 voters" "$(secs "$t0")"
    echo "  leader $(awk '/^LeaderId:/ {print $2}' <<<"$st") after $(secs "$t0")s"
}
# start_quorum MODE: three controllers in $d, kraft-rs (setup_controllers)
# or Java (kafka-quorum.sh start), broker.session.timeout.ms=$session_ms;
# sets cluster_id and cbs.
start_quorum() {
    local t0 id
    if [[ $1 == java ]]; then
        t0=$(now)
        KQ_CONTROLLER_PROPS="broker.session.timeout.ms=$session_ms${controller_props:+
$controller_props}" bash "$kq" start "$d" >/dev/null ||
            fail "kafka-quorum.sh start failed"
        for id in "${controllers[@]}"; do echo "Java controller" >"$d/node$id/role"; done
        cluster_id=$(cat "$d/cluster-id")
        cbs=$(bash "$kq" bootstrap "$d")
        timing "$tag: controllers java java java (kafka-quorum.sh start, incl. format)" "$(secs "$t0")"
    else
        setup_controllers kraft kraft kraft
    fi
    effective_session
}

# ---------- the controllers' images ----------
# compare_images: once every controller has a snapshot at or past the
# leader's end offset, the newest $max_snapshots snapshots of each and their
# metadata log segments (copies) are decoded by Kafka's DumpLogSegments
# --cluster-metadata-decoder in one call, and metadata-images.py checks
# that the logs agree record for record, that every snapshot of controller
# 1 holds the same image as the other controllers' nearest snapshots with
# only NoOp/LeaderChange records between them, and that the newest ones are
# equal (newer snapshots are awaited while image-changing records lie
# between them; $snapshot_timeout seconds in all). The controllers need a
# short metadata.log.max.snapshot.interval.ms (controller_props). Sets
# images_out to metadata-images.py's output (TERM, WRITES, PAIRS, FINAL,
# IMAGE and LOGS lines); fails on a difference.
images_py="${kq%/*}/metadata-images.py"
images_out=
compare_images() {
    local t0 deadline attempt=0 target id name ok rc out cdir spec list f
    t0=$(now)
    deadline=$((SECONDS + snapshot_timeout))
    while :; do
        attempt=$((attempt + 1))
        target=$(leader_end_offset)
        if ! [[ $target =~ ^[0-9]+$ ]]; then
            ((SECONDS < deadline)) || fail "$tag: no leader end offset (describe --replication: $(quorum --replication))"
            sleep 1
            continue
        fi
        # Every controller snapshots past the leader's end offset.
        while :; do
            ok=1
            for id in "${controllers[@]}"; do
                name=$(latest_snapshot "$id")
                [[ -n $name ]] && (($(snapshot_offset "$name") >= target)) || ok=0
            done
            ((ok)) && break
            ((SECONDS < deadline)) || fail "$tag: not every controller wrote a snapshot at or past offset $target within ${snapshot_timeout}s (newest: $(for id in "${controllers[@]}"; do printf '%s: %s ' "$id" "$(latest_snapshot "$id")"; done))"
            sleep 0.5
        done
        # Copies (a segment keeps growing, a file name must stay <offset>-<epoch>.checkpoint).
        cdir="$d/images$attempt"
        spec="$cdir/files"
        mkdir -p "$cdir"
        : >"$spec"
        list=
        for id in "${controllers[@]}"; do
            mkdir -p "$cdir/node$id"
            while IFS= read -r f; do
                cp "$(metadata_dir "$id")/$f" "$cdir/node$id/" || fail "cannot copy controller $id's $f"
                echo "$id $(impl_of "$id") snapshot $cdir/node$id/$f" >>"$spec"
                list+="${list:+,}$cdir/node$id/$f"
            done < <(cd "$(metadata_dir "$id")" && ls -- *.checkpoint | sort | tail -n "$max_snapshots")
            for f in "$(metadata_dir "$id")"/*.log; do
                cp "$f" "$cdir/node$id/" || fail "cannot copy controller $id's $f"
                echo "$id $(impl_of "$id") log $cdir/node$id/${f##*/}" >>"$spec"
                list+="${list:+,}$cdir/node$id/${f##*/}"
            done
        done
        tool org.apache.kafka.tools.DumpLogSegments --cluster-metadata-decoder --files "$list" >"$cdir/dump.txt" 2>&1 ||
            fail "$tag: Kafka's DumpLogSegments failed on the controllers' snapshots and logs: $(tail -n 20 "$cdir/dump.txt")"
        rc=0
        out=$(python3 "$images_py" "$cdir/dump.txt" "$spec" 1) || rc=$?
        case $rc in
        0) break ;;
        3)
            ((SECONDS < deadline)) || fail "$tag: the newest snapshots never bracketed a quiet stretch of the log within ${snapshot_timeout}s: $(grep '^RETRY' <<<"$out")"
            echo "  $(grep '^RETRY' <<<"$out"); newer snapshots"
            sleep 1
            ;;
        *) fail "$tag: the controllers' snapshots or logs (decoded by Kafka's DumpLogSegments, $cdir/dump.txt):
$out" ;;
        esac
    done
    timing "$tag: images: snapshots past the end offset, DumpLogSegments, compared" "$(secs "$t0")"
    images_out=$out
    local nsnaps
    nsnaps=$(awk '$3 == "snapshot" {n[$1]++} END {for (i in n) {printf "%s%s: %d", s, i, n[i]; s = ", "}}' "$spec")
    grep '^TERM' <<<"$out" | sed 's/^/  /' || true
    pass "Kafka's DumpLogSegments decoded every controller's snapshots (controller $nsnaps) and logs: $(grep '^LOGS' <<<"$out" | cut -c6-)"
    pass "$(grep '^PAIRS' <<<"$out" | cut -c7-): the same images"
    pass "$(grep '^FINAL' <<<"$out" | cut -c7-): $(grep '^IMAGE' <<<"$out" | cut -c7-)"
}

# ---------- leadership moves (authz.sh, secure.sh, topics.sh) ----------
# The caller sets cur once a leader is known; topics.sh has its own move.
cur=        # the raft leader
restarting= # the controller the last move restarted, not yet known to follow
restart_t0=
moves=0
leaders=()
# await_restarted: the controller the last move restarted follows the leader.
await_restarted() {
    [[ -n $restarting ]] || return 0
    local id=$restarting
    wait_follower "$id" 90 || fail "$tag: restarted controller $id does not follow leader $cur: $(quorum --replication)"
    # Awaited only when needed (before the next move, at the end): the
    # time is an upper bound.
    timing "$tag: restart controller $id ($(impl_of "$id")) -> follows (checked when needed)" "$(secs "$restart_t0")"
    pass "controller $id ($(impl_of "$id")) restarted and follows leader $cur (seen $(secs "$restart_t0")s after its start)"
    restarting=
}
# wait_brokers_use ID LINES_VAR SECONDS WHAT: every broker logs, after the
# lines counted in the associative array LINES_VAR, that it uses controller ID.
wait_brokers_use() {
    local nl=$1 deadline=$((SECONDS + $3)) id
    local -n lines_=$2
    for id in "${brokers[@]}"; do
        alive "$id" || continue # a broker a script killed on purpose
        until log_since "$d/node$id/server.log" "${lines_[$id]}" "Recorded new KRaft controller, from now on will use node .*\\(id: $nl " >/dev/null; do
            ((SECONDS < deadline)) || fail "$4: broker $id did not log that it uses controller $nl within $3s"
            sleep 0.3
        done
    done
}
# move: SIGTERM the leader (once a controller restarted before follows: two
# stopped controllers would leave no majority); a new leader, which every
# broker uses; the stopped controller restarts.
move() {
    await_restarted
    local l=$cur t0 nl id t_new
    # shellcheck disable=SC2034 # read by wait_brokers_use (a nameref)
    local -A lines=()
    moves=$((moves + 1))
    ((moves <= max_moves)) || fail "$max_moves leadership moves (leaders ${leaders[*]}) did not reach the wanted implementation"
    for id in "${brokers[@]}"; do lines[$id]=$(log_lines "$d/node$id/server.log"); done
    t0=$(now)
    kill_node "$l" TERM
    [[ $exit_rc == 0 || ($(impl_of "$l") == Java && $exit_rc == 143) ]] ||
        fail "move $moves: controller $l ($(impl_of "$l")) exited with status $exit_rc after SIGTERM"
    nl=$(wait_leader "$l" 60) || fail "move $moves: no new leader within 60s of stopping leader $l"
    t_new=$(secs "$t0")
    wait_brokers_use "$nl" lines 30 "move $moves"
    pass "move $moves: SIGTERM leader $l ($(impl_of "$l")): controller $nl ($(impl_of "$nl")) leads after ${t_new}s; every broker logs that it uses it"
    timing "move $moves: SIGTERM leader $l ($(impl_of "$l")) -> leader $nl ($(impl_of "$nl"))" "$t_new"
    cur=$nl
    leaders+=("$nl")
    restarting=$l
    restart_t0=$(now)
    start_controller "$l"
}
# lead_by IMPL: moves until an IMPL (kraft-rs or Java) controller leads;
# nothing when no controller is one.
lead_by() {
    local id any=
    for id in "${controllers[@]}"; do [[ $(impl_of "$id") == "$1" ]] && any=1; done
    [[ -n $any ]] || return 0
    while [[ $(impl_of "$cur") != "$1" ]]; do move; done
    echo "  controller $cur ($1) leads"
}

# ---------- topics and the workload (secure.sh, swap.sh, topics.sh) ----------
workload=org.kraftrs.interop.TopicWorkload
bs() { alive_bs "${brokers[@]}"; }
# kafka-topics --create (and the swap's add/remove-controller): the admin
# client's own timeouts, under the tools' 60 s.
create_config="$root/create-client.properties"
printf 'default.api.timeout.ms=40000\nrequest.timeout.ms=15000\n' >"$create_config"
# workload_brokers PARTITIONS: the brokers' KQ_BROKER_PROPS: topics only by
# kafka-topics; a __consumer_offsets of PARTITIONS that survives a broker;
# no 3 s wait before a group's first rebalance (TopicWorkload consume).
workload_brokers() {
    export KQ_BROKER_PROPS="auto.create.topics.enable=false
offsets.topic.replication.factor=3
offsets.topic.num.partitions=$1
group.initial.rebalance.delay.ms=0"
}

# ---------- docs/operations.md's blocks, run word for word ----------
# A fenced block right after a line "<!-- interop: ID -->" in
# docs/operations.md is what the scripts write or run: doc_fill fills in
# its placeholders, doc_run runs its commands. A missing block, a
# placeholder the doc no longer has or one left unfilled fails the script.
ops_md="$(cd "${kq%/*}/../.." && pwd)/docs/operations.md"
# doc_block ID: the block's lines (its fences' indentation removed).
doc_block() {
    awk -v mark="<!-- interop: $1 -->" '
        $0 == mark { want = 1; next }
        want == 1 && /^ *```/ { ind = index($0, "`") - 1; want = 2; next }
        want == 1 && NF { exit }
        want == 2 && /^ *```/ { exit }
        want == 2 { print substr($0, ind + 1); n++ }
        END { exit !n }' "$ops_md"
}
# doc_fill ID FROM TO...: doc_text is block ID with every FROM (literal
# text, each of which must occur) replaced by its TO, in order; no "<...>"
# placeholder may be left.
doc_text=
doc_fill() {
    local id=$1 from to
    shift
    doc_text=$(doc_block "$id") || fail "$ops_md has no block marked <!-- interop: $id --> (the interop scripts run it)"
    while (($# >= 2)); do
        from=$1 to=$2
        shift 2
        [[ $doc_text == *"$from"* ]] || fail "$ops_md, block $id: no '$from' to fill in:
$doc_text"
        doc_text=${doc_text//"$from"/"$to"}
    done
    local placeholder='<[A-Za-z][^<>]*>'
    if [[ $doc_text =~ $placeholder ]]; then
        fail "$ops_md, block $id: placeholder ${BASH_REMATCH[0]} not filled in:
$doc_text"
    fi
}
# doc_run ID FROM TO...: runs block ID's commands (doc_fill), one a line (a
# trailing \ joins the next), in this shell: kraft is $kraft, kafka-*.sh
# Kafka's tool classes (kafka-quorum.sh tool), cat is cat; any other
# program fails. Returns the first failed command's status.
doc_run() {
    local line cmd= prog rest
    doc_fill "$@"
    while IFS= read -r line; do
        if [[ $line == *\\ ]]; then
            cmd+="${line%\\} "
            continue
        fi
        cmd+=$line
        [[ $cmd =~ [^[:space:]] ]] || { cmd=; continue; }
        read -r prog rest <<<"$cmd"
        cmd=
        case $prog in
        kraft) eval "\"\$kraft\" $rest" || return ;;
        kafka-storage.sh) eval "tool kafka.tools.StorageTool $rest" || return ;;
        kafka-metadata-quorum.sh) eval "tool org.apache.kafka.tools.MetadataQuorumCommand $rest" || return ;;
        kafka-features.sh) eval "tool org.apache.kafka.tools.FeatureCommand $rest" || return ;;
        kafka-cluster.sh) eval "tool org.apache.kafka.tools.ClusterTool $rest" || return ;;
        cat) eval "cat $rest" || return ;;
        *) fail "$ops_md, block $1: doc_run does not know the program '$prog'" ;;
        esac
    done <<<"$doc_text"
}

# ---------- a secured controller listener (secure.sh, swap.sh) ----------
# security_init MODE CONTROLLER_ID...: MODE plaintext (nothing), mtls or
# sasl_ssl; certs.sh makes a CA and the certificates of the controllers
# named, of the brokers and of admin into $root/certs (subject
# CN=controller-N / CN=broker-N / CN=admin,OU=interop,O=kraft-rs; SAN
# DNS:localhost,IP:127.0.0.1). Then every controller written here gets
# node_security's keys, every broker formatted here broker_security's,
# format_controller adds the brokers' SCRAM credentials (sasl_ssl), and
# quorum() and ctl_cfg are a client of the secured listener (client_config).
#
# mtls: listener CONTROLLER is SSL with ssl.client.auth=required.
# Controller 1: docs/operations.md's block mtls-controller, its key store
# and the CA in PEM files (so that its key store can be rotated) and
# ssl.principal.mapping.rules. The other controllers and the brokers hold
# theirs inline, Strimzi's way (keystore.certificate.chain and
# keystore.key, one line each with "\n" escapes; truststore.certificates).
# sasl_ssl: docs/operations.md's blocks, word for word: sasl-ssl-controller
# (every controller, kraft-rs and Java, its own PKCS12 key store: PLAIN
# among the controllers, user controller), sasl-ssl-format (--add-scram of
# user broker's SCRAM-SHA-512 credentials), sasl-ssl-broker (the brokers
# log in as broker with SCRAM-SHA-512) and sasl-ssl-client (the tools'
# --command-config, user controller with PLAIN).
certs="$root/certs"
pw=
lc=listener.name.controller
controller_password=controller-secret
broker_password=broker-secret
# A fixed salt and iteration count: without them each controller's format
# draws its own salt, so the controllers' bootstrap snapshots
# (00000000000000000000-0000000000.checkpoint) hold different
# UserScramCredentialRecords and compare_images rightly finds them unequal.
scram_salt=c2VjdXJlLXNoLWJyb2tlci1zYWx0 # base64 of "secure-sh-broker-salt"
security_init() {
    security=$1
    shift
    case $security in
    plaintext) return 0 ;;
    mtls | sasl_ssl) ;;
    *) fail "security_init: no security mode $security" ;;
    esac
    local t0 id names=()
    t0=$(now)
    for id in "$@"; do names+=("controller-$id"); done
    for id in "${brokers[@]}"; do names+=("broker-$id"); done
    bash "${kq%/*}/certs.sh" "$certs" "${names[@]}" admin || fail "certs.sh failed"
    pw=$(cat "$certs/store-password")
    timing "certs.sh: CA, $((${#names[@]} + 1)) certificates, PKCS12 stores" "$(secs "$t0")"
    # Every block filled once here, so that a changed doc fails now
    # rather than in a background format.
    if [[ $security == mtls ]]; then
        doc_fill mtls-controller /etc/kraft/controller-1.pem k /etc/kraft/ca.crt c
    else
        node_security "${1:-1}" >/dev/null
        broker_security "${brokers[0]}" >/dev/null
        set_format_fills c v
        doc_fill sasl-ssl-format "${format_fills[@]}"
    fi
    ctl_cfg="$root/controller-client.properties"
    client_config "$ctl_cfg"
}
# set_format_fills CONFIG VOTERS: format_fills, doc_fill's arguments for
# docs/operations.md's format command (sasl_ssl); the release version must
# be the one the scripts expect.
format_fills=()
set_format_fills() {
    format_fills=(controller.properties "$1" "<cluster id>" "$cluster_id" "<voters>" "$2"
        "--release-version 4.4-IV2" "--release-version $release_version"
        "<broker secret>" "$broker_password" "<base64 salt>" "$scram_salt")
}
# pem_inline FILE: the file as one properties value ("\n" escapes).
pem_inline() { awk '{printf "%s\\n", $0}' "$1"; }
# node_security ID: controller ID's listener security (mtls: its own key
# store; sasl_ssl: docs/operations.md's block with its key store).
node_security() {
    local id=$1 name=controller-$1
    if [[ $security == sasl_ssl ]]; then
        doc_fill sasl-ssl-controller "<controller secret>" "$controller_password" "<store password>" "$pw" \
            /etc/kraft/controller-1.p12 "$certs/$name.p12" /etc/kraft/truststore.p12 "$certs/truststore.p12"
        printf '%s\n' "$doc_text"
    elif [[ $id == 1 ]]; then
        # A file, so that rotation can replace it.
        cp "$certs/$name.pem" "$d/node$id/keystore.pem"
        doc_fill mtls-controller /etc/kraft/controller-1.pem "$d/node$id/keystore.pem" /etc/kraft/ca.crt "$certs/ca.crt"
        printf '%s\n' "$doc_text"
    else
        printf '%s\n' "listener.security.protocol.map=CONTROLLER:SSL" "$lc.ssl.client.auth=required" \
            "$lc.ssl.keystore.type=PEM" \
            "$lc.ssl.keystore.certificate.chain=$(pem_inline "$certs/$name.chain.pem")" \
            "$lc.ssl.keystore.key=$(pem_inline "$certs/$name.key")" \
            "$lc.ssl.truststore.type=PEM" "$lc.ssl.truststore.certificates=$(pem_inline "$certs/ca.crt")"
    fi
}
# broker_security ID: broker ID's controller connections (its own client
# listener stays PLAINTEXT).
broker_security() {
    if [[ $security == sasl_ssl ]]; then
        doc_fill sasl-ssl-broker "<broker secret>" "$broker_password" "<store password>" "$pw" \
            /etc/kraft/truststore.p12 "$certs/truststore.p12"
        printf '%s\n' "$doc_text"
    else
        cat <<EOF
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:SSL
$lc.ssl.keystore.type=PEM
$lc.ssl.keystore.certificate.chain=$(pem_inline "$certs/broker-$1.chain.pem")
$lc.ssl.keystore.key=$(pem_inline "$certs/broker-$1.key")
$lc.ssl.truststore.type=PEM
$lc.ssl.truststore.certificates=$(pem_inline "$certs/ca.crt")
EOF
    fi
}
# client_security FILE [KEYSTORE] (mtls) or FILE [USER PASSWORD
# [MECHANISM]] (sasl_ssl): the security keys of a client of the controller
# listener into FILE (empty for plaintext). mtls: KEYSTORE is a PEM file
# (key and chain; default admin's), "none" for no client certificate;
# sasl_ssl: docs/operations.md's admin.properties (user controller, PLAIN)
# with another user, password or mechanism (SCRAM-SHA-512) filled in.
client_security() {
    local f=$1
    shift
    case $security in
    plaintext) : >"$f" ;;
    mtls)
        {
            echo "security.protocol=SSL"
            if [[ ${1:-} != none ]]; then
                echo "ssl.keystore.type=PEM"
                echo "ssl.keystore.location=${1:-$certs/admin.pem}"
            fi
            echo "ssl.truststore.type=PEM"
            echo "ssl.truststore.location=$certs/ca.crt"
        } >"$f"
        ;;
    sasl_ssl)
        local fills=("<controller secret>" "${2:-$controller_password}" "<store password>" "$pw"
            /etc/kraft/truststore.p12 "$certs/truststore.p12")
        [[ ${1:-controller} == controller ]] || fills+=('username="controller"' "username=\"$1\"")
        [[ ${3:-PLAIN} == PLAIN ]] || fills+=(sasl.mechanism=PLAIN "sasl.mechanism=$3"
            org.apache.kafka.common.security.plain.PlainLoginModule org.apache.kafka.common.security.scram.ScramLoginModule)
        doc_fill sasl-ssl-client "${fills[@]}"
        printf '%s\n' "$doc_text" >"$f"
        ;;
    esac
}
# client_config FILE [as client_security]: with timeouts: a tool answers
# or fails within ~10 s.
client_config() {
    local f=$1
    client_security "$@"
    printf 'default.api.timeout.ms=10000\nrequest.timeout.ms=5000\n' >>"$f"
}

# ---------- producers and consumers (TopicWorkload) ----------
# workload_logs: the tail of every log under $w (for a fail_hook).
workload_logs() {
    local f
    for f in "$w"/*.log; do
        [[ -f $f ]] || continue
        echo "--- ${f##*/}, tail:"
        grep -v '^\[' "$f" | tail -n 12 | cut -c1-400 || true
    done
}
# Used by swap.sh and reassign.sh, which set records, keys, rate, w (the
# workload directory), produce_timeout, consume_timeout and summaries=()
# and name the workload ($workload) and brokers (bs).
ppid_=
pname=
producer_alive() {
    [[ -n $ppid_ ]] || return 0
    kill -0 "$ppid_" 2>/dev/null && return 0
    local rc=0
    wait "$ppid_" 2>/dev/null || rc=$?
    ppid_=
    fail "producer $pname exited (status $rc) while still paced: $(grep -E '^(PRODUCED|FIRST_ACK)' "$w/$pname.log" | tr '\n' ' ')$( ((rc == 0)) && echo "(it sent all $records records while paced: raise the record count or lower the rate)")"
}
# last_progress: "ACKED FAILED" of the producer's last progress line (0 0 before the first).
last_progress() {
    local l
    l=$(grep '^progress' "$w/$pname.log" 2>/dev/null | tail -n 1 || true)
    [[ -n $l ]] || { echo "0 0"; return; }
    sed -n 's/.*acknowledged \([0-9]*\), failed \([0-9]*\),.*/\1 \2/p' <<<"$l"
}
progress_line() { grep '^progress' "$w/$pname.log" 2>/dev/null | tail -n 1 || true; }
# start_producer NAME TOPIC
start_producer() {
    pname=$1
    local t0 deadline
    t0=$(now)
    bash "$kq" java "$d" "$workload" produce "$(bs)" "$2" "$records" "$keys" "$rate" \
        "$w/$pname.acked" "$w/$pname.finish" >"$w/$pname.log" 2>&1 &
    ppid_=$!
    echo "$ppid_" >"$w/$pname.pid"
    deadline=$((SECONDS + 60))
    until grep -q '^FIRST_ACK' "$w/$pname.log" 2>/dev/null; do
        producer_alive
        ((SECONDS < deadline)) || fail "producer $pname: no acknowledged record 60s after its start"
        sleep 0.2
    done
    timing "$tag: producer $pname start -> first acknowledged record" "$(secs "$t0")"
    pass "producer $pname on topic $2: $(grep -m1 '^FIRST_ACK' "$w/$pname.log") (${rate} records/s)"
}
# finish_producer: the rest unpaced; every send acknowledged, none failed.
finish_producer() {
    producer_alive
    local t0 deadline rc=0 summary failed acked
    t0=$(now)
    touch "$w/$pname.finish"
    deadline=$((SECONDS + produce_timeout))
    while kill -0 "$ppid_" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    kill -0 "$ppid_" 2>/dev/null && fail "producer $pname did not finish within ${produce_timeout}s ($(progress_line))"
    wait "$ppid_" 2>/dev/null || rc=$?
    ppid_=
    rm -f "$w/$pname.pid"
    summary=$(grep '^PRODUCED' "$w/$pname.log" || true)
    [[ -n $summary ]] || fail "producer $pname exited (status $rc) without a summary"
    failed=$(sed -n 's/.* failed=\([0-9]*\).*/\1/p' <<<"$summary")
    acked=$(sed -n 's/.* acked=\([0-9]*\).*/\1/p' <<<"$summary")
    ((rc == 0 && failed == 0)) || fail "producer $pname: $failed of $records sends failed (status $rc): $summary
$(sed -n '/^send errors/,$p' "$w/$pname.log")"
    ((acked == records)) || fail "producer $pname: $acked of $records acknowledged: $summary"
    [[ $(grep -c '' "$w/$pname.acked") == "$acked" ]] || fail "producer $pname reported $acked acknowledged, its file has $(grep -c '' "$w/$pname.acked")"
    [[ $summary =~ finish_seen_at=([0-9]+) ]] && ((BASH_REMATCH[1] > 0)) ||
        fail "producer $pname ran out of records before it was told to finish: $summary"
    timing "$tag: paced phase over -> producer $pname done" "$(secs "$t0")"
    summaries+=("$pname: $summary")
    pass "producer $pname done: all $records sends acknowledged, none failed ($summary)"
}
# consume NAME TOPIC GROUP
consume() {
    local t0 rc=0
    t0=$(now)
    timeout "$((consume_timeout + 60))" bash "$kq" java "$d" "$workload" consume "$(bs)" "$2" "$3" \
        "$w/$1.acked" "$consume_timeout" >"$w/$1-consumer.log" 2>&1 || rc=$?
    ((rc != 124)) || fail "the consumer of $2 did not finish within $((consume_timeout + 60))s"
    ((rc == 0)) || fail "the consumer of $2 (group $3): checks failed (status $rc):
$(grep -v '^\[' "$w/$1-consumer.log" | tail -n 40)"
    timing "$tag: consumer group $3: start -> all of $2 read, committed, checked" "$(secs "$t0")"
    pass "consumer group $3 read $(sed -n 's/^CONSUMED .* consumed=\([0-9]*\).*/\1/p' "$w/$1-consumer.log") records of $2: $(grep '^CHECKS' "$w/$1-consumer.log" | cut -c8-)"
}
