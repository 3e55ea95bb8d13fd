# Shared by cluster-lib.sh and bench-brokers.sh (sourced, not run).
# shellcheck shell=bash

# stop_pids PIDFILE...: SIGTERM every live process named there, SIGKILL
# what is left after stop_grace_s seconds (default 10).
stop_pids() {
    local pids=() f p left i
    for f in "$@"; do
        [[ -f $f ]] || continue
        p=$(cat "$f")
        kill -0 "$p" 2>/dev/null && pids+=("$p")
    done
    ((${#pids[@]})) || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < ${stop_grace_s:-10} * 4; i++)); do
        left=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
        ((left)) || break
        sleep 0.25
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}
