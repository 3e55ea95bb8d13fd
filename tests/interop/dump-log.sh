#!/usr/bin/env bash
# `kraft dump-log` against Kafka 4.4.0's kafka-dump-log.sh (class
# org.apache.kafka.tools.DumpLogSegments, the Maven jars via kafka-quorum.sh
# tool): both must print the same stdout, line for line, and exit alike.
#
#   dump-log.sh KRAFT_BINARY   fresh files: a metadata log and snapshot
#                              written by Kafka's classes (image-interop.sh
#                              generate) and a live then stopped single
#                              `kraft server` controller's segment and
#                              snapshots, each dumped with several option
#                              sets; then every golden case
#   dump-log.sh record         run Kafka's tool only and write the golden
#                              files the CLI tests read
#
# The golden cases are crates/cli/tests/golden/dump-log/NAME.args: the
# arguments of `kraft dump-log` and of DumpLogSegments, one a line, with
# paths relative to crates/cli (both run there). `record` writes NAME.stdout
# and NAME.code (the exit status) beside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cli=$root/crates/cli
cases=$cli/tests/golden/dump-log
kq=$here/kafka-quorum.sh
mode=${1:?usage: dump-log.sh KRAFT_BINARY | record}

work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cluster_id=$(bash "$kq" init "$work/kq")

# kafka OUT ARGS...: Kafka's tool, run in crates/cli; stdout in OUT.stdout,
# exit status in OUT.code.
kafka() {
    local out=$1 rc=0
    shift
    (cd "$cli" && bash "$kq" tool "$work/kq" org.apache.kafka.tools.DumpLogSegments "$@") \
        >"$out.stdout" 2>"$out.stderr" || rc=$?
    echo "$rc" >"$out.code"
}

if [[ $mode == record ]]; then
    for f in "$cases"/*.args; do
        name=${f##*/}
        name=${name%.args}
        mapfile -t args <"$f"
        kafka "$work/$name" "${args[@]}"
        cp "$work/$name.stdout" "$cases/$name.stdout"
        cp "$work/$name.code" "$cases/$name.code"
        echo "recorded $name (exit $(cat "$work/$name.code"))"
    done
    exit 0
fi

kraft=$(cd "$(dirname "$mode")" && pwd)/$(basename "$mode")
[[ -x $kraft ]] || { echo "dump-log.sh: $mode is not an executable" >&2; exit 2; }
failures=0
checked=0

# compare TAG ARGS...: both tools with ARGS, in crates/cli.
compare() {
    local tag=$1 rc=0
    shift
    kafka "$work/$tag.kafka" "$@"
    (cd "$cli" && "$kraft" dump-log "$@") >"$work/$tag.kraft.stdout" 2>"$work/$tag.kraft.stderr" || rc=$?
    checked=$((checked + 1))
    if ! diff -u "$work/$tag.kafka.stdout" "$work/$tag.kraft.stdout" >"$work/$tag.diff"; then
        echo "FAIL $tag: stdout differs (- Kafka, + kraft dump-log):"
        head -n 40 "$work/$tag.diff"
        failures=$((failures + 1))
    elif [[ $(cat "$work/$tag.kafka.code") != "$rc" ]]; then
        echo "FAIL $tag: Kafka exited with $(cat "$work/$tag.kafka.code"), kraft dump-log with $rc"
        failures=$((failures + 1))
    else
        echo "PASS $tag ($(wc -l <"$work/$tag.kafka.stdout") lines)"
    fi
}

option_sets=(
    "--cluster-metadata-decoder"
    "--cluster-metadata-decoder --skip-record-metadata"
    "--deep-iteration"
    ""
    "--cluster-metadata-decoder --max-bytes 4096"
)
# compare_all TAG FILES: every option set on FILES (comma-separated).
compare_all() {
    local tag=$1 files=$2 i=0 opts
    for opts in "${option_sets[@]}"; do
        i=$((i + 1))
        # shellcheck disable=SC2086 # the option sets are split on blanks
        compare "$tag-$i" $opts --files "$files"
    done
}

# 1. Kafka-written: image-interop.sh generate, under Kafka's file names.
bash "$here/image-interop.sh" generate "$work/gen" >"$work/gen.log" 2>&1 ||
    { cat "$work/gen.log" >&2; echo "FAIL image-interop.sh generate"; exit 1; }
prop() { sed -n "s/^$1=//p" "$work/gen/image-info.properties"; }
mkdir -p "$work/kafka"
cp "$work/gen/kafka-log.log" "$work/kafka/00000000000000000000.log"
snap=$(printf '%020d-%010d.checkpoint' "$(prop snapshot.end.offset)" "$(prop snapshot.epoch)")
cp "$work/gen/kafka-snapshot.checkpoint" "$work/kafka/$snap"
compare_all kafka-written "$work/kafka/00000000000000000000.log,$work/kafka/$snap"

# 2. kraft-rs-written: one controller, snapshots every second.
port=$(bash "$kq" port "$work/kq" 1)
node=$work/kraft
mkdir -p "$node"
cat >"$node/server.properties" <<EOF
node.id=1
process.roles=controller
controller.listener.names=CONTROLLER
listeners=CONTROLLER://127.0.0.1:$port
log.dirs=$node/data
metadata.log.dir=$node/data
controller.quorum.bootstrap.servers=127.0.0.1:$port
metadata.log.max.snapshot.interval.ms=1000
EOF
"$kraft" storage format --config "$node/server.properties" --cluster-id "$cluster_id" \
    --release-version 4.4-IV2 --standalone >"$node/format.log" 2>&1 ||
    { cat "$node/format.log" >&2; echo "FAIL kraft storage format"; exit 1; }
NO_COLOR=1 "$kraft" server --config "$node/server.properties" >"$node/server.log" 2>&1 &
server_pid=$!
mdir=$node/data/__cluster_metadata-0
upgraded=0
for _ in $(seq 1 60); do
    if ((!upgraded)) && "$kraft" features --bootstrap-controller "127.0.0.1:$port" upgrade \
        --feature group.version=1 >"$node/upgrade.log" 2>&1; then
        upgraded=1
    fi
    if ((upgraded)) && ls "$mdir"/*-0000000001.checkpoint >/dev/null 2>&1; then break; fi
    sleep 0.5
done
((upgraded)) || { cat "$node/upgrade.log" >&2; tail -n 20 "$node/server.log" >&2; echo "FAIL kraft features upgrade"; exit 1; }
newest() { (cd "$mdir" && ls -- *.checkpoint | sort | tail -n 1); }
[[ -n $(newest) ]] || { echo "FAIL: the kraft-rs controller wrote no snapshot"; exit 1; }
# The live segment (its zero tail, written ahead, shows as invalid bytes).
mkdir -p "$work/live"
cp "$mdir/00000000000000000000.log" "$mdir/$(newest)" "$work/live/"
compare_all kraft-rs-live "$work/live/00000000000000000000.log,$work/live/$(newest)"
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=
files=$mdir/00000000000000000000.log
for f in "$mdir"/*.checkpoint; do files+=",$f"; done
compare_all kraft-rs-stopped "$files"

# 3. The golden cases.
for f in "$cases"/*.args; do
    name=${f##*/}
    mapfile -t args <"$f"
    compare "golden-${name%.args}" "${args[@]}"
done

if ((failures)); then
    echo "FAIL dump-log: $failures of $checked comparisons differ"
    exit 1
fi
echo "PASS dump-log: kraft dump-log printed what Kafka's DumpLogSegments printed in all $checked comparisons"
