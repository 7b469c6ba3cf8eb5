#!/usr/bin/env bash
# What symmetry reduction buys (issue 13): for every example and for the
# SPIN peer's series, the states and CPU seconds with and without it, and the
# verdicts (which must agree when both searches finish). Figures only:
# nothing here asserts on time.
#   bench/reductions.sh [--build DIR] [--time-limit S] [--peer "W2J3 W3J4 ..."]
# A line per check:
#   NAME  symmetry: STATES states, CPU s, VERDICT | none: STATES states, CPU s, VERDICT | ratio R
# The peer's unreduced W3J5 (64.3M states; SPIN takes 285 s) is left out by
# default: give it in --peer to run it.
set -euo pipefail

build=build limit=60 peer="W2J3 W3J3 W3J4 W4J4"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --time-limit) limit=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    *) echo "usage: bench/reductions.sh [--build DIR] [--time-limit S] [--peer CONFIGS]" >&2; exit 2 ;;
  esac
done
kmc=$build/cli/kmc spin=$build/bench/spin_peer_kmc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "STATES CPU VERDICT" of one run: kmc exits 1 (violated) or 2 (incomplete) normally.
one() {
  local rc=0
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" >"$work/out" 2>/dev/null || rc=$?
  [ $rc -lt 3 ] || { cat "$work/out" >&2; exit 1; }
  local cpu
  cpu=$(tail -1 "$work/time" | awk '{printf "%.2f", $1 + $2}')
  if grep -q '^states: ' "$work/out"; then  # spin_peer_kmc
    echo "$(sed -n 's/^states: //p' "$work/out") $cpu $(sed -n 's/^verdict: \([A-Za-z]*\).*/\1/p' "$work/out")"
  else
    echo "$(sed -n 's/^Stats: \([0-9]*\) states.*/\1/p' "$work/out") $cpu $(sed -n 's/^Result: \([A-Za-z]*\).*/\1/p' "$work/out")"
  fi
}

row() {  # NAME, then the with and without runs' "STATES CPU VERDICT"
  local name=$1 a=($2) b=($3)
  awk -v n="$name" -v s1="${a[0]}" -v c1="${a[1]}" -v v1="${a[2]}" -v s2="${b[0]}" -v c2="${b[1]}" \
    -v v2="${b[2]}" 'BEGIN {printf "%-36s symmetry: %9d states, %7.2f s, %-10s | none: %9d states, %7.2f s, %-10s | ratio %.2f\n",
      n, s1, c1, v1, s2, c2, v2, s2 / (s1 ? s1 : 1)}'
}

for dir in examples/*/; do
  [ -f "$dir/kmc.yaml" ] || continue
  name=$(basename "$dir")
  with=$(one "$kmc" check "$dir" --time-limit "$limit" --no-shrink)
  without=$(one "$kmc" check "$dir" --time-limit "$limit" --no-shrink --no-symmetry)
  row "$name" "$with" "$without"
done
# Partial-order reduction (--por) on the three always properties, where it is sound: the same
# line shape, "por" against "none".
safety="--property no-job-on-two-workers --property cluster-queue-within-quota --property quota-counted-once"
for dir in examples/*/; do
  [ -f "$dir/kmc.yaml" ] || continue
  grep -q '^protocol: ' "$dir/kmc.yaml" && ! grep -q '^protocol: multikueue' "$dir/kmc.yaml" && continue
  name=$(basename "$dir")
  with=$(one "$kmc" check "$dir" $safety --time-limit "$limit" --no-shrink --por)
  without=$(one "$kmc" check "$dir" $safety --time-limit "$limit" --no-shrink)
  row "$name (safety, --por)" "$with" "$without" | sed 's/symmetry:/por:     /'
done
for config in $peer; do
  row "spin-peer $config" "$(one "$spin" "$config" --symmetry)" "$(one "$spin" "$config")"
done
# Unreduced, from SEMANTICS.md §3 (SPIN stores exactly the reachable states): 64,311,118 states.
row "spin-peer W3J5 (none: SEMANTICS.md)" "$(one "$spin" W3J5 --symmetry)" "64311118 0 not-run"
