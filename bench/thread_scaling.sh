#!/usr/bin/env bash
# How one check scales with threads: runs COMMAND ARGS --threads T for every
# T, interleaved (1, 2, 4, ..., then again) so that a noisy machine slows all
# alike, and prints per T the medians of wall seconds, CPU seconds and peak
# RSS, and the speedup (wall seconds with the first T over wall seconds with T),
# and the same for the fastest run of each T (best_s, best_x):
#   threads  wall_s  best_s  cpu_s  rss_MiB  states  speedup  best_x
# COMMAND is `kmc check` (text or --output json) or bench's spin_peer_kmc: the
# state count is read from "Stats: N states", the JSON's stats or "states: N";
# where the output says how the wall time split into the search's phases
# (spin_peer_kmc, kmc --output json), the last run's split is printed too. Exits non-zero when two thread counts
# disagree on the state count: the search is deterministic, so that is a bug.
#   bench/thread_scaling.sh [--runs N] [--threads "1 2 4 8 16"] -- COMMAND ARGS...
#   e.g. bench/thread_scaling.sh --threads "1 2" -- build/cli/kmc check examples/three-workers --max-states 1000000
#        bench/thread_scaling.sh -- build-release/bench/spin_peer_kmc W4J4
# CPU seconds and peak RSS come from GNU time (the first `time` executable on PATH).
set -euo pipefail

runs=3
threads="1 2 4 8 16"
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    *) echo "bench/thread_scaling.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: bench/thread_scaling.sh [--runs N] [--threads \"1 2 4\"] -- COMMAND ARGS..." >&2
  exit 2
fi
shift
timebin=$(type -P time || true)
if [ -z "$timebin" ]; then
  echo "bench/thread_scaling.sh: GNU time is missing (Debian package time)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for ((i = 0; i < runs; i++)); do
  for t in $threads; do
    rc=0
    t0=$(date +%s%N)
    "$timebin" -f '%U %S %M' -o "$work/time" "$@" --threads "$t" >"$work/out" 2>/dev/null || rc=$?
    t1=$(date +%s%N)
    # kmc exits 1 (violated) or 2 (incomplete) on a normal run; spin_peer_kmc 1 when incomplete.
    if [ $rc -ge 3 ]; then
      cat "$work/out" >&2
      exit 1
    fi
    states=$(sed -n -e 's/^Stats: \([0-9]*\) states.*/\1/p' -e 's/^states: \([0-9]*\)$/\1/p' \
      -e 's/^    "states": \([0-9]*\),$/\1/p' "$work/out")
    [ -n "$states" ] || { echo "bench/thread_scaling.sh: no state count in the output" >&2; cat "$work/out" >&2; exit 1; }
    # time -o writes "Command exited with non-zero status N" first when N is not 0.
    tail -1 "$work/time" | awk -v w="$(((t1 - t0) / 1000000))" -v s="$states" \
      '{printf "%.3f %.2f %.1f %s\n", w / 1000, $1 + $2, $3 / 1024, s}' >>"$work/t$t"
    # Where the wall time went: spin_peer_kmc's line, or kmc --output json's phaseSeconds.
    { sed -n 's/^wall seconds: .*(\(.*\))$/\1/p' "$work/out"
      sed -n '/"phaseSeconds"/,/}/p' "$work/out" | grep -o '"[a-z]*": [0-9.e+-]*' | tr -d '"' |
        awk '{printf "%s %.2f, ", $1, $2} END {if (NR) printf "\n"}' || true; } >"$work/phases$t"
  done
done

median() { sort -n -k"$2" "$1" | awk -v k="$2" '{v[NR] = $k} END {print v[int((NR + 1) / 2)]}'; }
least() { sort -n -k"$2" "$1" | awk -v k="$2" 'NR == 1 {print $k}'; }
# best_s, the fastest run, beside the median: on a shared machine whose runs
# are sometimes all slowed alike by other tenants, the fastest is the least
# disturbed, and a median of few runs may not be.
printf '%-8s %8s %8s %8s %8s %12s %8s %8s\n' threads wall_s best_s cpu_s rss_MiB states speedup best_x
first= base= base_best=
for t in $threads; do
  w=$(median "$work/t$t" 1) bw=$(least "$work/t$t" 1)
  [ -n "$first" ] || { first=$t; base=$w; base_best=$bw; }
  awk -v t="$t" -v w="$w" -v bw="$bw" -v c="$(median "$work/t$t" 2)" -v m="$(median "$work/t$t" 3)" \
    -v s="$(median "$work/t$t" 4)" -v b="$base" -v bb="$base_best" \
    'BEGIN {printf "%-8s %8.2f %8.2f %8.2f %8.1f %12s %8.2f %8.2f\n", t, w, bw, c, m, s, b / w, bb / bw}'
  [ -s "$work/phases$t" ] && echo "         last run's phases, wall s: $(cat "$work/phases$t")"
done
if [ "$(cat "$work"/t[0-9]* | awk '{print $4}' | sort -u | wc -l)" -ne 1 ]; then
  echo "bench/thread_scaling.sh: thread counts disagree on the state count" >&2
  exit 1
fi
