#!/usr/bin/env bash
# Times kmc against SPIN on the same state graph: the SPIN peer
# (bench/peers/spin/model.pml, SEMANTICS.md) at one config name, explored by
# pan as SEMANTICS.md §2 builds it and by spin_peer_kmc, one after the other,
# each under /usr/bin/time (CPU = user + sys, peak RSS). Prints four lines:
#   states: kmc N spin M
#   cpu seconds: kmc X spin Y
#   peak rss MiB: kmc A spin B
#   kmc/spin speed (states per cpu-second): R
# and exits non-zero when the two counts differ, since then the timings are of
# different graphs. Build logs and pan's report go to stderr on failure only.
# With --runs N (default 3) both run N times, interleaved (kmc, SPIN, kmc,
# SPIN...) so a shared machine's noise hits both alike, and the figures are
# medians.
#   bench/spin_peer.sh [--build DIR] [--runs N] CONFIG     e.g. W3J4, W2J2,C0=0,S0=8
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$root/build
runs=3
while [ $# -gt 1 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bench/spin_peer.sh [--build DIR] [--runs N] CONFIG" >&2; exit 2; }
config=$1

command -v spin >/dev/null || apt-get install -y spin >&2
[ -x /usr/bin/time ] || apt-get install -y time >&2

# Configure only a folder that has never been configured: an existing build
# keeps its own type. Then build just the one target (a no-op when current).
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >&2
fi
nice -n 10 cmake --build "$build" --target spin_peer_kmc >&2
kmc=$build/bench/spin_peer_kmc

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The same instance for both: spin_peer_kmc's parser gives SPIN its -D flags.
read -r -a flags <<<"$("$kmc" "$config" --spin-flags)"

# kmc first: its count sizes pan's hash table (-w: 2^k slots for the states, at least 2^18).
run_kmc() {
  /usr/bin/time -f '%U %S %M' -o "$work/kmc.time" "$kmc" "$config" >"$work/kmc.out" || {
    cat "$work/kmc.out" >&2
    exit 1
  }
  awk '{print $1 + $2, $3}' "$work/kmc.time" >>"$work/kmc.runs"
}
run_kmc
n=$(awk '/^states:/ {print $2}' "$work/kmc.out")
k=18
while [ $((1 << k)) -lt "$n" ] && [ $k -lt 32 ]; do k=$((k + 1)); done

# pan's memory bound: SEMANTICS.md's 16000 MB, or less where the machine has less.
avail=$(awk '/MemAvailable/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
memlim=$((avail < 16000 ? avail : 16000))
(
  cd "$work"
  spin -a "${flags[@]}" "$here/peers/spin/model.pml" >spin.log
  gcc -O2 -w -DMEMLIM="$memlim" -DVECTORSZ=2048 -DSAFETY -o pan pan.c
) || {
  cat "$work"/spin.log >&2 2>/dev/null || true
  exit 1
}
run_pan() {
  # -c0: go on past errors, so a config with deadlocks still stores every state.
  (cd "$work" && /usr/bin/time -f '%U %S %M' -o pan.time ./pan -m1000000 -w"$k" -c0 >pan.out) || {
    cat "$work"/pan.out >&2 2>/dev/null || true
    exit 1
  }
  awk '{print $1 + $2, $3}' "$work/pan.time" >>"$work/pan.runs"
}
run_pan
for ((i = 1; i < runs; i++)); do
  run_kmc
  run_pan
done
median() { sort -n -k"$2" "$1" | awk -v k="$2" '{v[NR] = $k} END {print v[int((NR + 1) / 2)]}'; }
# pan prints large counts in floating point (1.2930630e+07): read them as numbers.
m=$(awk '/states, stored/ {printf "%.0f", $1}' "$work/pan.out")

awk -v n="$n" -v m="$m" -v kc="$(median "$work/kmc.runs" 1)" -v sc="$(median "$work/pan.runs" 1)" \
  -v km="$(median "$work/kmc.runs" 2)" -v sm="$(median "$work/pan.runs" 2)" -v runs="$runs" '
  BEGIN {
    printf "states: kmc %d spin %d\n", n, m
    printf "cpu seconds: kmc %.2f spin %.2f\n", kc, sc
    printf "peak rss MiB: kmc %.1f spin %.1f\n", km / 1024, sm / 1024
    # /usr/bin/time counts in hundredths: below that a rate means nothing.
    if (kc > 0 && sc > 0) printf "kmc/spin speed (states per cpu-second): %.2f\n", (n / kc) / (m / sc)
    else print "kmc/spin speed (states per cpu-second): n/a (a run took under 0.01 s)"
    if (runs > 1) printf "(medians of %d runs each, interleaved)\n", runs
  }'
if [ "$n" != "$m" ]; then
  echo "spin_peer.sh: kmc and SPIN disagree on the state count of $config" >&2
  exit 1
fi
