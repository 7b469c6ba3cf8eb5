#!/usr/bin/env bash
# How long `kmc validate --walk` takes on every MultiKueue example: seeded
# random engine walks, each engine step explained by the model's best-first
# search. Figures only: nothing here asserts on time. With --baseline, the
# same walks by another kmc binary (kmc before a change), one after the other.
#   bench/validate_walks.sh [--build DIR] [--baseline KMC] [--walks N] [--steps K] [--max-states N]
# A line per example:
#   NAME  RESULT  cpu seconds: kmc X [baseline Y  speed-up R]
set -euo pipefail

build=build baseline="" walks=30 steps=40 max_states=""
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --walks) walks=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --max-states) max_states="--max-states $2"; shift 2 ;;
    *) echo "usage: bench/validate_walks.sh [--build DIR] [--baseline KMC] [--walks N] [--steps K] [--max-states N]" >&2; exit 2 ;;
  esac
done
kmc=$build/cli/kmc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "CPU RESULT" of one validate run; exit 0 allowed, 1 not, 2 Incomplete; 3 is an error.
one() {
  local rc=0
  # shellcheck disable=SC2086
  /usr/bin/time -f '%U %S' -o "$work/time" "$1" validate --walk "$2" --walks "$walks" \
    --steps "$steps" $max_states >"$work/out" 2>"$work/err" || rc=$?
  [ $rc -lt 3 ] || { cat "$work/err" >&2; exit 1; }
  echo "$(tail -1 "$work/time" | awk '{printf "%.2f", $1 + $2}') $(head -1 "$work/out" | cut -d: -f1)"
}

for dir in examples/*/; do
  [ -f "$dir/kmc.yaml" ] || continue
  grep -q '^protocol: ' "$dir/kmc.yaml" && ! grep -q '^protocol: multikueue' "$dir/kmc.yaml" && continue
  name=$(basename "$dir")
  read -r cpu result <<<"$(one "$kmc" "$dir")"
  if [ -n "$baseline" ]; then
    read -r base base_result <<<"$(one "$baseline" "$dir")"
    awk -v n="$name" -v r="$result" -v c="$cpu" -v b="$base" -v br="$base_result" 'BEGIN {
      printf "%-36s %-10s cpu seconds: kmc %7.2f baseline %7.2f (%s)  speed-up %.1f\n",
        n, r, c, b, br, b / (c > 0.005 ? c : 0.005)}'
  else
    printf "%-36s %-10s cpu seconds: kmc %7.2f\n" "$name" "$result" "$cpu"
  fi
done
