#!/usr/bin/env bash
# The offline tools (no cluster): `kafka-storage version-mapping`,
# `kafka-storage feature-dependencies`, `kafka-features version-mapping` and
# `kafka-features feature-dependencies` of Kafka 4.4.0 (the Maven jars, via
# kafka-quorum.sh tool) against `kraft storage ...` / `kraft features ...`.
#
#   offline-tools.sh KRAFT_BINARY   run every case with both and diff stdout,
#                                   stderr and the exit code
#   offline-tools.sh record         run Kafka's tools only and write the
#                                   golden files the CLI tests read
#
# The cases are crates/cli/tests/golden/offline-tools/NAME.args: the kraft
# arguments, one a line; the first (`storage` or `features`) picks Kafka's
# tool class (kafka.tools.StorageTool, org.apache.kafka.tools.FeatureCommand),
# the rest are passed to both unchanged. `record` writes NAME.stdout,
# NAME.stderr and NAME.code beside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cases=$root/crates/cli/tests/golden/offline-tools
kq=$here/kafka-quorum.sh
mode=${1:?usage: offline-tools.sh KRAFT_BINARY | record}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$kq" init "$work/kq" AAAAAAAAAAAAAAAAAAAAAA >/dev/null

# kafka NAME: runs Kafka's tool for case NAME into $work/NAME.kafka.*.
kafka() {
    local name=$1 args class rc=0
    mapfile -t args <"$cases/$name.args"
    case ${args[0]} in
    storage) class=kafka.tools.StorageTool ;;
    features) class=org.apache.kafka.tools.FeatureCommand ;;
    *) echo "offline-tools: $name: unknown tool ${args[0]}" >&2; return 1 ;;
    esac
    bash "$kq" tool "$work/kq" "$class" "${args[@]:1}" \
        >"$work/$name.kafka.stdout" 2>"$work/$name.kafka.stderr" || rc=$?
    echo "$rc" >"$work/$name.kafka.code"
}

names=()
for f in "$cases"/*.args; do
    n=${f##*/}
    names+=("${n%.args}")
done

# Two JVMs at a time: each takes a few seconds to start.
pids=()
for name in "${names[@]}"; do
    kafka "$name" &
    pids+=($!)
    if ((${#pids[@]} >= 2)); then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
done
wait

if [[ $mode == record ]]; then
    for name in "${names[@]}"; do
        for part in stdout stderr code; do
            cp "$work/$name.kafka.$part" "$cases/$name.$part"
        done
    done
    echo "offline-tools: recorded ${#names[@]} cases in $cases"
    exit 0
fi

kraft=$mode
failed=0
for name in "${names[@]}"; do
    mapfile -t args <"$cases/$name.args"
    rc=0
    "$kraft" "${args[@]}" >"$work/$name.kraft.stdout" 2>"$work/$name.kraft.stderr" || rc=$?
    echo "$rc" >"$work/$name.kraft.code"
    for part in stdout stderr code; do
        if ! diff -u --label "kafka $name.$part" --label "kraft $name.$part" \
            "$work/$name.kafka.$part" "$work/$name.kraft.$part"; then
            failed=1
        fi
    done
done
if ((failed)); then
    echo "offline-tools: FAILED: kraft's output differs from Kafka 4.4's tools" >&2
    exit 1
fi
echo "offline-tools: ${#names[@]} cases identical (stdout, stderr, exit code)"
