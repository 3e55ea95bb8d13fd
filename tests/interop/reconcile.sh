#!/usr/bin/env bash
# `kraft metadata-quorum reconcile` against a real Apache Kafka 4.4.0 quorum.
#
#   reconcile.sh KRAFT_BINARY
#
# 1. Three Java controllers form a dynamic quorum; Java controllers 4 and 5
#    join as observers. Auto-join is off: a Java controller with it on adds
#    itself back right after its removal (docs/operations.md).
# 2. reconcile --voters 1,2,3,4,5 --dry-run prints the plan, changes nothing.
# 3. reconcile --voters 1,2,3,4,5: 3 -> 5 voters.
# 4. reconcile --voters 1,2,3 --step-delay-ms 3000 with controller 5
#    SIGKILLed once the first removal committed (before its own): 5 -> 3
#    voters, DescribeQuorum polled all along reports a leader at every answer.
# 5. kraft metadata-shell --bootstrap-controller reads the running Java
#    quorum (Fetch and FetchSnapshot as an observer) and shows what it shows
#    over controller 1's stopped log directory.
# Exits non-zero on the first failed check; always stops every process.
set -euo pipefail

kraft=${1:?usage: reconcile.sh KRAFT_BINARY}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kq="$here/kafka-quorum.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/kraft-reconcile.XXXXXX")
poller=

cleanup() {
    [[ -n $poller ]] && kill "$poller" 2>/dev/null || true
    bash "$kq" stop "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

fail() { echo "FAIL $*" >&2; exit 1; }
pass() { echo "PASS $*"; }

export KQ_CONTROLLER_PROPS="controller.quorum.auto.join.enable=false"
bash "$kq" start "$dir"
bash "$kq" add-observer "$dir" 4
bash "$kq" add-observer "$dir" 5
bootstrap=$(bash "$kq" bootstrap "$dir")
first=${bootstrap%%,*}

# The sorted ids of `key` (currentVoters, currentObservers) as kraft-rs reads them.
ids() {
    "$kraft" metadata-quorum --bootstrap-controller "$first" describe --status --output json |
        python3 -c "import json,sys; print(','.join(str(i) for i in sorted(r['id'] for r in json.load(sys.stdin)['$1'])))"
}

wait_observers() {
    for _ in $(seq 1 120); do
        obs=$(ids currentObservers 2>/dev/null || true)
        [[ ,$obs, == *,4,* && ,$obs, == *,5,* ]] && return 0
        sleep 1
    done
    fail "controllers 4 and 5 do not observe (observers: $obs)"
}
wait_observers
pass "Java controllers 1-3 vote, 4 and 5 observe"

out=$("$kraft" metadata-quorum --bootstrap-controller "$first" reconcile --voters 1,2,3,4,5 --dry-run) ||
    fail "dry run: $out"
[[ $out == *"add-controller --controller-id 4"* && $out == *"DRY RUN: nothing was changed."* ]] ||
    fail "dry run output: $out"
[[ $(ids currentVoters) == 1,2,3 ]] || fail "the dry run changed the voters"
pass "dry run prints the plan"

# DescribeQuorum polled in the background: a leader at every answer.
: >"$dir/poll.log"
(
    while true; do
        if line=$("$kraft" metadata-quorum --bootstrap-controller "$first" describe --status 2>&1 |
            grep '^LeaderId:'); then
            echo "$line" >>"$dir/poll.log"
        else
            echo "no answer" >>"$dir/poll.log"
        fi
        sleep 0.05
    done
) &
poller=$!

start=$(date +%s)
out=$("$kraft" metadata-quorum --bootstrap-controller "$first" reconcile --voters 1,2,3,4,5 --timeout-ms 120000 2>&1) ||
    fail "reconcile to five: $out"
echo "$out"
[[ $(ids currentVoters) == 1,2,3,4,5 ]] || fail "voters after growing: $(ids currentVoters)"
pass "3 -> 5 voters in $(($(date +%s) - start)) s"

start=$(date +%s)
"$kraft" metadata-quorum --bootstrap-controller "$first" reconcile --voters 1,2,3 --timeout-ms 120000 \
    --step-delay-ms 3000 >"$dir/shrink.out" 2>&1 &
rec=$!
killed=
for _ in $(seq 1 600); do
    if [[ -z $killed ]] && grep -q '^Committed: voters' "$dir/shrink.out"; then
        if grep -q '^Committed: voters \[1, 2, 3, 5\]' "$dir/shrink.out"; then
            victim=5
        else
            victim=4
        fi
        kill -KILL "$(cat "$dir/node$victim/pid")"
        killed=$victim
    fi
    kill -0 "$rec" 2>/dev/null || break
    sleep 0.2
done
status=0
wait "$rec" || status=$?
cat "$dir/shrink.out"
[[ $status -eq 0 ]] || fail "reconcile to three exited $status"
[[ $killed == 5 ]] || fail "expected to kill 5 after removing 4 (killed: ${killed:-none})"
# 5 died during the step delay, before its own removal started.
[[ $(sed -n '/^Committed: voters \[1, 2, 3, 5\]/,$p' "$dir/shrink.out") == *"Step 2: remove controller 5"* ]] ||
    fail "controller 5 was not removed after it was killed"
[[ $(ids currentVoters) == 1,2,3 ]] || fail "voters after shrinking: $(ids currentVoters)"
pass "5 -> 3 voters with controller 5 SIGKILLed mid-plan in $(($(date +%s) - start)) s"

kill "$poller" 2>/dev/null || true
wait "$poller" 2>/dev/null || true
poller=
polls=$(wc -l <"$dir/poll.log")
bad=$(grep -cv '^LeaderId:[[:space:]]*[0-9]' "$dir/poll.log" || true)
[[ $polls -ge 2 ]] || fail "Kafka's tool answered only $polls times"
[[ $bad -eq 0 ]] || fail "$bad of $polls DescribeQuorum polls without a leader: $(grep -v '^LeaderId:[[:space:]]*[0-9]' "$dir/poll.log" | head -3)"
pass "a leader at each of $polls DescribeQuorum polls"

# The live metadata shell over the Java quorum against the same shell over
# a stopped Java controller's directory (the directory reading is compared
# with Kafka's own shell in metadata-shell.sh).
live_cmds=("tree /image/cluster/controllers" "tree /image/features" "ls /image/topics/byName")
for i in "${!live_cmds[@]}"; do
    # shellcheck disable=SC2086
    "$kraft" metadata-shell --bootstrap-controller "$first" ${live_cmds[$i]} >"$dir/live$i.out" ||
        fail "metadata-shell --bootstrap-controller ${live_cmds[$i]} exited $?"
done
[[ -s $dir/live0.out ]] || fail "the live shell listed no controller"
bash "$kq" stop "$dir" >/dev/null 2>&1
for i in "${!live_cmds[@]}"; do
    # shellcheck disable=SC2086
    "$kraft" metadata-shell --directory "$dir/node1/data/__cluster_metadata-0" ${live_cmds[$i]} >"$dir/dir$i.out" ||
        fail "metadata-shell --directory ${live_cmds[$i]} exited $?"
    diff "$dir/live$i.out" "$dir/dir$i.out" >&2 || fail "the live shell and the stopped directory differ on: ${live_cmds[$i]}"
done
pass "metadata-shell --bootstrap-controller on the Java quorum shows what controller 1's directory shows"
