#!/usr/bin/env bash
# A kraft-rs controller in a real Apache Kafka 4.4.0 cluster with a broker.
#
#   mixed-broker.sh KRAFT_BINARY
#
# 1. Snapshots keep the whole image. Three Java controllers and one Java
#    broker (kafka-quorum.sh start / add-broker); topics and configs are
#    created through the broker with Kafka's TopicCommand and ConfigCommand.
#    A kraft-rs controller (--no-initial-controllers, small snapshot
#    threshold, segments and retention) joins as an observer, Kafka's
#    add-controller makes it a voter, more topics and configs follow; it must
#    write a snapshot and clean its log. Kafka's DumpLogSegments decodes that
#    snapshot: it must hold the broker's RegisterBrokerRecord, a TopicRecord
#    and the right number of PartitionRecords per topic, the ConfigRecords,
#    metadata.version and the controller registrations, and the same
#    broker/topic/partition/config/feature/controller records as the Java
#    leader's own latest snapshot (payloads compared, order ignored).
# 2. A fresh Java controller catches up from a kraft-rs snapshot. The Java
#    voters are removed with Kafka's remove-controller (the Java leader last,
#    so it resigns and the kraft-rs controller is the only voter and leader);
#    a fresh Java controller (add-observer) must fetch kraft-rs's snapshot
#    (its log starts above 0), reach the leader's end offset and hold the
#    same topics. Then the Java controllers are added back as voters and the
#    kraft-rs controller is stopped: a Java controller leads again and the
#    broker is still unfenced.
# 3. A cluster formatted by `kraft storage format --standalone` alone: a Java
#    controller joins as an observer, is added as a voter, the kraft-rs
#    leader removes itself (and resigns), and a Java broker registers and is
#    unfenced; FeatureCommand shows metadata.version 4.4-IV2 (written by the
#    kraft-rs controller's activation).
# Exits non-zero on the first failed check; always stops every process.
# Environment: MB_KEEP=1 keeps the work directory after a success.
set -euo pipefail

kraft=${1:?usage: mixed-broker.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kq="$here/kafka-quorum.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kraft-mixed-broker.XXXXXX")
root=$dir
dir3="$root/standalone"
kraft_pid=
kraft3_pid=
started=$SECONDS
kraft_log="$dir/kraft5.log"

cleanup() {
    [[ -n $kraft_pid ]] && kill "$kraft_pid" 2>/dev/null || true
    [[ -n $kraft3_pid ]] && kill "$kraft3_pid" 2>/dev/null || true
    bash "$kq" stop "$root" >/dev/null 2>&1 || true
    [[ -d $dir3 ]] && { bash "$kq" stop "$dir3" >/dev/null 2>&1 || true; }
    wait 2>/dev/null || true
}
trap cleanup EXIT

fail() {
    echo "FAIL $*" >&2
    echo "kraft-rs log ($kraft_log, tail):" >&2
    tail -n 30 "$kraft_log" >&2 || true
    echo "work directory kept: $root" >&2
    exit 1
}
pass() { echo "PASS $* [$((SECONDS - started))s]"; }
tool() { bash "$kq" tool "$dir" "$@"; }
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

# Small snapshot threshold, segments and retention for every controller, so
# that snapshots and log cleaning happen within seconds.
snapshot_props='metadata.log.max.record.bytes.between.snapshots=2048
internal.metadata.log.segment.bytes=4096
metadata.max.retention.bytes=1'
# The kraft-rs controller's port is in every Java controller's bootstrap
# list: once the Java controllers are observers of a kraft-rs leader
# (scenario 2) they can only find it through their bootstrap servers.
port=$(free_port)
bash "$kq" port "$dir" 1 >/dev/null # chooses the Java ports now
bootstrap=$(bash "$kq" bootstrap "$dir")
java_bootstrap_props="controller.quorum.bootstrap.servers=$bootstrap,127.0.0.1:$port"
export KQ_CONTROLLER_PROPS="$snapshot_props
internal.metadata.delete.delay.millis=100
$java_bootstrap_props"

# --- replication table helpers (as mixed-quorum.sh) ---
qbs=
replication() {
    tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$qbs" \
        describe --replication 2>/dev/null || true
}
snap=
refresh() { snap=$(replication); }
row() { awk -v id="$1" '$1 == id' <<<"$snap"; }
leader_of() { awk '$7 == "Leader" {print $1}' <<<"$snap"; }
leo_of() { row "$1" | awk '{print $3}'; }
status_leader() {
    tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$qbs" \
        describe --status 2>/dev/null | awk '/^LeaderId:/ {print $2}' || true
}
# wait_caught_up ID ROLE SECONDS: ID's row says ROLE and its end offset is the leader's.
wait_caught_up() {
    local id=$1 role=$2 deadline=$((SECONDS + $3)) l
    while ((SECONDS < deadline)); do
        refresh
        l=$(leader_of)
        if [[ $(row "$id") == *"$role"* && -n $l && $(leo_of "$id") == "$(leo_of "$l")" ]]; then
            return 0
        fi
        sleep 1
    done
    return 1
}
wait_leader() {
    local want=$1 deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        [[ $(status_leader) == "$want" ]] && return 0
        sleep 1
    done
    return 1
}

# --- snapshot helpers ---
# latest_checkpoint DIR: the newest <offset>-<epoch>.checkpoint in DIR.
latest_checkpoint() { (cd "$1" && ls -- *.checkpoint 2>/dev/null | sort | tail -n 1); }
ckpt_offset() { local b=${1##*/}; echo $((10#${b%%-*})); }
# copy_latest SRC_DIR DEST_DIR: copies the newest checkpoint under its name
# (DumpLogSegments parses it) and prints that name; the next snapshot may
# delete it at any moment, so retry.
copy_latest() {
    local f
    mkdir -p "$2"
    for _ in 1 2 3 4 5; do
        f=$(latest_checkpoint "$1")
        [[ -n $f ]] && cp "$1/$f" "$2/" 2>/dev/null && { echo "$f"; return 0; }
        sleep 0.2
    done
    return 1
}
# payloads CHECKPOINT OUT: Kafka's decoding of the snapshot's metadata records,
# one JSON payload a line.
payloads() {
    tool org.apache.kafka.tools.DumpLogSegments --cluster-metadata-decoder --files "$1" >"$2.dump" 2>&1 ||
        { cat "$2.dump" >&2; return 1; }
    if grep -q "isvalid: false" "$2.dump" || ! grep -q "SnapshotFooter" "$2.dump"; then
        echo "invalid batch or no SnapshotFooter in $1" >&2
        return 1
    fi
    sed -n 's/.* payload: //p' "$2.dump" >"$2"
}

# check_image PAYLOADS TOPICS CONFIGS CONTROLLERS: the records of a snapshot.
# TOPICS name:partitions,...; CONFIGS type:resource:name=value,...
check_image() {
    python3 - "$@" <<'PY'
import collections, json, sys
path, topics, configs, controllers = sys.argv[1:5]
recs = [json.loads(l) for l in open(path) if l.strip()]
by = collections.defaultdict(list)
for r in recs:
    by[r["type"]].append(r["data"])
errs = []
if not any(b["brokerId"] == 10 for b in by["REGISTER_BROKER_RECORD"]):
    errs.append("no RegisterBrokerRecord for broker 10")
ids = {t["name"]: t["topicId"] for t in by["TOPIC_RECORD"]}
parts = collections.Counter(p["topicId"] for p in by["PARTITION_RECORD"])
summary = []
for spec in topics.split(","):
    name, n = spec.split(":")
    if name not in ids:
        errs.append(f"no TopicRecord for {name}")
        continue
    if parts[ids[name]] != int(n):
        errs.append(f"{name}: {parts[ids[name]]} PartitionRecords, want {n}")
    summary.append(f"{name}:{parts[ids[name]]}")
have = {(c["resourceType"], c["resourceName"], c["name"], c["value"]) for c in by["CONFIG_RECORD"]}
for spec in configs.split(","):
    t, rest = spec.split(":", 1)
    res, kv = rest.split(":", 1)
    k, v = kv.split("=", 1)
    if (int(t), res, k, v) not in have:
        errs.append(f"no ConfigRecord {spec}")
mv = [f["featureLevel"] for f in by["FEATURE_LEVEL_RECORD"] if f["name"] == "metadata.version"]
if mv != [33]:
    errs.append(f"metadata.version FeatureLevelRecord: {mv}, want [33]")
regs = sorted(c["controllerId"] for c in by["REGISTER_CONTROLLER_RECORD"])
for c in controllers.split(","):
    if int(c) not in regs:
        errs.append(f"no RegisterControllerRecord for controller {c} (have {regs})")
if errs:
    print("; ".join(errs))
    sys.exit(1)
kinds = collections.Counter(r["type"] for r in recs)
print(f"{len(recs)} records: topics/partitions {' '.join(summary)}, "
      f"{len(by['CONFIG_RECORD'])} ConfigRecords, controllers {regs}, "
      + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
PY
}

# compare_images A B: the same broker/topic/partition/config/feature/controller
# payloads in both (as multisets); prints the other record types' differences.
# Arrays keyed by name (the features and endPoints of registrations: "mapKey"
# collections, unordered in Kafka's image, written in HashMap order) are
# compared as sets.
compare_images() {
    python3 - "$@" <<'PY'
import collections, json, sys
kinds = {"REGISTER_BROKER_RECORD", "TOPIC_RECORD", "PARTITION_RECORD", "CONFIG_RECORD",
         "FEATURE_LEVEL_RECORD", "REGISTER_CONTROLLER_RECORD"}
def canon(v):
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if isinstance(v, list):
        v = [canon(x) for x in v]
        if v and all(isinstance(x, dict) and "name" in x for x in v):
            v = sorted(v, key=lambda x: json.dumps(x, sort_keys=True))
        return v
    return v
def load(p, f=canon):
    return collections.Counter(json.dumps(f(json.loads(l)), sort_keys=True) for l in open(p) if l.strip())
raw_a, raw_b = load(sys.argv[1], lambda r: r), load(sys.argv[2], lambda r: r)
reordered = sum((raw_a - raw_b).values())
a, b = load(sys.argv[1]), load(sys.argv[2])
ka = collections.Counter({k: v for k, v in a.items() if json.loads(k)["type"] in kinds})
kb = collections.Counter({k: v for k, v in b.items() if json.loads(k)["type"] in kinds})
if ka != kb:
    for k in sorted((ka - kb).keys()):
        print("only in the kraft-rs snapshot:", k)
    for k in sorted((kb - ka).keys()):
        print("only in the Java snapshot:    ", k)
    sys.exit(1)
rest_a, rest_b = a - ka, b - kb
note = "" if rest_a == rest_b else (
    f"; other records differ: kraft-rs {sorted(json.loads(k)['type'] for k in (rest_a - rest_b).elements())}"
    f" vs Java {sorted(json.loads(k)['type'] for k in (rest_b - rest_a).elements())}")
print(f"{sum(ka.values())} records equal{note}; {reordered} of them list their features/endpoints in another order")
PY
}

# ===================== Scenario 1 =====================
echo "== 1. a kraft-rs voter snapshots every broker, topic, partition and config"
bash "$kq" start "$dir"
cluster_id=$(cat "$dir/cluster-id")
bash "$kq" add-broker "$dir" 10
broker="127.0.0.1:$(bash "$kq" port "$dir" 10)"
pass "Java quorum (controllers 1-3) and Java broker 10 registered and unfenced"

topic() {
    local name=$1 n=$2
    shift 2
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$broker" --create --topic "$name" \
        --partitions "$n" --replication-factor 1 "$@" >/dev/null || fail "TopicCommand could not create $name"
}
alter_config() {
    tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$broker" --alter "$@" >/dev/null ||
        fail "ConfigCommand --alter $* failed"
}
topic alpha 3 --config retention.ms=123456
topic beta 4
topic gamma 6
alter_config --entity-type brokers --entity-name 10 --add-config log.cleaner.threads=2
pass "created topics alpha(3, retention.ms=123456), beta(4), gamma(6) and set broker 10's log.cleaner.threads=2 through the broker"

mkdir -p "$dir/kraft5"
cat >"$dir/kraft5.properties" <<EOF
node.id=5
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$port
log.dirs=$dir/kraft5
metadata.log.dir=$dir/kraft5
controller.quorum.bootstrap.servers=$bootstrap
$snapshot_props
EOF
"$kraft" storage format --config "$dir/kraft5.properties" --cluster-id "$cluster_id" --no-initial-controllers \
    >"$dir/kraft5-format.log" 2>&1 || { cat "$dir/kraft5-format.log" >&2; fail "kraft storage format failed"; }
KRAFT_LOG=info NO_COLOR=1 "$kraft" server --config "$dir/kraft5.properties" >"$kraft_log" 2>&1 &
kraft_pid=$!
qbs="$bootstrap,127.0.0.1:$port"
wait_caught_up 5 Observer 60 || fail "kraft-rs controller 5 did not catch up as an observer: $snap"
how="replayed the log"
grep -q "loaded the image from the snapshot" "$kraft_log" && how="fetched the Java leader's snapshot (FetchSnapshot) and replayed the rest"
pass "kraft-rs controller 5 caught up as an observer ($how; LogEndOffset $(leo_of 5))"

tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$bootstrap" \
    --command-config "$dir/kraft5.properties" add-controller >/dev/null || fail "add-controller failed"
wait_caught_up 5 Follower 30 || fail "controller 5 did not become a caught-up voter: $snap"
pass "Kafka's add-controller made kraft-rs controller 5 a voter"

# More metadata after kraft-rs joined: a topic and two topic configs.
topic delta 5 --config cleanup.policy=compact
alter_config --entity-type topics --entity-name beta --add-config max.message.bytes=200000
refresh
java_leader=$(leader_of)
target=$(leo_of "$java_leader")
[[ -n $java_leader && $java_leader != 5 && -n $target ]] || fail "no Java leader: $snap"
pass "created topic delta(5, cleanup.policy=compact) and set beta's max.message.bytes=200000 (leader $java_leader, end offset $target)"

# Both the kraft-rs controller and the Java leader snapshot past $target.
kdir="$dir/kraft5/__cluster_metadata-0"
jdir="$dir/node$java_leader/data/__cluster_metadata-0"
deadline=$((SECONDS + 120))
k= j=
while ((SECONDS < deadline)); do
    k=$(latest_checkpoint "$kdir")
    j=$(latest_checkpoint "$jdir")
    if [[ -n $k && -n $j ]] && (($(ckpt_offset "$k") >= target && $(ckpt_offset "$j") >= target)) &&
        grep -q "deleted_segments=[1-9]" "$kraft_log"; then break; fi
    sleep 1
done
[[ -n $k ]] && (($(ckpt_offset "$k") >= target)) || fail "kraft-rs wrote no snapshot at or past offset $target in 120s (latest: ${k:-none})"
[[ -n $j ]] && (($(ckpt_offset "$j") >= target)) || fail "Java leader $java_leader wrote no snapshot past offset $target in 120s (latest: ${j:-none})"
nsnaps=$(grep -c "Successfully wrote snapshot" "$kraft_log" || true)
pass "kraft-rs controller 5 wrote snapshots ($nsnaps so far, latest $k)"

# Cleaning: the retention (1 byte) keeps only the latest snapshot; the log
# start moves up to it and the segments wholly below it are deleted.
ckpts=$(cd "$kdir" && ls -- *.checkpoint | tr '\n' ' ')
segs=$(cd "$kdir" && ls -- *.log 2>/dev/null | sort | tr '\n' ' ')
[[ ! -e $kdir/00000000000000000000-0000000000.checkpoint ]] || fail "kraft-rs kept its 0-0 checkpoint: $ckpts"
[[ $segs != 00000000000000000000.log* ]] || fail "kraft-rs still has its segment at offset 0: $segs"
grep -q "deleted_segments=[1-9]" "$kraft_log" ||
    fail "kraft-rs deleted no segment in 120s (segments: $segs; checkpoints: $ckpts)"
start=$(grep "advanced the log start offset" "$kraft_log" | tail -n 1 | sed -n 's/.*log_start_offset=\([0-9]*\).*/\1/p')
ndel=$(grep -o "deleted_segments=[0-9]*" "$kraft_log" | awk -F= '{n += $2} END {print n + 0}')
pass "kraft-rs cleaned its log: 0-0 checkpoint gone, $ndel segment(s) deleted, log start offset $start, checkpoints: $ckpts, segments: $segs"

k=$(copy_latest "$kdir" "$dir/kraft5-snapshot") || fail "could not copy kraft-rs's snapshot"
j=$(copy_latest "$jdir" "$dir/java-snapshot") || fail "could not copy the Java leader's snapshot"
payloads "$dir/kraft5-snapshot/$k" "$dir/kraft5.payloads" || fail "DumpLogSegments could not decode kraft-rs's snapshot $k"
payloads "$dir/java-snapshot/$j" "$dir/java.payloads" || fail "DumpLogSegments could not decode the Java snapshot $j"
topics="alpha:3,beta:4,gamma:6,delta:5"
configs="2:alpha:retention.ms=123456,2:beta:max.message.bytes=200000,2:delta:cleanup.policy=compact,4:10:log.cleaner.threads=2"
out=$(check_image "$dir/kraft5.payloads" "$topics" "$configs" 1,2,3,5) || fail "kraft-rs snapshot $k: $out"
pass "Kafka's DumpLogSegments decodes kraft-rs's snapshot $k: $out"
out=$(check_image "$dir/java.payloads" "$topics" "$configs" 1,2,3,5) || fail "Java snapshot $j: $out"
out=$(compare_images "$dir/kraft5.payloads" "$dir/java.payloads") ||
    fail "kraft-rs snapshot $k and Java leader $java_leader's snapshot $j differ:
$out"
pass "kraft-rs snapshot $k and Java leader $java_leader's snapshot $j hold the same broker/topic/partition/config/feature/controller records ($out)"

# ===================== Scenario 2 =====================
echo "== 2. a fresh Java controller catches up from a kraft-rs snapshot"
remove_voter() {
    tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$qbs" remove-controller \
        --controller-id "$1" --controller-directory-id "$2" >/dev/null || fail "remove-controller $1 failed"
}
for id in 1 2 3; do
    [[ $id == "$java_leader" ]] || remove_voter "$id" "$(cat "$dir/node$id/directory-id")"
done
remove_voter "$java_leader" "$(cat "$dir/node$java_leader/directory-id")"
wait_leader 5 30 || fail "kraft-rs controller 5 did not take over after the Java voters were removed (leader: $(status_leader))"
window=$SECONDS
refresh
pass "Kafka's remove-controller removed Java voters 1-3 (leader $java_leader last, it resigned): kraft-rs controller 5 leads alone ($(row 5 | awk '{print "LogEndOffset " $3}'))"

oldest_seg=$(cd "$kdir" && ls -- *.log 2>/dev/null | sort | head -n 1)
[[ -n $oldest_seg && $oldest_seg != 00000000000000000000.log ]] || fail "kraft-rs's log starts at 0"
mkdir -p "$dir/kraft5-snaps"
cp "$kdir"/*.checkpoint "$dir/kraft5-snaps/" 2>/dev/null || true
# Controller 4: default thresholds, so it keeps the snapshot it fetched.
export KQ_CONTROLLER_PROPS=$java_bootstrap_props
bash "$kq" add-observer "$dir" 4 >/dev/null || fail "Java controller 4 did not start and register"
wait_caught_up 4 Observer 60 || fail "Java controller 4 did not reach the kraft-rs leader's end offset: $snap"
n4="$dir/node4/data/__cluster_metadata-0"
c4=$(latest_checkpoint "$n4")
[[ -n $c4 ]] && (($(ckpt_offset "$c4") > 0)) || fail "Java controller 4 has no snapshot above offset 0: $(ls "$n4")"
ls "$n4"/00000000000000000000.log >/dev/null 2>&1 && fail "Java controller 4 replicated from offset 0 instead of fetching a snapshot: $(ls "$n4")"
same=""
cp "$kdir/$c4" "$dir/kraft5-snaps/" 2>/dev/null || true # still there unless kraft-rs snapshotted again
if [[ -f $dir/kraft5-snaps/$c4 ]]; then
    cmp -s "$n4/$c4" "$dir/kraft5-snaps/$c4" || fail "Java controller 4's $c4 differs from kraft-rs's file of the same name"
    same=", byte-identical to kraft-rs's"
fi
fetched=$(grep -m1 -o "after downloading snapshot OffsetAndEpoch\[[^]]*\] from leader 5" "$dir/node4/server.log" || true)
[[ -n $fetched ]] || fail "Java controller 4's log does not say it downloaded a snapshot from leader 5: $(grep -i "snapshot" "$dir/node4/server.log" | grep -vi producer | head -n 5)"
pass "Java controller 4 fetched kraft-rs's snapshot $c4$same (its log: \"$fetched\") and reached the leader's end offset $(leo_of 4)"
mkdir -p "$dir/node4-snapshot"
cp "$n4/$c4" "$dir/node4-snapshot/"
payloads "$dir/node4-snapshot/$c4" "$dir/node4.payloads" || fail "DumpLogSegments could not decode controller 4's snapshot"
out=$(check_image "$dir/node4.payloads" "$topics" "$configs" 1,2,3,5) || fail "controller 4's snapshot $c4: $out"
pass "Java controller 4's snapshot holds the same topics, partitions, configs and registrations: $out"

# Restore Java leadership: Java controllers 1-3 become voters again, then
# the kraft-rs controller stops.
for id in 1 2 3; do
    tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "127.0.0.1:$port" \
        --command-config "$dir/node$id/server.properties" add-controller >/dev/null ||
        fail "add-controller of Java controller $id (kraft-rs leader) failed"
done
kill "$kraft_pid" 2>/dev/null || true
wait "$kraft_pid" 2>/dev/null || true
kraft_pid=
qbs=$bootstrap
deadline=$((SECONDS + 60))
nl=
while ((SECONDS < deadline)); do
    nl=$(status_leader)
    [[ $nl == [123] ]] && break
    sleep 1
done
[[ $nl == [123] ]] || fail "no Java leader after the kraft-rs controller stopped (leader: ${nl:-none})"
pass "Java controllers 1-3 added back as voters by the kraft-rs leader; kraft-rs stopped; Java controller $nl leads ($((SECONDS - window))s without a Java leader)"
deadline=$((SECONDS + 60))
ok=
while ((SECONDS < deadline)); do
    if tool org.apache.kafka.tools.ClusterTool list-endpoints --bootstrap-server "$broker" 2>/dev/null |
        grep -q "^10 .* unfenced "; then ok=1; break; fi
    sleep 2
done
[[ -n $ok ]] || fail "broker 10 is not unfenced under Java leader $nl"
pass "broker 10 is unfenced under Java leader $nl"
for f in "$dir"/node*/pid; do kill -TERM "$(cat "$f")" 2>/dev/null || true; done # stop them in parallel
bash "$kq" stop "$dir" >/dev/null 2>&1 || true

# ===================== Scenario 3 =====================
echo "== 3. a cluster formatted by kraft storage format --standalone, joined by Java"
kraft_log="$dir/kraft-standalone.log"
mkdir -p "$dir3"
cp "$dir/server-log4j2.properties" "$dir/tools-log4j2.properties" "$dir3/"
cid3=$("$kraft" storage random-uuid)
echo "$cid3" >"$dir3/cluster-id"
p1=$(bash "$kq" port "$dir3" 1)
p2=$(bash "$kq" port "$dir3" 2)
mkdir -p "$dir3/kraft1"
cat >"$dir3/kraft1.properties" <<EOF
node.id=1
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$p1
log.dirs=$dir3/kraft1
metadata.log.dir=$dir3/kraft1
controller.quorum.bootstrap.servers=127.0.0.1:$p1,127.0.0.1:$p2
EOF
"$kraft" storage format --config "$dir3/kraft1.properties" --cluster-id "$cid3" --release-version 4.4-IV2 \
    --standalone >"$dir3/kraft1-format.log" 2>&1 || { cat "$dir3/kraft1-format.log" >&2; fail "kraft storage format --standalone failed"; }
KRAFT_LOG=info NO_COLOR=1 "$kraft" server --config "$dir3/kraft1.properties" >"$kraft_log" 2>&1 &
kraft3_pid=$!
dir=$dir3 # tool() and the helpers now address the standalone cluster
qbs="127.0.0.1:$p1"
wait_leader 1 60 || fail "the standalone kraft-rs controller 1 did not become leader"
pass "kraft-rs controller 1 formatted --standalone (cluster $cid3) leads"

mkdir -p "$dir3/node2"
cat >"$dir3/node2/server.properties" <<EOF
process.roles=controller
node.id=2
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$p2
advertised.listeners=CONTROLLER://127.0.0.1:$p2
listener.security.protocol.map=CONTROLLER:PLAINTEXT
controller.quorum.bootstrap.servers=127.0.0.1:$p1
log.dirs=$dir3/node2/data
metadata.log.dir=$dir3/node2/data
EOF
tool kafka.tools.StorageTool format --config "$dir3/node2/server.properties" --cluster-id "$cid3" \
    --release-version 4.4-IV2 --no-initial-controllers >"$dir3/node2/format.log" 2>&1 ||
    { cat "$dir3/node2/format.log" >&2; fail "format of Java controller 2 failed"; }
nohup java -Xms64m -Xmx320m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir3/server-log4j2.properties" \
    -cp "$(cat "$here/kafka-quorum/target/classpath.txt")" kafka.Kafka "$dir3/node2/server.properties" \
    >"$dir3/node2/server.log" 2>&1 &
echo $! >"$dir3/node2/pid"
wait_caught_up 2 Observer 90 || fail "Java controller 2 did not catch up with the kraft-rs leader as an observer: $snap"
pass "Java controller 2 replicates the kraft-rs cluster's log as an observer (LogEndOffset $(leo_of 2))"
tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$qbs" \
    --command-config "$dir3/node2/server.properties" add-controller >/dev/null || fail "add-controller of Java controller 2 failed"
wait_caught_up 2 Follower 30 || fail "Java controller 2 did not become a voter: $snap"
kdir_id=$(sed -n 's/^directory.id=//p' "$dir3/kraft1/meta.properties")
tool org.apache.kafka.tools.MetadataQuorumCommand --bootstrap-controller "$qbs" remove-controller \
    --controller-id 1 --controller-directory-id "$kdir_id" >/dev/null || fail "remove-controller 1 failed"
qbs="127.0.0.1:$p2"
wait_leader 2 60 || fail "Java controller 2 did not take over after kraft-rs controller 1 removed itself (leader: $(status_leader))"
pass "Java controller 2 added as a voter, kraft-rs controller 1 removed itself and resigned: Java controller 2 leads"
bash "$kq" add-broker "$dir3" 10 >/dev/null || fail "Java broker 10 did not register and unfence with Java leader 2"
broker3="127.0.0.1:$(bash "$kq" port "$dir3" 10)"
pass "Java broker 10 registered and unfenced"
wait_caught_up 1 Observer 30 || fail "kraft-rs controller 1 does not follow Java leader 2 as an observer: $snap"
pass "kraft-rs controller 1 replicates from Java leader 2 as an observer (LogEndOffset $(leo_of 1))"
features=$(tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$broker3" describe 2>/dev/null) ||
    fail "FeatureCommand describe failed"
mvline=$(grep -E "Feature: metadata.version\s" <<<"$features" || true)
grep -qE "FinalizedVersionLevel: 4.4-IV2(\s|$)" <<<"$mvline" || fail "metadata.version is not 4.4-IV2: $features"
grep -q "Appending [0-9]* bootstrap record(s)" "$kraft_log" ||
    fail "the kraft-rs controller's activation did not append the bootstrap records"
grep -q "Performing controller activation" "$dir3/node2/server.log" &&
    ! grep -q "The metadata log appears to be empty" "$dir3/node2/server.log" ||
    fail "Java controller 2 did not activate on the kraft-rs-written log (or found it empty)"
pass "FeatureCommand describe: $(tr -s '\t ' ' ' <<<"$mvline") (written by the kraft-rs activation; Java controller 2 activated on that log)"

echo "mixed-broker.sh: all checks passed in $((SECONDS - started))s"
if [[ -z ${MB_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
fi
