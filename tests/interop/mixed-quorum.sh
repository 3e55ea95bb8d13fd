#!/usr/bin/env bash
# A kraft-rs controller in a real Apache Kafka 4.4.0 controller quorum.
#
#   mixed-quorum.sh KRAFT_BINARY
#
# 1. Three Java controllers form a dynamic quorum (kafka-quorum.sh start).
# 2. A kraft-rs controller, formatted with the cluster's id and
#    --no-initial-controllers, joins as an observer and replicates the
#    metadata log to the same end offset as the Java leader.
# 3. Kafka's own tool adds it as a voter (add-controller --command-config).
# 4. Java leaders are killed (SIGKILL) and restarted one by one: the quorum keeps
#    committing, and once the kraft-rs controller is elected it leads the
#    three Java controllers, which replicate from it.
# Exits non-zero on the first failed check; always stops every process.
set -euo pipefail

kraft=${1:?usage: mixed-quorum.sh KRAFT_BINARY}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kq="$here/kafka-quorum.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kraft-mixed.XXXXXX")
kraft_pid=

cleanup() {
    [[ -n $kraft_pid ]] && kill "$kraft_pid" 2>/dev/null || true
    bash "$kq" stop "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

fail() { echo "FAIL $*" >&2; echo "kraft-rs log (tail):" >&2; tail -n 30 "$dir/kraft.log" >&2 || true; exit 1; }
pass() { echo "PASS $*"; }

bash "$kq" start "$dir"
bootstrap=$(bash "$kq" bootstrap "$dir")
cluster_id=$(cat "$dir/cluster-id")
first=${bootstrap%%,*}
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')

mkdir -p "$dir/kraft5"
cat >"$dir/kraft5.properties" <<EOF
node.id=5
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$port
log.dirs=$dir/kraft5
metadata.log.dir=$dir/kraft5
controller.quorum.bootstrap.servers=$bootstrap
EOF
"$kraft" storage format --config "$dir/kraft5.properties" --cluster-id "$cluster_id" --no-initial-controllers
KRAFT_LOG=info "$kraft" server --config "$dir/kraft5.properties" >"$dir/kraft.log" 2>&1 &
kraft_pid=$!

replication() {
    bash "$kq" tool "$dir" org.apache.kafka.tools.MetadataQuorumCommand \
        --bootstrap-controller "$first" describe --replication 2>/dev/null || true
}
# Each check reads one snapshot of Kafka's replication table.
snap=
refresh() { snap=$(replication); }
row() { awk -v id="$1" '$1 == id' <<<"$snap"; }
leader_of() { awk '$7 == "Leader" {print $1}' <<<"$snap"; }
leo_of() { row "$1" | awk '{print $3}'; }

# 2. Observer that catches up.
ok=
for _ in $(seq 1 40); do
    refresh
    r=$(row 5)
    l=$(leader_of)
    if [[ $r == *Observer* && -n $l && $(leo_of 5) == "$(leo_of "$l")" ]]; then ok=1; break; fi
    sleep 1
done
[[ -n $ok ]] || fail "kraft-rs controller 5 did not catch up as an observer: $snap"
pass "kraft-rs controller 5 replicates the Java quorum's log as an observer ($(row 5 | awk '{print "LogEndOffset " $3 ", Lag " $4}'))"

# 3. Kafka's tool adds it as a voter.
bash "$kq" tool "$dir" org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$first" \
    --command-config "$dir/kraft5.properties" add-controller
ok=
for _ in $(seq 1 20); do
    refresh
    [[ $(row 5) == *Follower* ]] && { ok=1; break; }
    sleep 1
done
[[ -n $ok ]] || fail "controller 5 did not become a voter: $snap"
pass "Kafka's add-controller made kraft-rs controller 5 a voter"

# 4. Stop Java leaders until kraft-rs leads; the quorum keeps committing.
restart_java() {
    local id=$1 cp
    cp=$(cat "$here/kafka-quorum/target/classpath.txt")
    nohup java -Xms64m -Xmx320m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Dlog4j2.configurationFile="$dir/server-log4j2.properties" \
        -cp "$cp" kafka.Kafka "$dir/node$id/server.properties" >"$dir/node$id/server.log" 2>&1 &
    echo $! >"$dir/node$id/pid"
}
led=
for round in 1 2 3 4 5 6; do
    refresh
    l=$(leader_of)
    [[ -n $l ]] || { sleep 2; continue; }
    if [[ $l == 5 ]]; then led=1; break; fi
    before=$(leo_of "$l")
    # SIGKILL: no resignation, so the next leader comes from a random election.
    kill -9 "$(cat "$dir/node$l/pid")" 2>/dev/null || true
    sleep 8
    first=$(echo "$bootstrap" | tr ',' '\n' | grep -v ":$(bash "$kq" port "$dir" "$l")\$" | head -n 1)
    refresh
    nl=$(leader_of)
    [[ -n $nl && $nl != "$l" ]] || fail "round $round: no new leader after stopping Java leader $l"
    after=$(leo_of "$nl")
    (( after > before )) || fail "round $round: the quorum stopped committing (end offset $before -> $after)"
    pass "round $round: stopped Java leader $l; controller $nl leads and the log grew from $before to $after"
    restart_java "$l"
    sleep 10
done
[[ -n $led ]] || { echo "NOTE kraft-rs controller 5 was not elected in 6 rounds (elections are random)"; exit 0; }
sleep 3
refresh
for id in 1 2 3; do
    [[ $(row "$id") == *Follower* ]] || fail "Java controller $id does not follow kraft-rs leader 5: $snap"
done
[[ $(leo_of 1) == "$(leo_of 5)" ]] || fail "Java followers lag the kraft-rs leader: $snap"
pass "kraft-rs controller 5 leads; Java controllers 1-3 replicate from it ($(row 5 | awk '{print "LogEndOffset " $3}'))"
echo "$snap"
