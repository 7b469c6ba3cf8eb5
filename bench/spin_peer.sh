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
#   bench/spin_peer.sh [--build DIR] CONFIG     e.g. W3J4, W2J2,C0=0,S0=8
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=$root/build
while [ $# -gt 1 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: bench/spin_peer.sh [--build DIR] CONFIG" >&2; exit 2; }
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
/usr/bin/time -f '%U %S %M' -o "$work/kmc.time" "$kmc" "$config" >"$work/kmc.out" || {
  cat "$work/kmc.out" >&2
  exit 1
}
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
  # -c0: go on past errors, so a config with deadlocks still stores every state.
  /usr/bin/time -f '%U %S %M' -o pan.time ./pan -m1000000 -w"$k" -c0 >pan.out
) || {
  cat "$work"/spin.log "$work"/pan.out >&2 2>/dev/null || true
  exit 1
}
if grep -q 'max search depth too small' "$work/pan.out"; then
  echo "spin_peer.sh: pan's -m1000000 cut the search: raise it" >&2
  exit 1
fi
# pan prints large counts in floating point (1.2930630e+07): read them as numbers.
m=$(awk '/states, stored/ {printf "%.0f", $1}' "$work/pan.out")

awk -v n="$n" -v m="$m" -v kt="$(cat "$work/kmc.time")" -v st="$(cat "$work/pan.time")" '
  BEGIN {
    split(kt, a, " "); split(st, b, " ")
    kc = a[1] + a[2]; sc = b[1] + b[2]
    printf "states: kmc %d spin %d\n", n, m
    printf "cpu seconds: kmc %.2f spin %.2f\n", kc, sc
    printf "peak rss MiB: kmc %.1f spin %.1f\n", a[3] / 1024, b[3] / 1024
    # /usr/bin/time counts in hundredths: below that a rate means nothing.
    if (kc > 0 && sc > 0) printf "kmc/spin speed (states per cpu-second): %.2f\n", (n / kc) / (m / sc)
    else print "kmc/spin speed (states per cpu-second): n/a (a run took under 0.01 s)"
  }'
if [ "$n" != "$m" ]; then
  echo "spin_peer.sh: kmc and SPIN disagree on the state count of $config" >&2
  exit 1
fi
