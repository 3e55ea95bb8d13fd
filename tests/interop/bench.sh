#!/usr/bin/env bash
# The controller benchmark of `cargo xtask bench` (which builds the
# binaries, runs this, and writes docs/benchmarks.md from OUT_FILE):
# a kraft-rs 3-controller quorum against Java Kafka 4.4.0 ones, real
# processes on 127.0.0.1 and real disks, in one run.
#
#   bench.sh KRAFT BROKER_LOAD BENCH_FLOOR OUT_FILE
#
# Implementations (BENCH_IMPLS, default "kraft-rs kafka kafka-eq"):
# kraft-rs (`kraft storage format` + `kraft server`, cluster-lib.sh);
# kafka: Kafka's controllers (kafka-quorum.sh) with the JVM flags of
# kafka-server-start.sh / kafka-run-class.sh and Kafka's default
# configuration; kafka-eq: the same JVM, with controller.quorum.append.linger.ms
# (0: kraft-rs does not linger), the election and fetch timeouts set to
# kraft-rs's values. All quorums run
# from the start; one is measured at a time, the others idle. Every
# repeated measurement takes turns ABBA over the implementations.
#
# With the authorizer (BENCH_AUTHZ_IMPLS, default "kraft-rs-authz
# kafka-authz", in BENCH_QUICK "kraft-rs-authz"; "" for none): the same
# quorum as kraft-rs / kafka with
# authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer,
# super.users=User:admin;User:ANONYMOUS at the start (the controllers talk
# to each other over PLAINTEXT as User:ANONYMOUS, and before its ACLs are
# loaded an authorizer allows super users only), BENCH_AUTHZ_ACLS (default
# 1000) ACLs created by `broker_load --create-acls`, then every controller
# restarted in turn with super.users=User:admin only, so that from then on
# the bench's client (User:ANONYMOUS too) is no super user and every
# request is decided by the ACLs, before anything is timed: ANONYMOUS's grants
# (CLUSTER_ACTION, ALTER, DESCRIBE on the cluster; CREATE on the bench's
# topic prefixes, not on the cluster) among unrelated ACLs of other
# principals (crates/controller/benches/authz_workload.rs); every resource
# the bench touches then has ACLs, so every decision is made by the ACLs,
# never by the no-ACL default. A CreateTopics outside the granted prefixes
# must then be refused (TOPIC_AUTHORIZATION_FAILED), checked at setup.
# These run only in the commit section (latency and throughput), each right
# after its plain implementation in the ABBA order, and a run of theirs
# fails on any refused call.
#
# Over TLS and SASL (BENCH_TLS_IMPLS, default "kraft-rs-tls
# kraft-rs-sasl kafka-tls kafka-sasl", in BENCH_QUICK "kraft-rs-sasl"; ""
# for none): the same quorum as kraft-rs / kafka with its controller
# listener secured with Kafka's keys (certs.sh: one CA, one controller
# certificate shared by the three controllers, PKCS12 stores): `-tls` is
# mutual TLS (CONTROLLER:SSL, ssl.client.auth=required; the bench's client
# presents certificate admin), `-sasl` is SASL_SSL with PLAIN (the
# controllers among themselves and the bench's client log in as user
# controller). Both are started by cluster-lib's setup_controllers (Kafka's
# own with the keys kafka-quorum.sh writes), and every `broker_load` and
# `kraft` call on them reads the matching --command-config. They run in
# the commit section right after their plain implementation (ABBA
# alternates them), in the idle section, and in the tools section: `kraft
# metadata-quorum describe --status` and Kafka's tool over mutual TLS
# against the kafka-tls quorum (what=status-mtls; each run opens one TLS
# connection, so the handshake is in its time).
#
# Sections (each line of OUT_FILE is `IMPL KIND key=value ...`):
#  floor     BENCH_FLOOR on the work directory's disk, at the start and at
#            the end: fsync of a 4 KiB append, the same on three files at
#            once until two are durable, loopback round trip, spawn of
#            /bin/true (samples pooled in OUT_FILE.d/floor.txt); again before
#            each commit round (OUT_FILE.d/floor-commit.txt);
#  authz     (setup of each BENCH_AUTHZ_IMPLS quorum) the ACLs created, the
#            refusal checked;
#  idle      VmRSS and threads of every controller, quorums idle;
#  commit    BENCH_COMMITS one-topic CreateTopics (1 partition, RF 3, on 3
#            fake brokers held by `broker_load --hold`) one at a time straight
#            to the active controller (`broker_load --writer`), in BENCH_ROUNDS
#            (with BENCH_GAP_US, a pause of that many µs after each call);
#  throughput BENCH_TP_CONC connections sending the same calls back to back
#            for BENCH_TP_SECS, per round;
#  tools     wall time and peak RSS (GNU time) of `kraft metadata-quorum
#            describe --status|--replication` and of Kafka's
#            MetadataQuorumCommand (kafka-metadata-quorum.sh's class, with
#            kafka-run-class.sh's default JVM flags) against the `kafka` quorum;
#            describe --status over mutual TLS against kafka-tls (what=status-mtls);
#  cold      a standalone controller formatted and spawned: spawn to the first
#            DescribeQuorum that names a leader (`broker_load --wait-leader`,
#            no pause between polls), and first log line to the log's
#            leader-elected line;
#  voter     controller 4 formatted with --no-initial-controllers and started:
#            spawn to caught-up observer (catch-up over the log so far);
#            `kraft metadata-quorum add-controller --controller-id 4` and
#            `remove-controller --controller-id 4`, each from the command's
#            spawn to its exit, and to the voter set that shows it;
#  failover  BENCH_FAILOVERS times each: SIGKILL, then SIGTERM (graceful
#            handoff), of the leader while `broker_load --writer` commits
#            one-topic CreateTopics back to back; from the signal to the first
#            commit answered by another controller; the node is restarted;
#            each sample first waits (60 s at most, settle_s) until the
#            machine is under 30% busy over a second;
#  big       BENCH_BIG_TOPICS x BENCH_BIG_PARTITIONS partitions (RF 3) created
#            by `broker_load --create-topics`; every controller's VmRSS and the
#            leader's log size;
#  catchup   (full run only, not in BENCH_QUICK) per implementation of
#            BENCH_CATCHUP_IMPLS (default "kraft-rs kafka"), on fresh quorums
#            of its own (stopped and removed afterwards): the log grown by
#            that implementation to BENCH_CATCHUP_BYTES (default 1GiB;
#            nothing snapshotted or deleted) by rounds of 900 topics x 100
#            partitions created and deleted (`broker_load --create-topics` /
#            `--delete-topics`, 3 fake brokers held), then controller 4
#            (--no-initial-controllers) spawned: spawn to caught-up observer,
#            its VmRSS; then the same over a snapshot (16 MiB snapshots and
#            retention, 8 MiB segments, the log start moved above 0);
#  raft      (full run only, not in BENCH_QUICK) the raft layer driven
#            directly: 3 voters of kraft-rs's `raft_perf` example against
#            Kafka's own kafka.tools.TestRaftServer, committed bytes/s and
#            commit latency of 256-byte records at a ladder of target rates
#            (tests/interop/bench-raft.sh: BENCH_RAFT_SECS, BENCH_RAFT_ROUNDS,
#            BENCH_RAFT_THROUGHPUTS, BENCH_RAFT_RECORD_SIZE, BENCH_RAFT_PERF).
# Meanwhile every controller's VmRSS and threads are sampled twice a
# second into OUT_FILE.rss (`T_US IMPL NODE RSS_KB THREADS`); the writers'
# samples go to OUT_FILE.d/ (`END_US LATENCY_US TASK ADDRESS`).
#
# Environment: BENCH_QUICK=1 (CI: small counts, one kafka run, asserts
# only that every section produced its figures), BENCH_IMPLS,
# BENCH_AUTHZ_IMPLS, BENCH_AUTHZ_ACLS, BENCH_TLS_IMPLS, BENCH_ROUNDS,
# BENCH_COMMITS (per round and implementation), BENCH_GAP_US, BENCH_TP_CONC,
# BENCH_TP_SECS, BENCH_FAILOVERS, BENCH_TOOL_RUNS, BENCH_COLD_RUNS,
# BENCH_BIG_TOPICS, BENCH_BIG_PARTITIONS, BENCH_CATCHUP_BYTES (e.g. 64MiB),
# BENCH_CATCHUP_IMPLS, BENCH_SECTIONS (a subset of
# "idle commit tools cold voter failover big catchup raft", the default,
# without catchup and raft in BENCH_QUICK; the floor and
# the quorums always run), BENCH_KEEP=1 (keep the work
# directory), TMPDIR (where the work directory goes).
set -euo pipefail

kraft=${1:?usage: bench.sh KRAFT BROKER_LOAD BENCH_FLOOR OUT_FILE}
loadgen=${2:?usage: bench.sh KRAFT BROKER_LOAD BENCH_FLOOR OUT_FILE}
floorbin=${3:?usage: bench.sh KRAFT BROKER_LOAD BENCH_FLOOR OUT_FILE}
out=${4:?usage: bench.sh KRAFT BROKER_LOAD BENCH_FLOOR OUT_FILE}
for b in kraft loadgen floorbin; do
    case ${!b} in /*) ;; *) printf -v "$b" '%s' "$PWD/${!b}" ;; esac
    [[ -x ${!b} ]] || { echo "bench.sh: ${!b} is not executable" >&2; exit 2; }
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
# GNU time measures the tools' peak RSS; Debian's package `time` has it.
if [[ ! -x /usr/bin/time && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "bench.sh: installing GNU time with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2 ||
        echo "bench.sh: apt-get could not install time" >&2
fi
[[ -x /usr/bin/time ]] || { echo "bench.sh: needs GNU time (/usr/bin/time; apt-get install time)" >&2; exit 2; }
quick=${BENCH_QUICK:-}
if [[ -n $quick ]]; then
    impls=${BENCH_IMPLS:-kraft-rs kafka}
    rounds=${BENCH_ROUNDS:-2} commits=${BENCH_COMMITS:-40} tp_conc=${BENCH_TP_CONC:-8}
    tp_secs=${BENCH_TP_SECS:-3} failovers=${BENCH_FAILOVERS:-1} tool_runs=${BENCH_TOOL_RUNS:-1}
    cold_runs=${BENCH_COLD_RUNS:-1} big_topics=${BENCH_BIG_TOPICS:-100} big_partitions=${BENCH_BIG_PARTITIONS:-10}
else
    impls=${BENCH_IMPLS:-kraft-rs kafka kafka-eq}
    rounds=${BENCH_ROUNDS:-4} commits=${BENCH_COMMITS:-250} tp_conc=${BENCH_TP_CONC:-32}
    tp_secs=${BENCH_TP_SECS:-10} failovers=${BENCH_FAILOVERS:-4} tool_runs=${BENCH_TOOL_RUNS:-5}
    cold_runs=${BENCH_COLD_RUNS:-3} big_topics=${BENCH_BIG_TOPICS:-10000} big_partitions=${BENCH_BIG_PARTITIONS:-10}
fi
catchup_bytes=${BENCH_CATCHUP_BYTES:-1GiB} catchup_impls=${BENCH_CATCHUP_IMPLS:-kraft-rs kafka} catchup_timeout=900
read -ra order <<<"$impls"
for i in "${order[@]}"; do
    case $i in kraft-rs | kafka | kafka-eq) ;; *) echo "bench.sh: unknown implementation $i" >&2; exit 2 ;; esac
done
if [[ -n $quick ]]; then authz_impls=${BENCH_AUTHZ_IMPLS-kraft-rs-authz}; else authz_impls=${BENCH_AUTHZ_IMPLS-kraft-rs-authz kafka-authz}; fi
authz_acls=${BENCH_AUTHZ_ACLS:-1000}
read -ra authz_order <<<"$authz_impls"
if [[ -n $quick ]]; then tls_impls=${BENCH_TLS_IMPLS-kraft-rs-sasl}; else tls_impls=${BENCH_TLS_IMPLS-kraft-rs-tls kraft-rs-sasl kafka-tls kafka-sasl}; fi
read -ra tls_order <<<"$tls_impls"
variants=(${authz_order[@]+"${authz_order[@]}"} ${tls_order[@]+"${tls_order[@]}"})
# base_of VARIANT: the plain implementation a variant runs.
base_of() { local b=${1%-authz}; b=${b%-tls}; echo "${b%-sasl}"; }
# commit_order: order with each implementation's variants (authorizer,
# TLS, SASL_SSL) right after its plain one (ABBA then alternates them);
# all_impls: every quorum.
commit_order=()
for i in "${order[@]}"; do
    commit_order+=("$i")
    for a in ${variants[@]+"${variants[@]}"}; do [[ $(base_of "$a") == "$i" ]] && commit_order+=("$a"); done
done
for a in ${variants[@]+"${variants[@]}"}; do
    case $a in kraft-rs-authz | kafka-authz | kraft-rs-tls | kafka-tls | kraft-rs-sasl | kafka-sasl) ;; *) echo "bench.sh: unknown implementation $a" >&2; exit 2 ;; esac
    [[ " ${commit_order[*]} " == *" $a "* ]] || commit_order+=("$a")
done
all_impls=("${order[@]}")
for a in ${variants[@]+"${variants[@]}"}; do all_impls+=("$a"); done
authorizer_class=org.apache.kafka.metadata.authorizer.StandardAuthorizer
# kafka-server-start.sh's heap, kafka-run-class.sh's performance flags.
kafka_server_jvm="-Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"
# kafka-run-class.sh's heap for a tool.
kafka_tool_jvm="-Xmx256M -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"
# kraft-rs's effective values (crates/controller/src/config/settings.rs),
# given to kafka-eq: kraft-rs never lingers (its leader flushes what was
# appended as soon as the previous flush completes; the linger key is only
# accepted), so kafka-eq runs with a linger of 0.
ours_linger_ms=0 ours_election_ms=1000 ours_fetch_ms=2000
export KQ_JVM_FLAGS=$kafka_server_jvm
export KQ_START_TIMEOUT=240

root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-bench.XXXXXX")
samples="$out.d"
rm -rf "$samples"
mkdir -p "$samples"
: >"$out"
: >"$out.rss"
script=bench.sh
start_timeout=150
# shellcheck source=tests/interop/cluster-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster-lib.sh"
# Kafka's default session timeout on both.
session_ms=9000
stop_grace_s=20
impl=all
emit() {
    echo "$impl $*" >>"$out"
    echo "  $impl $*"
}
us_now() { local t=$EPOCHREALTIME; echo "${t/./}"; }
# fine_secs T0 [T1]: seconds from T0 to T1 (now), both $EPOCHREALTIME, to 0.1 ms.
fine_secs() { awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN {printf "%.4f", b - a}'; }
cleanup_hook() {
    [[ -f $root/sampler.pid ]] && kill "$(cat "$root/sampler.pid")" 2>/dev/null
    local f
    for f in "$root"/*/hold.pid "$root"/*/writer.pid; do [[ -f $f ]] && stop_pids "$f"; done
    return 0
}
trap cleanup EXIT

# The secured quorums' certificates and client configurations.
certs="$root/certs"
lc=listener.name.controller
plain_fast=$fast
sec_password=controller-secret
if ((${#tls_order[@]})); then
    bash "$(dirname "${BASH_SOURCE[0]}")/certs.sh" "$certs" controller admin ||
        fail "certs.sh failed"
    store_pw=$(cat "$certs/store-password")
    {
        echo "security.protocol=SSL"
        echo "ssl.keystore.type=PKCS12"
        echo "ssl.keystore.location=$certs/admin.p12"
        echo "ssl.keystore.password=$store_pw"
        echo "ssl.truststore.type=PKCS12"
        echo "ssl.truststore.location=$certs/truststore.p12"
        echo "ssl.truststore.password=$store_pw"
        cat "$plain_fast"
    } >"$root/client-tls.properties"
    {
        echo "security.protocol=SASL_SSL"
        echo "sasl.mechanism=PLAIN"
        echo "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"controller\" password=\"$sec_password\";"
        echo "ssl.truststore.type=PKCS12"
        echo "ssl.truststore.location=$certs/truststore.p12"
        echo "ssl.truststore.password=$store_pw"
        cat "$plain_fast"
    } >"$root/client-sasl.properties"
fi
# secured_props KIND: the controller keys of a -tls or -sasl quorum.
secured_props() {
    local stores="$lc.ssl.keystore.type=PKCS12
$lc.ssl.keystore.location=$certs/controller.p12
$lc.ssl.keystore.password=$store_pw
$lc.ssl.truststore.type=PKCS12
$lc.ssl.truststore.location=$certs/truststore.p12
$lc.ssl.truststore.password=$store_pw"
    if [[ $1 == tls ]]; then
        printf '%s\n' "listener.security.protocol.map=CONTROLLER:SSL" "$lc.ssl.client.auth=required" "$stores"
    else
        printf '%s\n' "listener.security.protocol.map=CONTROLLER:SASL_SSL" \
            "sasl.mechanism.controller.protocol=PLAIN" \
            "$lc.sasl.enabled.mechanisms=PLAIN" \
            "$lc.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"controller\" password=\"$sec_password\" user_controller=\"$sec_password\";" \
            "$stores"
    fi
}

declare -A cbs_of=() cid_of=()
# use IMPL: IMPL's quorum becomes the current one (cluster-lib's d, cbs,
# cluster_id; ctl_cfg, the --command-config of cluster-lib's `kraft` calls;
# lg_sec, broker_load's).
use() {
    impl=$1
    d="$root/$impl"
    cbs=${cbs_of[$impl]:-}
    cluster_id=${cid_of[$impl]:-}
    controller_props=
    ctl_cfg=$plain_fast
    lg_sec=()
    case $impl in
    *-tls | *-sasl)
        ctl_cfg="$root/client-${impl##*-}.properties"
        lg_sec=(--command-config "$ctl_cfg")
        controller_props=$(secured_props "${impl##*-}")
        ;;
    esac
    if [[ $impl == *-authz ]]; then
        controller_props="authorizer.class.name=$authorizer_class
super.users=User:admin;User:ANONYMOUS"
    fi
    if [[ $impl == kafka-eq ]]; then
        controller_props="controller.quorum.append.linger.ms=$ours_linger_ms
controller.quorum.election.timeout.ms=$ours_election_ms
controller.quorum.fetch.timeout.ms=$ours_fetch_ms"
    fi
}
kind_of() { [[ $1 == kraft-rs* ]] && echo kraft || echo java; }
# abba R [IMPL...]: the implementations (default: order) for round R, in
# their order, reversed every other round.
abba() {
    local r=$1 k
    shift
    local list=("$@")
    ((${#list[@]})) || list=("${order[@]}")
    if ((r % 2 == 1)); then echo "${list[@]}"; else
        for ((k = ${#list[@]} - 1; k >= 0; k--)); do printf '%s ' "${list[k]}"; done
        echo
    fi
}
leader_addr() { echo "127.0.0.1:$(port "$1")"; }

# hold_brokers FIRST_ID: 3 fake brokers registered and heartbeating
# (broker_load --hold) on the current quorum; hold_release stops them.
hold_brokers() {
    local fifo="$d/hold.in" deadline
    # The child truncates hold.out only once the FIFO below opens: the
    # previous hold's `ready` must not be read as this one's.
    rm -f "$fifo" "$d/hold.out"
    mkfifo "$fifo"
    "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" --hold 3 --first-id "$1" ${lg_sec[@]+"${lg_sec[@]}"} \
        --interval-ms 2000 <"$fifo" >"$d/hold.out" 2>"$d/hold.err" &
    echo $! >"$d/hold.pid"
    local fd
    exec {fd}>"$fifo"
    echo "$fd" >"$d/hold.fd"
    deadline=$((SECONDS + 90))
    until grep -q '^ready' "$d/hold.out" 2>/dev/null; do
        kill -0 "$(cat "$d/hold.pid")" 2>/dev/null || fail "broker_load --hold failed: $(tail -n 5 "$d/hold.err")"
        ((SECONDS < deadline)) || fail "broker_load --hold: brokers not unfenced within 90s"
        sleep 0.1
    done
}
hold_release() {
    local fd
    fd=$(cat "$d/hold.fd" 2>/dev/null) && eval "exec $fd>&-"
    rm -f "$d/hold.fd"
    stop_grace_s=10 stop_pids "$d/hold.pid"
    wait "$(cat "$d/hold.pid")" 2>/dev/null || true
    rm -f "$d/hold.pid"
}

# ---------- setup ----------
setup() {
    use "$1"
    echo "== $impl: three controllers"
    mkdir -p "$d"
    local t0
    t0=$(now)
    # The secured quorums: setup_controllers, whose `kraft` calls read the
    # client configuration (kafka-quorum.sh start waits with plain tools).
    if [[ $impl == kraft-rs* ]]; then
        setup_controllers kraft kraft kraft
    elif [[ $impl == *-tls || $impl == *-sasl ]]; then
        setup_controllers java java java
    else
        start_quorum java
    fi
    cbs_of[$impl]=$cbs
    cid_of[$impl]=$cluster_id
    emit "quorum start_s=$(secs "$t0") bootstrap=$cbs"
    [[ $impl != *-authz ]] || authz_setup
    if [[ $impl != kraft-rs* ]]; then
        local p
        p=$(pid_of 1)
        emit "jvm flags=$(tr '\0' '\n' <"/proc/$p/cmdline" | grep -E '^-X' | paste -sd, -) java=$(java -version 2>&1 | head -1 | sed 's/.*version "\([^"]*\)".*/\1/')"
        emit "settings $(grep -E '^controller\.quorum\.' "$d/node1/server.properties" | tr '\n' ' ')"
    fi
    if [[ $impl == *-tls || $impl == *-sasl ]]; then
        emit "secured protocol=$(sed -n 's/^listener.security.protocol.map=CONTROLLER://p' "$d/node1/server.properties" | tail -n 1) client_auth=$(sed -n "s/^$lc.ssl.client.auth=//p" "$d/node1/server.properties" | tail -n 1) mechanism=$(sed -n 's/^sasl.mechanism.controller.protocol=//p' "$d/node1/server.properties" | tail -n 1) store=PKCS12"
    fi
}
# authz_setup: the ACLs on the current quorum (authorizer on, ANONYMOUS a
# super user), every controller restarted in turn without ANONYMOUS among
# the super users, then a CreateTopics outside the granted prefixes, which
# must be refused.
authz_setup() {
    local line err id t0
    line=$(timeout 120 "$loadgen" --bootstrap "$cbs" --create-acls "$authz_acls" 2>"$d/acls.err") ||
        fail "broker_load --create-acls failed: $(tail -n 3 "$d/acls.err")"
    # The followers apply the ACLs soon after the leader commits them.
    sleep 1
    t0=$(now)
    for id in "${controllers[@]}"; do
        sed -i 's/^super\.users=.*/super.users=User:admin/' "$d/node$id/server.properties"
        kill_node "$id" TERM
        start_controller "$id"
        wait_follower "$id" 180 || fail "$impl: controller $id did not rejoin after its restart without ANONYMOUS as a super user"
    done
    controller_props=${controller_props/User:admin;User:ANONYMOUS/User:admin}
    line+=" restart_s=$(secs "$t0")"
    if timeout 60 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --create-topics "refused-:1:1:1" >/dev/null 2>"$d/refused.err"; then
        fail "$impl: a CreateTopics outside the granted prefixes was not refused"
    fi
    err=$(grep -o 'TOPIC_AUTHORIZATION_FAILED' "$d/refused.err" | head -n 1)
    [[ -n $err ]] || fail "$impl: a CreateTopics outside the granted prefixes failed otherwise: $(tail -n 3 "$d/refused.err")"
    emit "authz ${line#acls } refused=$err properties=$(paste -sd, <<<"$controller_props")"
}
sampler() {
    local n=0 f i id p line
    while ((n < 100000)); do
        for i in "${all_impls[@]}"; do
            for f in "$root/$i"/node*/pid; do
                [[ -f $f ]] || continue
                p=$(cat "$f" 2>/dev/null) || continue
                id=${f%/pid}
                id=${id##*/node}
                line=$(awk '/^VmRSS:/ {r = $2} /^Threads:/ {t = $2} END {print r, t}' "/proc/$p/status" 2>/dev/null) || continue
                [[ -n $line ]] && echo "$(us_now) $i $id $line" >>"$out.rss"
            done
        done
        n=$((n + 1))
        sleep 0.5
    done
}

# ---------- sections ----------
# floor_section WHEN: at the start and at the end of the run (pooled).
# floor_section WHEN [COUNT [POOL]]: bench_floor's samples into POOL
# (default floor.txt), its line with when=WHEN.
floor_section() {
    local line was=$impl count=${2:-$([[ -n $quick ]] && echo 300 || echo 1000)}
    impl=machine
    line=$("$floorbin" "$root" "$count") || fail "bench_floor failed"
    emit "$line when=$1"
    cat "$root/floor-samples.txt" >>"$samples/${3:-floor.txt}"
    impl=$was
}
idle_section() {
    local i id
    for i in "${order[@]}" ${tls_order[@]+"${tls_order[@]}"}; do
        use "$i"
        for id in "${controllers[@]}"; do
            emit "idle name=$id $(awk '/^VmRSS:/ {r = $2} /^Threads:/ {t = $2} END {printf "rss_kb=%s threads=%s", r, t}' "/proc/$(pid_of "$id")/status")"
        done
    done
}
# writer_run PREFIX ARGS...: broker_load --writer on the current quorum.
writer_run() {
    local prefix=$1
    shift
    timeout 300 "$loadgen" --bootstrap "$cbs" --writer "$prefix" ${lg_sec[@]+"${lg_sec[@]}"} "$@" 2>>"$d/writer.err" ||
        fail "broker_load --writer $prefix failed: $(tail -n 5 "$d/writer.err")"
}
# no_refusals LINE: fails when a run with the authorizer had failed calls
# (a refusal would make its figures those of an error path).
no_refusals() {
    [[ $impl != *-authz || $1 == *" errors=0 "* ]] || fail "$impl: calls failed with the authorizer on: $1 ($(tail -n 3 "$d/writer.err"))"
}
commit_section() {
    local r i line
    for i in "${commit_order[@]}"; do use "$i"; hold_brokers 100; done
    for ((r = 1; r <= rounds; r++)); do
        # The floor again, next to the rounds it is compared with (the
        # disk's fsync latency drifts over a run).
        floor_section "commit-round-$r" "$([[ -n $quick ]] && echo 100 || echo 300)" floor-commit.txt
        for i in $(abba "$r" "${commit_order[@]}"); do
            use "$i"
            echo "== $impl: commit latency, round $r"
            line=$(writer_run "lat$r-" --count "$commits" ${BENCH_GAP_US:+--gap-us "$BENCH_GAP_US"} --samples-out "$samples/commit-$impl-$r.txt")
            no_refusals "$line"
            emit "commit round=$r ${line#writer } samples=commit-$impl-$r.txt"
        done
    done
    for ((r = 1; r <= rounds; r++)); do
        for i in $(abba "$r" "${commit_order[@]}"); do
            use "$i"
            echo "== $impl: throughput, round $r"
            line=$(writer_run "tp$r-" --concurrency "$tp_conc" --for-secs "$tp_secs")
            no_refusals "$line"
            emit "throughput round=$r records_per_topic=2 ${line#writer }"
        done
    done
    for i in "${commit_order[@]}"; do use "$i"; hold_release; done
}
# timed_tool LABEL CMD...: one run under GNU time: wall seconds from the
# shell's clock around it (GNU time's %e has 10 ms steps; its spawn is in
# both implementations' figures), peak RSS from GNU time.
timed_tool() {
    local label=$1 t t0 t1 wall
    shift
    local all
    t0=$EPOCHREALTIME
    all=$(/usr/bin/time -f 'TIME %M' "$@" 2>&1 >/dev/null) || fail "$label failed: $(tail -n 3 <<<"$all")"
    t1=$EPOCHREALTIME
    wall=$(fine_secs "$t0" "$t1")
    t=$(grep '^TIME' <<<"$all" | tail -n 1)
    [[ $t == TIME* ]] || fail "$label: no timing"
    read -r _ rss <<<"$t"
    echo "wall_s=$wall peak_rss_kb=$rss"
}
tools_section() {
    local r what t target=kafka
    [[ " ${order[*]} " == *" kafka "* ]] || target=${order[0]}
    use "$target"
    for ((r = 1; r <= tool_runs; r++)); do
        for what in status replication; do
            local pair=(ours theirs)
            ((r % 2 == 0)) && pair=(theirs ours)
            for t in "${pair[@]}"; do
                if [[ $t == ours ]]; then
                    impl=kraft-rs
                    emit "tool what=$what run=$r against=$target $(timed_tool "kraft describe --$what" \
                        "$kraft" metadata-quorum --bootstrap-controller "$cbs" describe --"$what")"
                else
                    impl=kafka
                    emit "tool what=$what run=$r against=$target $(KQ_JVM_FLAGS=$kafka_tool_jvm timed_tool "kafka-metadata-quorum describe --$what" \
                        bash "$kq" tool "$d" org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$cbs" describe --"$what")"
                fi
            done
        done
    done
    tls_tools
}
# tls_tools: describe --status over mutual TLS, both tools with the same
# --command-config (a client certificate, PKCS12 stores), against the
# kafka-tls quorum (else kraft-rs-tls); what=status-mtls.
tls_tools() {
    local target= r t
    for t in kafka-tls kraft-rs-tls; do
        [[ " ${tls_order[*]-} " == *" $t "* ]] && { target=$t; break; }
    done
    [[ -n $target ]] || return 0
    use "$target"
    local cfg=$ctl_cfg
    for ((r = 1; r <= tool_runs; r++)); do
        local pair=(ours theirs)
        ((r % 2 == 0)) && pair=(theirs ours)
        for t in "${pair[@]}"; do
            if [[ $t == ours ]]; then
                impl=kraft-rs
                emit "tool what=status-mtls run=$r against=$target $(timed_tool "kraft describe --status over mTLS" \
                    "$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$cfg" describe --status)"
            else
                impl=kafka
                emit "tool what=status-mtls run=$r against=$target $(KQ_JVM_FLAGS=$kafka_tool_jvm timed_tool "kafka-metadata-quorum describe --status over mTLS" \
                    bash "$kq" tool "$d" org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$cbs" --command-config "$cfg" describe --status)"
            fi
        done
    done
}
# cold_once IMPL RUN: a fresh standalone controller, spawn to leader.
cold_once() {
    local i=$1 run=$2 save_d=$d save_cbs=$cbs save_cid=$cluster_id
    d="$root/$i-standalone-$run"
    cluster_id=$(bash "$kq" init "$d")
    cbs="127.0.0.1:$(port 1)"
    if [[ $i == kraft-rs ]]; then
        write_kraft_config 1
        "$kraft" storage format --config "$d/node1/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --standalone >"$d/node1/format.log" 2>&1 || fail "kraft storage format --standalone failed"
    else
        write_java_controller_config 1
        tool kafka.tools.StorageTool format --config "$d/node1/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --standalone >"$d/node1/format.log" 2>&1 || fail "kafka-storage format --standalone failed"
    fi
    local t0 line first elected pattern
    t0=$(us_now)
    start_controller 1
    line=$("$loadgen" --bootstrap "$cbs" --wait-leader 120 --since-us "$t0" 2>"$d/wait.err") ||
        fail "$i standalone: no leader: $(tail -n 3 "$d/wait.err")"
    if [[ $i == kraft-rs ]]; then
        first=$(grep -m1 -oE '^[0-9]{4}-[0-9-]+T[0-9:.]+Z' "$d/node1/server.log")
        elected=$(grep -m1 'the leader is 1\. leader=Some(1)' "$d/node1/server.log" | grep -oE '^[0-9]{4}-[0-9-]+T[0-9:.]+Z')
        first=$(date -d "$first" +%s.%N) elected=$(date -d "$elected" +%s.%N)
    else
        pattern='Completed transition to Leader'
        first=$(log_time "$(grep -m1 '^\[' "$d/node1/server.log")")
        elected=$(log_time "$(grep -m1 -F "$pattern" "$d/node1/server.log")")
    fi
    emit "cold run=$run spawn_to_leader_ms=$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^ms=/) print substr($i, 4)}' <<<"$line") log_first_to_leader_ms=$(awk -v a="$first" -v b="$elected" 'BEGIN {printf "%.1f", (b - a) * 1000}') spawn_to_first_log_ms=$(awk -v a="$t0" -v b="$first" 'BEGIN {printf "%.1f", (b - a / 1e6) * 1000}') polls=$(grep -o 'polls=[0-9]*' <<<"$line" | cut -d= -f2)"
    sleep 1
    emit "standalone_idle run=$run $(awk '/^VmRSS:/ {r = $2} /^Threads:/ {t = $2} END {printf "rss_kb=%s threads=%s", r, t}' "/proc/$(pid_of 1)/status")"
    stop_pids "$d/node1/pid"
    d=$save_d cbs=$save_cbs cluster_id=$save_cid
}
cold_section() {
    local r i
    for ((r = 1; r <= cold_runs; r++)); do
        for i in $(abba "$r"); do
            impl=$i
            echo "== $impl: cold start, run $r"
            cold_once "$i" "$r"
        done
    done
}
# log_bytes ID: the bytes of controller ID's log segments (*.log; Kafka's
# preallocated index files not counted).
log_bytes() { find "$(metadata_dir "$1")" -name '*.log' -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
# row ID: node ID's row of describe --replication.
row() { quorum --replication | awk -v id="$1" '$1 == id'; }
# format_observer ID: controller ID of the current quorum configured and
# formatted with --no-initial-controllers (it joins as an observer).
format_observer() {
    local id=$1 nd="$d/node$1"
    if [[ $impl == kraft-rs ]]; then
        write_kraft_config "$id"
        "$kraft" storage format --config "$nd/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --no-initial-controllers >"$nd/format.log" 2>&1 || fail "format of observer $id failed"
    else
        write_java_controller_config "$id"
        tool kafka.tools.StorageTool format --config "$nd/server.properties" --cluster-id "$cluster_id" \
            --release-version "$release_version" --no-initial-controllers >"$nd/format.log" 2>&1 || fail "format of observer $id failed"
    fi
}
voter_section() {
    local i id=4
    for i in "${order[@]}"; do
        use "$i"
        echo "== $impl: observer $id, add-controller, remove-controller"
        local nd="$d/node$id" log_bytes spawn_ms t0 deadline r res
        log_bytes=$(log_bytes "$(leader_id)")
        format_observer "$id"
        t0=$(now)
        spawn_ms=$(($(us_now) / 1000))
        start_controller "$id"
        deadline=$((SECONDS + 180))
        # Observer, caught up after the spawn (LastCaughtUpTimestamp), polled with no pause.
        until r=$(row "$id"); [[ $(awk '{print $7}' <<<"$r") == Observer ]] && (($(awk '{print $6}' <<<"$r") >= spawn_ms)) 2>/dev/null; do
            alive "$id" || fail "observer $id exited"
            ((SECONDS < deadline)) || fail "observer $id did not catch up within 180s: $r"
        done
        emit "catchup log_bytes=$log_bytes spawn_to_caught_up_s=$(secs "$t0") how=describe_replication_Observer_LastCaughtUpTimestamp>=spawn"
        deadline=$((SECONDS + 180))
        until "$kraft" cluster --bootstrap-controller "$cbs" --command-config "$fast" list-endpoints 2>/dev/null |
            awk 'NR > 1 {print $1}' | grep -qx "$id"; do
            ((SECONDS < deadline)) || fail "controller $id is not registered within 180s"
            sleep 0.2
        done
        local add_s remove_s t1
        t0=$EPOCHREALTIME
        res=$("$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" \
            add-controller --controller-id "$id" 2>&1) || fail "add-controller --controller-id $id failed: $res"
        t1=$EPOCHREALTIME
        add_s=$(fine_secs "$t0" "$t1")
        deadline=$((SECONDS + 60))
        until [[ $(row "$id" | awk '{print $7}') =~ ^(Follower|Leader)$ ]]; do
            ((SECONDS < deadline)) || fail "controller $id is not a voter 60s after add-controller"
        done
        emit "voter op=add command_s=$add_s to_voter_s=$(fine_secs "$t0")"
        t0=$EPOCHREALTIME
        res=$("$kraft" metadata-quorum --bootstrap-controller "$cbs" --command-config "$fast" \
            remove-controller --controller-id "$id" 2>&1) || fail "remove-controller --controller-id $id failed: $res"
        t1=$EPOCHREALTIME
        remove_s=$(fine_secs "$t0" "$t1")
        deadline=$((SECONDS + 60))
        until [[ $(row "$id" | awk '{print $7}') != Follower ]]; do
            ((SECONDS < deadline)) || fail "controller $id is still a voter 60s after remove-controller"
        done
        emit "voter op=remove command_s=$remove_s to_voter_s=$(fine_secs "$t0")"
        stop_pids "$nd/pid"
        rm -f "$nd/pid"
    done
}
# machine_busy_pct: the share of all cores busy over the next second.
machine_busy_pct() {
    local a b
    a=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit}' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6; exit}' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN {split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; idle = y[2] - x[2]; printf "%d", (busy + idle > 0 ? 100 * busy / (busy + idle) : 0)}'
}
# settle: waits (60 s at most) until the machine is quiet: a controller
# restarted by the previous sample (a JVM's start-up and JIT compilation
# take the cores for seconds) must not slow the next sample, of whichever
# implementation. Prints the seconds waited.
settle_quiet_pct=30
settle() {
    local t0 deadline
    t0=$(now)
    deadline=$((SECONDS + 60))
    while (($(machine_busy_pct) >= settle_quiet_pct)) && ((SECONDS < deadline)); do :; done
    secs "$t0"
}
# failover_once SIGNAL SAMPLE: the leader signalled under a steady writer.
failover_once() {
    local sig=$1 sample=$2 leader la wfile t_kill first deadline line wp settled
    settled=$(settle)
    leader=$(leader_id)
    [[ $leader =~ ^[0-9]+$ ]] || fail "no leader before failover"
    la=$(leader_addr "$leader")
    local first_id=$((200 + sample * 10))
    [[ $sig == KILL ]] || first_id=$((first_id + 100))
    hold_brokers "$first_id"
    wfile="$samples/failover-$impl-$sig-$sample.txt"
    "$loadgen" --bootstrap "$cbs" --writer "fo$sig$sample-" --for-secs 120 --samples-out "$wfile" \
        >"$d/writer.out" 2>>"$d/writer.err" &
    wp=$!
    echo "$wp" >"$d/writer.pid"
    deadline=$((SECONDS + 30))
    until [[ -s $wfile ]] && (($(wc -l <"$wfile") >= 20)); do
        kill -0 "$wp" 2>/dev/null || fail "broker_load --writer exited: $(tail -n 3 "$d/writer.err")"
        ((SECONDS < deadline)) || fail "broker_load --writer: no 20 commits within 30s"
        sleep 0.1
    done
    sleep 1
    t_kill=$(us_now)
    kill_node "$leader" "$sig"
    deadline=$((SECONDS + 60))
    while :; do
        first=$(awk -v t="$t_kill" -v a="$la" '$1 > t && $4 != a {print; exit}' "$wfile")
        [[ -n $first ]] && break
        ((SECONDS < deadline)) || fail "no commit under a new leader within 60s of SIG$sig"
        sleep 0.05
    done
    sleep 1
    kill -TERM "$wp" 2>/dev/null || true
    wait "$wp" 2>/dev/null || true
    rm -f "$d/writer.pid"
    hold_release
    local new_leader_addr=${first##* } last_old
    last_old=$(awk -v t="$t_kill" '$1 <= t {l = $1} END {print l}' "$wfile")
    emit "failover signal=$sig sample=$sample old_leader=$leader new_leader_address=$new_leader_addr kill_us=$t_kill to_first_commit_ms=$(awk -v a="$t_kill" -v b="${first%% *}" 'BEGIN {printf "%.1f", (b - a) / 1000}') last_commit_before_ms=$(awk -v a="$last_old" -v b="$t_kill" 'BEGIN {printf "%.1f", (b - a) / 1000}') exit_rc=$exit_rc settle_s=$settled samples=${wfile##*/}"
    start_controller "$leader"
    wait_follower "$leader" 180 || fail "controller $leader did not rejoin as a follower"
}
failover_section() {
    local r i sig
    for ((r = 1; r <= failovers; r++)); do
        for sig in KILL TERM; do
            for i in $(abba "$r"); do
                use "$i"
                echo "== $impl: failover by SIG$sig, sample $r"
                failover_once "$sig" "$r"
            done
        done
    done
}
big_section() {
    local i id line leader
    for i in "${order[@]}"; do
        use "$i"
        echo "== $impl: $big_topics x $big_partitions partitions"
        hold_brokers 500
        line=$(timeout 1200 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
            --create-topics "big-:$big_topics:$big_partitions:100" 2>"$d/big.err") ||
            fail "broker_load --create-topics big failed: $(tail -n 3 "$d/big.err")"
        emit "big_$line"
        sleep 3
        leader=$(leader_id)
        for id in "${controllers[@]}"; do
            emit "big_proc partitions=$((big_topics * big_partitions)) name=$id role=$([[ $id == "$leader" ]] && echo active || echo follower) $(awk '/^VmRSS:/ {r = $2} /^Threads:/ {t = $2} END {printf "rss_kb=%s threads=%s", r, t}' "/proc/$(pid_of "$id")/status") log_bytes=$(log_bytes "$id")"
        done
        hold_release
    done
}

# ---------- catchup (full run only) ----------
# size_bytes SIZE: 1073741824, 64MiB, 512KiB, 1GiB, 1G, 64M as bytes.
size_bytes() {
    local s=${1// /} n unit
    n=${s%%[!0-9]*}
    unit=${s#"$n"}
    [[ -n $n ]] || fail "BENCH_CATCHUP_BYTES: cannot read $1"
    case ${unit,,} in
    '' | b) echo "$n" ;;
    k | kb | kib) echo $((n * 1024)) ;;
    m | mb | mib) echo $((n * 1024 * 1024)) ;;
    g | gb | gib) echo $((n * 1024 * 1024 * 1024)) ;;
    *) fail "BENCH_CATCHUP_BYTES: unknown unit in $1" ;;
    esac
}
# first_segment ID: the base offset of controller ID's oldest log segment.
first_segment() {
    local f
    f=$(cd "$(metadata_dir "$1")" 2>/dev/null && ls -- *.log 2>/dev/null | sort | head -n 1) || true
    [[ -n $f ]] && echo $((10#${f%.log})) || echo 0
}
# catchup_round R: one round of the growth workload on the current quorum
# (fake brokers held): CATCHUP_TOPICS topics of 100 partitions (RF 3)
# created, 90 topics a call (below Kafka's 10000 records per operation),
# then deleted in one call, so that the log grows by their PartitionRecords
# while the image (and Kafka's heap) stays small.
cu_topics=900 cu_partitions=100 cu_batch=90
catchup_round() {
    local r=$1
    timeout 900 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --create-topics "cu$r-:$cu_topics:$cu_partitions:$cu_batch" >/dev/null 2>>"$d/grow.err" ||
        fail "catch-up round $r: create-topics failed: $(tail -n 3 "$d/grow.err")"
    timeout 900 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
        --delete-topics "cu$r-:$cu_topics:$cu_topics" >/dev/null 2>>"$d/grow.err" ||
        fail "catch-up round $r: delete-topics failed: $(tail -n 3 "$d/grow.err")"
}
# catchup_quorum IMPL KIND: a fresh 3-controller quorum of IMPL in
# $root/IMPL-catchup-KIND (its own ports), with KIND's log settings, and 3
# fake brokers held on it.
catchup_quorum() {
    local i=$1 kind=$2
    impl=$i
    d="$root/$i-catchup-$kind"
    cbs= cluster_id=
    mkdir -p "$d"
    if [[ $kind == log ]]; then
        # Nothing snapshotted away or deleted: no retention limit, no
        # snapshot by bytes (the largest value) or by time.
        controller_props="metadata.max.retention.bytes=-1
metadata.max.retention.ms=-1
metadata.log.max.record.bytes.between.snapshots=9223372036854775807
metadata.log.max.snapshot.interval.ms=0"
    else
        # A snapshot every 16 MiB of records, 8 MiB segments (the smallest
        # both accept), segments below the snapshot deleted past 16 MiB.
        controller_props="metadata.log.segment.bytes=8388608
metadata.max.retention.bytes=16777216
metadata.log.max.record.bytes.between.snapshots=16777216
metadata.log.max.snapshot.interval.ms=0"
    fi
    if [[ $i == kafka-eq ]]; then
        controller_props+="
controller.quorum.append.linger.ms=$ours_linger_ms
controller.quorum.election.timeout.ms=$ours_election_ms
controller.quorum.fetch.timeout.ms=$ours_fetch_ms"
    fi
    if [[ $i == kraft-rs ]]; then setup_controllers kraft kraft kraft; else start_quorum java; fi
    hold_brokers 700
}
# catchup_observe KIND EXTRA: controller 4 formatted with
# --no-initial-controllers and spawned on the current quorum; from the spawn
# to describe --replication showing it an Observer whose
# LastCaughtUpTimestamp is after the spawn (polled with no pause), then its
# VmRSS; emits `catchup_over kind=KIND ...`.
catchup_observe() {
    local kind=$1 extra=$2 id=4 nd="$d/node4" leader lb leo t0 spawn_ms deadline r s rss snap=none
    leader=$(leader_id)
    [[ $leader =~ ^[0-9]+$ ]] || fail "catch-up: no leader"
    lb=$(log_bytes "$leader")
    leo=$(leader_end_offset)
    format_observer "$id"
    t0=$(now)
    spawn_ms=$(($(us_now) / 1000))
    start_controller "$id"
    deadline=$((SECONDS + catchup_timeout))
    until r=$(row "$id"); [[ $(awk '{print $7}' <<<"$r") == Observer ]] && (($(awk '{print $6}' <<<"$r") >= spawn_ms)) 2>/dev/null; do
        alive "$id" || fail "catch-up observer $id exited"
        ((SECONDS < deadline)) || fail "catch-up observer $id did not catch up within ${catchup_timeout}s: $r"
    done
    s=$(secs "$t0")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$(pid_of "$id")/status" 2>/dev/null) || rss=
    if [[ $kind == snapshot ]]; then
        snap=$(latest_snapshot "$id")
    else
        extra+=" bytes_per_s=$(awk -v b="$lb" -v s="$s" 'BEGIN {printf "%.0f", (s > 0 ? b / s : 0)}')"
    fi
    emit "catchup_over kind=$kind log_bytes=$lb leader_end_offset=$leo $extra spawn_to_caught_up_s=$s rss_kb=${rss:-?} observer_end_offset=$(awk '{print $3}' <<<"$r") observer_lag=$(awk '{print $4}' <<<"$r") observer_snapshot=${snap:-none} how=describe_replication_Observer_LastCaughtUpTimestamp>=spawn"
}
catchup_done() {
    hold_release
    stop_scenario "$d"
    [[ -n ${BENCH_KEEP:-} ]] || rm -rf "$d"
}
# catchup_section: per implementation, over a ~BENCH_CATCHUP_BYTES log
# (nothing snapshotted or deleted), then over a snapshot (the log start
# moved above 0), each on a fresh quorum of that implementation that
# writes the same workload itself.
catchup_section() {
    local i t0 target r lb leader extra snap deadline
    target=$(size_bytes "$catchup_bytes")
    for i in "${order[@]}"; do
        [[ " $catchup_impls " == *" $i "* ]] || continue
        # ---- over the log
        catchup_quorum "$i" log
        echo "== $impl: catch-up over a log of $target bytes"
        t0=$(now)
        r=0 lb=0
        while ((lb < target)); do
            r=$((r + 1))
            catchup_round "$r"
            leader=$(leader_id)
            lb=$(log_bytes "$leader")
            ((r % 10 == 0)) && echo "  round $r: $lb bytes, $(secs "$t0")s"
            ((r <= 100000)) || fail "catch-up: the log does not grow"
        done
        extra="target_bytes=$target rounds=$r partitions_per_round=$((cu_topics * cu_partitions)) grow_s=$(secs "$t0")"
        sleep 1
        catchup_observe log "$extra"
        catchup_done
        # ---- over a snapshot
        catchup_quorum "$i" snapshot
        echo "== $impl: catch-up over a snapshot"
        t0=$(now)
        r=0
        # At least 3 rounds (~33 MiB of records: two snapshots, the 16 MiB
        # retention exceeded) and until the leader has a snapshot above
        # offset 0, then (no writes) until the segments below a snapshot are
        # gone (Kafka cleans once a minute).
        while :; do
            r=$((r + 1))
            catchup_round "$r"
            leader=$(leader_id)
            snap=$(latest_snapshot "$leader")
            [[ -n $snap ]] && (($(snapshot_offset "$snap") > 0 && r >= 3)) && break
            ((r < 40)) || fail "catch-up: no snapshot above 0 after $r rounds (${snap:-none})"
        done
        deadline=$((SECONDS + 150))
        until (($(first_segment "$(leader_id)") > 0)); do
            ((SECONDS < deadline)) || fail "catch-up: the log start did not move within 150s of snapshot $snap"
            sleep 1
        done
        # A tail after the snapshot, and topics kept in the image.
        timeout 900 "$loadgen" --bootstrap "$cbs" --cluster-id "$cluster_id" \
            --create-topics "cukeep-:100:100:$cu_batch" >/dev/null 2>>"$d/grow.err" ||
            fail "catch-up: create-topics cukeep- failed: $(tail -n 3 "$d/grow.err")"
        sleep 1
        leader=$(leader_id)
        snap=$(latest_snapshot "$leader")
        # tail_records: what the observer fetches after the snapshot.
        extra="rounds=$r grow_s=$(secs "$t0") snapshot_bytes=$(stat -c %s "$(metadata_dir "$leader")/$snap") snapshot_offset=$(snapshot_offset "$snap") tail_records=$(($(leader_end_offset) - $(snapshot_offset "$snap"))) log_start_offset=$(first_segment "$leader") kept_partitions=10000"
        catchup_observe snapshot "$extra"
        catchup_done
    done
}

# ---------- the run ----------
echo "bench.sh: work directory $root"
started_us=$(us_now)
impl=machine
emit "run quick=${quick:-0} impls=${impls// /,} authz_impls=$(IFS=,; echo "${authz_order[*]}") tls_impls=$(IFS=,; echo "${tls_order[*]}") authz_acls=$authz_acls rounds=$rounds commits=$commits tp_conc=$tp_conc tp_secs=$tp_secs failovers=$failovers tool_runs=$tool_runs cold_runs=$cold_runs big_topics=$big_topics big_partitions=$big_partitions dir=$root"
floor_section start
for i in "${all_impls[@]}"; do setup "$i"; done
sampler &
echo $! >"$root/sampler.pid"
sleep 3
default_sections="idle commit tools cold voter failover big"
[[ -n $quick ]] || default_sections+=" catchup"
[[ -n $quick ]] || default_sections+=" raft"
# shellcheck source=tests/interop/bench-raft.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench-raft.sh"
sections=" ${BENCH_SECTIONS:-$default_sections} "
for s in idle commit tools cold voter failover big catchup raft; do
    [[ $sections == *" $s "* ]] && "${s}_section"
done
for i in "${all_impls[@]}"; do use "$i"; stop_scenario "$d"; done
kill "$(cat "$root/sampler.pid")" 2>/dev/null || true
rm -f "$root/sampler.pid"
floor_section end
impl=machine
emit "done seconds=$(awk -v a="$started_us" -v b="$(us_now)" 'BEGIN {printf "%.1f", (b - a) / 1e6}')"
if [[ -z ${BENCH_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
