#!/usr/bin/env bash
# Where a CreateTopics forwarded by a Java broker spends its time:
# controllers (kraft-rs `kraft server`, or Java 4.4 controllers) and
# unmodified Java 4.4 brokers, Kafka's Admin client creating one topic
# (1 partition) at a time through the brokers (CreateLatency.java). FL_SIZE=3
# (the default, as bench-brokers.sh) runs controllers 1-3 and brokers 4-6
# with replication factor 3; FL_SIZE=1 controller 1 and broker 4, RF 1.
#
#   forward-latency.sh KRAFT_BINARY
#
# Per implementation (FL_IMPLS, default "kraft java"), on a fresh cluster:
# FL_WARMUP (default 5) untimed calls, then FL_N (default 50) timed ones,
# for each of FL_VARIANTS (default "plain validate pause"): plain, back to
# back as bench-brokers.sh times them; validate, with validateOnly (the
# same forwarding, nothing created, so no replica work on the brokers);
# pause, FL_PAUSE_MS (default 300) between calls (the brokers' replica work
# for one topic done before the next call).
# The broker (and a Java controller) log every request through
# kafka.request.logger at DEBUG; a kraft-rs controller logs each Envelope
# it answers (KRAFT_LOG kraft_controller::handlers::envelope=debug). The
# script prints, per implementation, the medians of the Admin client's
# call time and of the broker's CreateTopics stages (totalTime,
# requestQueueTime, localTime, remoteTime = the forwarding to the
# controller, responseQueueTime, sendTime) and the controller's own time
# for the Envelope, and each node's CPU time per call. FL_KEEP=1 keeps the work directory. A measurement aid,
# not part of CI.
set -euo pipefail

kraft=${1:?usage: forward-latency.sh KRAFT_BINARY}
case $kraft in /*) ;; *) kraft=$PWD/$kraft ;; esac
[[ -x $kraft ]] || { echo "forward-latency.sh: $kraft is not executable" >&2; exit 2; }
impls=${FL_IMPLS:-kraft java}
n=${FL_N:-50}
warmup=${FL_WARMUP:-5}
variants=${FL_VARIANTS:-plain validate pause}
pause_ms=${FL_PAUSE_MS:-300}
start_timeout=90
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(mktemp -d "${TMPDIR:-/tmp}/kraft-fwd.XXXXXX")
script=forward-latency.sh
# shellcheck source=tests/interop/cluster-lib.sh
source "$here/cluster-lib.sh"
size=${FL_SIZE:-3}
case $size in
1) brokers=(4) controllers=(1) ;;
3) ;;
*) echo "forward-latency.sh: FL_SIZE is 1 or 3" >&2; exit 2 ;;
esac
trap cleanup EXIT
# kraft-rs controllers log each Envelope they answer; every JVM logs its
# requests (kafka.request.logger at DEBUG).
eval "lib_start_controller() $(declare -f start_controller | tail -n +2)"
start_controller() {
    local id=$1 nd="$d/node$1"
    grep -qs kafka.request.logger "$d/server-log4j2.properties" ||
        printf 'logger.request.name = kafka.request.logger\nlogger.request.level = debug\n' >>"$d/server-log4j2.properties"
    if [[ $(impl_of "$id") == kraft-rs ]]; then
        KRAFT_LOG=info,kraft_controller::handlers::envelope=debug NO_COLOR=1 \
            "$kraft" server --config "$nd/server.properties" >>"$nd/server.log" 2>&1 &
        echo $! >"$nd/pid"
    else
        lib_start_controller "$id"
    fi
}

# median: the median of the numbers on stdin (one a line), or "-".
median() { sort -n | awk '{a[NR] = $1} END {if (NR) printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; else printf "-"}'; }

# cpu_ms ID: node ID's CPU time so far (utime + stime, ms).
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000 / hz}' "/proc/$(pid_of "$1")/stat" 2>/dev/null || echo 0; }
# measure IMPL VARIANT: one CreateLatency run and its stages.
measure() {
    local impl=$1 v=$2 b id pause=0 mode=create vd
    local -A lines=() cpu0=()
    case $v in
    plain) ;;
    validate) mode=validate ;;
    pause) pause=$pause_ms ;;
    *) fail "FL_VARIANTS names plain, validate or pause, not $v" ;;
    esac
    vd="$d/$v"
    mkdir -p "$vd"
    for id in "${controllers[@]}" "${brokers[@]}"; do
        lines[$id]=$(log_lines "$d/node$id/server.log")
    done
    bash "$kq" java "$d" org.kraftrs.interop.CreateLatency "$(alive_bs "${brokers[@]}")" "$v-prime-" 0 1 "$size" 0 "$mode" \
        >/dev/null 2>"$vd/latency.err" || fail "$impl: CreateLatency failed: $(tail -n 5 "$vd/latency.err")"
    for id in "${controllers[@]}" "${brokers[@]}"; do cpu0[$id]=$(cpu_ms "$id"); done
    bash "$kq" java "$d" org.kraftrs.interop.CreateLatency "$(alive_bs "${brokers[@]}")" "$v-" "$warmup" "$n" "$size" "$pause" "$mode" \
        >"$vd/latency.out" 2>"$vd/latency.err" || fail "$impl: CreateLatency failed: $(tail -n 5 "$vd/latency.err")"
    sleep 1
    local cpu=
    for id in "${controllers[@]}" "${brokers[@]}"; do
        cpu+=" $id:$(awk -v a="${cpu0[$id]}" -v b="$(cpu_ms "$id")" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')"
    done
    # The broker's request log: the timed calls are the last n CreateTopics.
    # (The Admin client sends them to the broker MetadataResponse names as
    # controller: one broker; the others forward none.)
    for b in "${brokers[@]}"; do
        tail -n "+$((lines[$b] + 1))" "$d/node$b/server.log" | grep '"requestApiKeyName":"CREATE_TOPICS"' || true
    done | sort | tail -n "$n" >"$vd/broker-createtopics.log"
    local f stages=
    for f in totalTime requestQueueTime localTime remoteTime throttleTime responseQueueTime sendTime; do
        stages+=" $f=$(sed -n "s/.*\"${f}Ms\":\([0-9.]*\),.*/\1/p" "$vd/broker-createtopics.log" | median)"
    done
    # Per call: client ms, broker totalTime and remoteTime, controller ms.
    grep '^call ' "$vd/latency.out" | sed 's/.* ms=//' >"$vd/c.client"
    sed -n 's/.*"totalTimeMs":\([0-9.]*\),.*"remoteTimeMs":\([0-9.]*\),.*/\1 \2/p' "$vd/broker-createtopics.log" >"$vd/c.broker"
    for id in "${controllers[@]}"; do tail -n "+$((lines[$id] + 1))" "$d/node$id/server.log"; done | sort >"$vd/controllers.log"
    if [[ $impl == kraft ]]; then
        sed -n 's/.*envelope answered.* micros=\([0-9]*\).*/\1/p' "$vd/controllers.log" | tail -n "$n" |
            awk '{printf "%.3f\n", $1 / 1000}' >"$vd/c.controller"
    else
        grep '"requestApiKeyName":"CREATE_TOPICS"' "$vd/controllers.log" | grep '"isForwarded":true' | tail -n "$n" |
            sed -n 's/.*"totalTimeMs":\([0-9.]*\),.*/\1/p' >"$vd/c.controller"
    fi
    paste "$vd/c.client" "$vd/c.broker" "$vd/c.controller" >"$vd/calls.txt"
    echo "$impl $v: client $(grep '^create_single' "$vd/latency.out")"
    echo "$impl $v: broker CreateTopics medians (ms, $(wc -l <"$vd/broker-createtopics.log") calls):$stages"
    echo "$impl $v: the controller's own time for the forwarded CreateTopics (median, ms): $(median <"$vd/c.controller")"
    echo "$impl $v: CPU per call (ms) by node:$cpu"
}

run_impl() {
    local impl=$1 did t0 deadline
    d="$root/$impl"
    tag=$impl
    if ((size == 3)); then
        if [[ $impl == kraft ]]; then
            setup_controllers kraft kraft kraft
        else
            setup_controllers java java java
        fi
    else
        cluster_id=$(bash "$kq" init "$d")
        cbs="127.0.0.1:$(port 1)"
        if [[ $impl == kraft ]]; then write_kraft_config 1; else write_java_controller_config 1; fi
        did=$("$kraft" storage random-uuid)
        format_controller 1 "1@127.0.0.1:$(port 1):$did" || fail "format of controller 1"
        start_controller 1
        deadline=$((SECONDS + 90))
        until [[ $(leader_id) == 1 ]]; do
            ((SECONDS < deadline)) || fail "$impl: controller 1 does not lead"
            sleep 0.5
        done
    fi
    start_brokers "$impl"
    local v
    for v in $variants; do measure "$impl" "$v"; done
    stop_scenario "$d"
}

for i in $impls; do run_impl "$i"; done
if [[ -z ${FL_KEEP:-} ]]; then
    cleanup
    trap - EXIT
    rm -rf "$root"
else
    echo "work directory: $root"
fi
