#!/usr/bin/env bash
# A real Apache Kafka 4.4.0 KRaft controller quorum on 127.0.0.1, for the
# kraft-rs admin/CLI interop tests.
#
#   kafka-quorum.sh start DIR              format and start controllers 1-3 (dynamic quorum),
#                                          wait for a leader and for all three registrations
#   kafka-quorum.sh add-observer DIR ID    format (--no-initial-controllers) and start controller ID,
#                                          which joins as an observer; wait until it is registered
#   kafka-quorum.sh add-broker DIR ID      format and start broker ID (PLAINTEXT listener);
#                                          wait until it is registered and unfenced
#   kafka-quorum.sh init DIR [CLUSTER_ID]  prepare DIR for nodes without `start` (e.g. brokers of
#                                          kraft-rs controllers): ports, logging, DIR/cluster-id
#                                          (CLUSTER_ID, or a random one); prints the cluster id
#   kafka-quorum.sh format-broker DIR ID   write broker ID's server.properties and format it (no start)
#   kafka-quorum.sh start-node DIR ID      start a formatted node in the background (no wait)
#   kafka-quorum.sh run-node DIR ID        run a formatted node in the foreground (exec, log appended):
#                                          a caller that backgrounds it gets the JVM's pid and exit status
#   kafka-quorum.sh stop-node DIR ID       stop one node
#   kafka-quorum.sh stop DIR               stop every node started in DIR
#   kafka-quorum.sh tool DIR CLASS ARGS..  run a Kafka tool class (e.g. org.apache.kafka.tools.MetadataQuorumCommand)
#   kafka-quorum.sh java DIR CLASS ARGS..  run a class of kafka-quorum/src/main/java (e.g. org.kraftrs.interop.TopicWorkload)
#                                          on the Kafka classpath, compiled first when a source is newer; no time limit
#   kafka-quorum.sh port DIR ID            print node ID's port
#   kafka-quorum.sh bootstrap DIR          print host:port,... of controllers 1-3
#
# DIR receives one directory per node (server.properties, data, server.log,
# pid). Ports: KQ_BASE_PORT+ID (default: a free range chosen at start and
# remembered in DIR/base-port). Needs a JDK 17+ and Maven: the first run
# downloads Kafka 4.4.0 into ~/.m2 (tests/interop/kafka-quorum/pom.xml).
# Environment: MVN (default mvn), JAVA (default java), KQ_START_TIMEOUT
# (seconds, default 120), KQ_CONTROLLER_PROPS (extra lines appended to each
# controller's server.properties written by start/add-observer; a later key
# overrides an earlier one), KQ_BOOTSTRAP_SERVERS (controller.quorum.bootstrap.servers
# of the brokers written by add-broker/format-broker; default: controllers 1-3
# of DIR), KQ_BROKER_PROPS (extra lines appended to each broker's
# server.properties), KQ_BROKER_JBOD (non-empty: each broker gets a second
# log directory, DIR/nodeID/data2), KQ_JVM_FLAGS (the JVM flags of every node and tool run
# here, split on blanks, instead of the small-heap defaults below; e.g.
# kafka-server-start.sh's `-Xmx1G -Xms1G` with G1).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project="$here/kafka-quorum"
mvn_cmd=${MVN:-mvn}
java_cmd=${JAVA:-java}
start_timeout=${KQ_START_TIMEOUT:-120}
release_version=4.4-IV2

die() { echo "kafka-quorum.sh: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 2 ]] || usage
cmd=$1
dir=$2
shift 2
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac

# shellcheck source=tests/interop/ensure-tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/ensure-tools.sh"
command -v "$java_cmd" >/dev/null || die "'$java_cmd' not found (need a JDK 17+)"

classpath() {
    local cp_file="$project/target/classpath.txt"
    if [[ ! -s $cp_file ]]; then
        command -v "$mvn_cmd" >/dev/null || die "'$mvn_cmd' not found (need Maven)"
        local log
        log=$(mktemp)
        if ! "$mvn_cmd" -q -B -o -f "$project/pom.xml" compile >"$log" 2>&1; then
            if ! "$mvn_cmd" -q -B -f "$project/pom.xml" compile >"$log" 2>&1; then
                cat "$log" >&2
                rm -f "$log"
                die "maven could not resolve Kafka 4.4.0"
            fi
        fi
        rm -f "$log"
    fi
    cat "$cp_file"
}

# The classpath with kafka-quorum/target/classes first, compiled when a
# source under src/main/java is newer than its class (or has none).
classes_classpath() {
    local src stale=0 f cls
    src="$project/src/main/java"
    while IFS= read -r f; do
        cls="$project/target/classes/${f#"$src"/}"
        cls=${cls%.java}.class
        [[ -f $cls && ! $f -nt $cls ]] || { stale=1; break; }
    done < <(find "$src" -name '*.java')
    if ((stale)); then
        command -v "$mvn_cmd" >/dev/null || die "'$mvn_cmd' not found (need Maven)"
        local log
        log=$(mktemp)
        if ! "$mvn_cmd" -q -B -o -f "$project/pom.xml" compile >"$log" 2>&1 &&
            ! "$mvn_cmd" -q -B -f "$project/pom.xml" compile >"$log" 2>&1; then
            cat "$log" >&2
            rm -f "$log"
            die "mvn compile of $project failed"
        fi
        rm -f "$log"
    fi
    echo "$project/target/classes:$(classpath)"
}

# JVM flags: small heaps and a fast start; the machine is shared.
jvm_flags=(-Xms64m -Xmx320m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true)
if [[ -n ${KQ_JVM_FLAGS:-} ]]; then read -ra jvm_flags <<<"$KQ_JVM_FLAGS"; fi

run_tool() {
    local class=$1
    shift
    # Tools log warnings only, to stderr. No hsperfdata file: the JVM warns
    # on stdout when a stale one holds its pid, and scripts compare the
    # tools' stdout.
    timeout 60 "$java_cmd" "${jvm_flags[@]}" -XX:-UsePerfData -Dlog4j2.configurationFile="$dir/tools-log4j2.properties" \
        -cp "$(classpath)" "$class" "$@"
}

base_port() {
    if [[ -f $dir/base-port ]]; then
        cat "$dir/base-port"
        return
    fi
    local base=${KQ_BASE_PORT:-}
    if [[ -z $base ]]; then
        # Find 10 consecutive free ports, below the kernel's ephemeral range
        # (32768+ by default): a port there can be taken as the source port
        # of a connection between the time it is checked and the bind.
        local try
        for _ in $(seq 1 50); do
            try=$((20000 + RANDOM % 12000))
            local free=1
            for i in $(seq 0 9); do
                if (exec 3<>"/dev/tcp/127.0.0.1/$((try + i))") 2>/dev/null; then free=0; break; fi
            done
            if [[ $free == 1 ]]; then base=$try; break; fi
        done
        [[ -n $base ]] || die "no free port range found"
    fi
    mkdir -p "$dir"
    echo "$base" >"$dir/base-port"
    echo "$base"
}

port_of() { echo $(($(base_port) + $1)); }

bootstrap() {
    echo "127.0.0.1:$(port_of 1),127.0.0.1:$(port_of 2),127.0.0.1:$(port_of 3)"
}

random_uuid() {
    # Kafka's text form: unpadded base64url of 16 random bytes, not starting with '-'.
    local u
    while :; do
        u=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
        [[ $u != -* ]] && { echo "$u"; return; }
    done
}

write_logging() {
    cat >"$dir/server-log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = STDOUT
EOF
    cat >"$dir/tools-log4j2.properties" <<'EOF'
status = error
appender.console.type = Console
appender.console.name = STDERR
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = STDERR
EOF
}

write_config() {
    local id=$1
    local node_dir="$dir/node$id"
    mkdir -p "$node_dir"
    cat >"$node_dir/server.properties" <<EOF
process.roles=controller
node.id=$id
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$(port_of "$id")
advertised.listeners=CONTROLLER://127.0.0.1:$(port_of "$id")
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=$(bootstrap)
log.dirs=$node_dir/data
metadata.log.dir=$node_dir/data
EOF
    if [[ -n ${KQ_CONTROLLER_PROPS:-} ]]; then
        printf '%s\n' "$KQ_CONTROLLER_PROPS" >>"$node_dir/server.properties"
    fi
}

write_broker_config() {
    local id=$1
    local node_dir="$dir/node$id"
    mkdir -p "$node_dir"
    cat >"$node_dir/server.properties" <<EOF
process.roles=broker
node.id=$id
listeners=PLAINTEXT://127.0.0.1:$(port_of "$id")
advertised.listeners=PLAINTEXT://127.0.0.1:$(port_of "$id")
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=${KQ_BOOTSTRAP_SERVERS:-$(bootstrap)}
log.dirs=$node_dir/data${KQ_BROKER_JBOD:+,$node_dir/data2}
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
share.coordinator.state.topic.replication.factor=1
EOF
    if [[ -n ${KQ_BROKER_PROPS:-} ]]; then
        printf '%s\n' "$KQ_BROKER_PROPS" >>"$node_dir/server.properties"
    fi
}

format_broker() {
    local id=$1
    [[ -f $dir/cluster-id ]] || die "no quorum in $dir"
    write_broker_config "$id"
    run_tool kafka.tools.StorageTool format --config "$dir/node$id/server.properties" \
        --cluster-id "$(cat "$dir/cluster-id")" --release-version "$release_version" \
        >"$dir/node$id/format.log" 2>&1 ||
        { cat "$dir/node$id/format.log" >&2; die "format of broker $id failed"; }
}

start_node() {
    local id=$1
    local node_dir="$dir/node$id"
    if [[ -f $node_dir/pid ]] && kill -0 "$(cat "$node_dir/pid")" 2>/dev/null; then
        die "controller $id is already running (pid $(cat "$node_dir/pid"))"
    fi
    nohup "$java_cmd" "${jvm_flags[@]}" -Dlog4j2.configurationFile="$dir/server-log4j2.properties" \
        -cp "$(classpath)" kafka.Kafka "$node_dir/server.properties" >"$node_dir/server.log" 2>&1 &
    echo $! >"$node_dir/pid"
}

stop_node() {
    local id=$1
    local pid_file="$dir/node$id/pid"
    [[ -f $pid_file ]] || return 0
    local pid
    pid=$(cat "$pid_file")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 60); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pid_file"
}

stop_all() {
    local f
    for f in "$dir"/node*/pid; do
        [[ -f $f ]] || continue
        local id=${f%/pid}
        id=${id##*/node}
        stop_node "$id"
    done
}

# Waits until `describe --status` names a leader and `list-endpoints` lists
# the controllers in $@ (registrations).
wait_ready() {
    local deadline=$((SECONDS + start_timeout))
    local bs
    bs=$(bootstrap)
    while ((SECONDS < deadline)); do
        local status endpoints ok=1
        if status=$(run_tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$bs" describe --status 2>/dev/null) &&
            grep -q '^LeaderId: *[0-9]' <<<"$status" &&
            endpoints=$(run_tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-controller "$bs" 2>/dev/null); then
            local id
            for id in "$@"; do
                grep -q "^$id " <<<"$endpoints" || ok=0
            done
            if [[ $ok == 1 ]]; then
                return 0
            fi
        fi
        local f
        for f in "$dir"/node*/pid; do
            [[ -f $f ]] || continue
            if ! kill -0 "$(cat "$f")" 2>/dev/null; then
                echo "kafka-quorum.sh: ${f%/pid} died; last log lines:" >&2
                tail -n 30 "${f%/pid}/server.log" >&2 || true
                return 1
            fi
        done
        sleep 1
    done
    echo "kafka-quorum.sh: quorum not ready after ${start_timeout}s" >&2
    return 1
}

case $cmd in
start)
    [[ ! -e $dir/node1 ]] || die "$dir already holds a quorum (stop it and remove the directory first)"
    mkdir -p "$dir"
    base_port >/dev/null
    write_logging
    cluster_id=$(random_uuid)
    echo "$cluster_id" >"$dir/cluster-id"
    initial=""
    for id in 1 2 3; do
        write_config "$id"
        dir_id=$(random_uuid)
        echo "$dir_id" >"$dir/node$id/directory-id"
        initial+="${initial:+,}$id@127.0.0.1:$(port_of "$id"):$dir_id"
    done
    for id in 1 2 3; do
        run_tool kafka.tools.StorageTool format --config "$dir/node$id/server.properties" \
            --cluster-id "$cluster_id" --release-version "$release_version" \
            --initial-controllers "$initial" >"$dir/node$id/format.log" 2>&1 ||
            { cat "$dir/node$id/format.log" >&2; die "format of controller $id failed"; }
    done
    for id in 1 2 3; do start_node "$id"; done
    if ! wait_ready 1 2 3; then
        stop_all
        exit 1
    fi
    echo "quorum ready: cluster $cluster_id, controllers $(bootstrap)"
    ;;
add-observer)
    [[ $# -eq 1 ]] || usage
    id=$1
    [[ -f $dir/cluster-id ]] || die "no quorum in $dir"
    write_config "$id"
    run_tool kafka.tools.StorageTool format --config "$dir/node$id/server.properties" \
        --cluster-id "$(cat "$dir/cluster-id")" --release-version "$release_version" \
        --no-initial-controllers >"$dir/node$id/format.log" 2>&1 ||
        { cat "$dir/node$id/format.log" >&2; die "format of controller $id failed"; }
    start_node "$id"
    if ! wait_ready 1 2 3 "$id"; then
        stop_node "$id"
        exit 1
    fi
    echo "controller $id running as an observer on 127.0.0.1:$(port_of "$id")"
    ;;
add-broker)
    [[ $# -eq 1 ]] || usage
    id=$1
    format_broker "$id"
    start_node "$id"
    deadline=$((SECONDS + start_timeout))
    ready=0
    while ((SECONDS < deadline)); do
        if endpoints=$(run_tool org.apache.kafka.tools.ClusterTool list-endpoints \
            --bootstrap-server "127.0.0.1:$(port_of "$id")" 2>/dev/null) &&
            grep -q "^$id .* unfenced " <<<"$endpoints"; then
            ready=1
            break
        fi
        if ! kill -0 "$(cat "$dir/node$id/pid")" 2>/dev/null; then
            tail -n 30 "$dir/node$id/server.log" >&2 || true
            break
        fi
        sleep 1
    done
    if [[ $ready != 1 ]]; then
        stop_node "$id"
        die "broker $id did not become ready"
    fi
    echo "broker $id running on 127.0.0.1:$(port_of "$id")"
    ;;
init)
    [[ $# -le 1 ]] || usage
    [[ ! -e $dir/cluster-id ]] || die "$dir already holds a cluster"
    mkdir -p "$dir"
    base_port >/dev/null
    write_logging
    cluster_id=${1:-$(random_uuid)}
    echo "$cluster_id" >"$dir/cluster-id"
    echo "$cluster_id"
    ;;
format-broker)
    [[ $# -eq 1 ]] || usage
    format_broker "$1"
    ;;
start-node)
    [[ $# -eq 1 ]] || usage
    [[ -f $dir/node$1/server.properties ]] || die "node $1 has no server.properties in $dir"
    start_node "$1"
    ;;
run-node)
    [[ $# -eq 1 ]] || usage
    node_dir="$dir/node$1"
    [[ -f $node_dir/server.properties ]] || die "node $1 has no server.properties in $dir"
    if [[ -f $node_dir/pid ]] && kill -0 "$(cat "$node_dir/pid")" 2>/dev/null; then
        die "node $1 is already running (pid $(cat "$node_dir/pid"))"
    fi
    cp=$(classpath)
    echo $$ >"$node_dir/pid"
    echo "=== kafka-quorum.sh run-node $1 at $(date '+%F %T'), pid $$" >>"$node_dir/server.log"
    exec "$java_cmd" "${jvm_flags[@]}" -Dlog4j2.configurationFile="$dir/server-log4j2.properties" \
        -cp "$cp" kafka.Kafka "$node_dir/server.properties" >>"$node_dir/server.log" 2>&1
    ;;
stop-node)
    [[ $# -eq 1 ]] || usage
    stop_node "$1"
    ;;
stop)
    stop_all
    ;;
tool)
    [[ $# -ge 1 ]] || usage
    class=$1
    shift
    run_tool "$class" "$@"
    ;;
java)
    [[ $# -ge 1 ]] || usage
    class=$1
    shift
    cp=$(classes_classpath)
    exec "$java_cmd" "${jvm_flags[@]}" -Dlog4j2.configurationFile="$dir/tools-log4j2.properties" \
        -cp "$cp" "$class" "$@"
    ;;
port)
    [[ $# -eq 1 ]] || usage
    port_of "$1"
    ;;
bootstrap)
    bootstrap
    ;;
*)
    usage
    ;;
esac
