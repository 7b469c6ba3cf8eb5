#!/usr/bin/env bash
# Times two kmc binaries on the same check, interleaved (old, new, old, new...)
# so that a shared, noisy machine slows both alike, and prints the medians:
#   old: cpu seconds X, peak rss MiB A, states N
#   new: cpu seconds Y, peak rss MiB B, states M
#   new/old: cpu seconds Y/X, peak rss B/A
# Exits non-zero when the two disagree on the state count (then they checked
# different graphs and the ratio means nothing).
#   bench/kmc_versus.sh [--runs N] OLD_KMC NEW_KMC -- CHECK_ARGS...
#   e.g. bench/kmc_versus.sh /tmp/kmc-main build/cli/kmc -- examples/three-workers --max-states 1000000 --threads 1
set -euo pipefail

runs=5
if [ "${1:-}" = --runs ]; then runs=$2; shift 2; fi
if [ $# -lt 3 ] || [ "$3" != -- ]; then
  echo "usage: bench/kmc_versus.sh [--runs N] OLD_KMC NEW_KMC -- CHECK_ARGS..." >&2
  exit 2
fi
old=$1 new=$2
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for ((i = 0; i < runs; i++)); do
  for side in old new; do
    bin=$old
    [ $side = new ] && bin=$new
    # kmc exits 1 (violated) or 2 (incomplete) on a normal run: only 3 and up are failures.
    rc=0
    /usr/bin/time -f '%U %S %M' -o "$work/time" "$bin" check "$@" >"$work/out" 2>/dev/null || rc=$?
    if [ $rc -ge 3 ]; then
      cat "$work/out" >&2
      exit 1
    fi
    states=$(sed -n 's/^Stats: \([0-9]*\) states.*/\1/p' "$work/out")
    # time -o writes "Command exited with non-zero status N" first when N is not 0.
    tail -1 "$work/time" | awk -v s="$states" '{printf "%.2f %.1f %s\n", $1 + $2, $3 / 1024, s}' >>"$work/$side"
  done
done

median() { sort -n -k"$2" "$1" | awk -v k="$2" '{v[NR] = $k} END {print v[int((NR + 1) / 2)]}'; }
for side in old new; do
  printf '%s: cpu seconds %s, peak rss MiB %s, states %s\n' "$side" "$(median "$work/$side" 1)" \
    "$(median "$work/$side" 2)" "$(median "$work/$side" 3)"
done
awk -v oc="$(median "$work/old" 1)" -v nc="$(median "$work/new" 1)" \
  -v om="$(median "$work/old" 2)" -v nm="$(median "$work/new" 2)" \
  'BEGIN {printf "new/old: cpu seconds %.2f, peak rss %.2f\n", nc / oc, nm / om}'
[ "$(median "$work/old" 3)" = "$(median "$work/new" 3)" ] || {
  echo "kmc_versus.sh: the two binaries disagree on the state count" >&2
  exit 1
}
