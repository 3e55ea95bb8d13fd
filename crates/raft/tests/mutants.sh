#!/usr/bin/env bash
# Mutation proof for the simulator's invariants.
#
# Each `mutate-*` feature of kraft-raft breaks one rule of the consensus core
# with a one-line `cfg!` switch. For each one this script runs the simulator
# and expects it to FAIL, reporting the invariant that caught the mutant and
# the first failing seed. Entries with `:inv,...` rerun a mutant with those
# invariants switched off (SIM_DISABLE) to show that another invariant catches
# it too, so every invariant is proven by at least one mutant.
# A mutant that survives makes the script exit 1.
#
# The second part does the same for the bounded model check (the
# `model_check` test, CI bound): each listed mutant must yield a
# counterexample in the named scenario. The mutants not listed there survive
# the CI bound (their counterexamples are longer than its depth), or cannot
# occur in its topology (observer-in-majority: with 3 voters and 1 observer
# the majority of 4 always holds 2 voters).
#
# Usage: crates/raft/tests/mutants.sh [seeds-per-mutant]   (default 300)
set -u
cd "$(dirname "$0")/../../.."
SEEDS="${1:-300}"
MUTANTS=(
  mutate-skip-one-change-check
  mutate-observer-in-majority
  mutate-accept-stale-vote
  mutate-ack-before-fsync
  mutate-commit-old-epoch-by-count
  mutate-vote-twice-per-epoch
  mutate-skip-divergence-check
  mutate-divergence-offset-only
  mutate-diverge-too-far
  mutate-hw-may-decrease
  mutate-committed-voters-latest
  mutate-skip-kraft-version-check
  mutate-never-campaign
  "mutate-vote-twice-per-epoch:election-safety"
  "mutate-diverge-too-far:committed-durable"
)
survivors=0
printf '%-36s %-38s %-20s %s\n' "mutant" "invariants disabled" "caught by" "first failing seed"
for entry in "${MUTANTS[@]}"; do
  m="${entry%%:*}"
  disabled=""
  [ "$entry" != "$m" ] && disabled="${entry#*:}"
  out=$(SIM_DISABLE="$disabled" SIM_SEEDS="$SEEDS" cargo test -q -p kraft-raft --features "$m" --test simulation -- --nocapture 2>&1)
  line=$(printf '%s\n' "$out" | grep -m1 'SIMULATION FAILURE')
  if [ -z "$line" ]; then
    printf '%-36s %-38s %-20s %s\n' "$m" "${disabled:--}" "SURVIVED" "-"
    survivors=$((survivors + 1))
  else
    inv=$(printf '%s\n' "$line" | sed -E 's/.*invariant=([a-z-]+):.*/\1/')
    seed=$(printf '%s\n' "$line" | sed -E 's/.*seed=([0-9]+).*/\1/')
    printf '%-36s %-38s %-20s %s\n' "$m" "${disabled:--}" "$inv" "$seed"
  fi
done
MODEL_MUTANTS=(
  mutate-ack-before-fsync:replication
  mutate-committed-voters-latest:replication
  mutate-vote-twice-per-epoch:election
  mutate-accept-stale-vote:stale-election
)
echo
printf '%-36s %-12s %-20s %s\n' "mutant (model check)" "scenario" "caught by" "counterexample"
for entry in "${MODEL_MUTANTS[@]}"; do
  m="${entry%%:*}"
  scenario="${entry#*:}"
  out=$(MC_SCENARIO="$scenario" cargo test -q -p kraft-raft --features "$m" --test simulation model_check -- --nocapture 2>&1)
  line=$(printf '%s\n' "$out" | grep -m1 'MODEL CHECK FAILURE')
  if [ -z "$line" ]; then
    printf '%-36s %-12s %-20s %s\n' "$m" "$scenario" "SURVIVED" "-"
    survivors=$((survivors + 1))
  else
    inv=$(printf '%s\n' "$line" | sed -E 's/.*invariant=([a-z-]+):.*/\1/')
    steps=$(printf '%s\n' "$out" | grep -m1 '^counterexample' | sed -E 's/counterexample \(([0-9]+) steps\).*/\1 steps/')
    printf '%-36s %-12s %-20s %s\n' "$m" "$scenario" "$inv" "$steps"
  fi
done
if [ "$survivors" -ne 0 ]; then
  echo "$survivors mutant(s) survived" >&2
  exit 1
fi
echo "all mutants caught"
