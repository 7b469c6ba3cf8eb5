#!/usr/bin/env bash
# Builds fuzz/'s libFuzzer harnesses (clang 16, ASan + UBSan) in build-fuzz/ and
# runs each for SECONDS (default 60) on a copy of its seed corpus in a fresh
# temporary folder, so nothing is written into the repository. Prints, per
# harness, how many inputs it ran and whether it found a crash; a crash input
# is kept in build-fuzz/findings/<harness>/ and its path printed. Exit 1 if
# any harness found one (README, Fuzzing).
# usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
harnesses=(quantity manifests scenario itf expression)

echo "fuzz: building the harnesses in $build/"
CXX=${KMC_FUZZ_CXX:-clang++-16} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKMC_FUZZ=ON \
  -DBUILD_TESTING=OFF >/dev/null
if ! nice -n 15 cmake --build "$build" -j2 --target kmc_fuzz >"$build/build.log" 2>&1; then
  grep -E "error|Error" "$build/build.log" | head -40
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scripts/fuzz-seeds.sh "$work/corpus"

status=0
for h in "${harnesses[@]}"; do
  findings="$build/findings/$h"
  mkdir -p "$findings"
  before=$(find "$findings" -type f | sort)
  # -timeout: an input that runs this long is a hang (yaml-cpp's LoadAll
  # loops forever on some); -rss_limit_mb: a memory blow-up is a finding too.
  # A dictionary of the format's words (fuzz/dicts/) lets mutations make keys, not only bytes.
  dict=()
  [ -f "fuzz/dicts/$h.dict" ] && dict=(-dict="fuzz/dicts/$h.dict")
  rc=0
  "$build/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "${dict[@]}" \
    -print_final_stats=1 -artifact_prefix="$findings/" "$work/corpus/$h" >"$work/$h.log" 2>&1 ||
    rc=$?
  # `|| true`: a harness that aborts before its first input prints neither count, and under
  # set -e an empty grep here ended the script silently instead of reporting the crash.
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$h.log" | grep -oE '[0-9]+$' ||
    grep -oE '^#[0-9]+' "$work/$h.log" | tail -1 | tr -d '#' || true)
  new=$(comm -13 <(echo "$before") <(find "$findings" -type f | sort) | grep . || true)
  # libFuzzer keeps an input that once ran over 10 s as slow-unit-*, even when
  # it exits 0. On a shared 2-core machine a stall does that to an input that
  # takes milliseconds: each is run again alone, and only one that is slow
  # again (the same 10 s) is a finding; the others are reported and kept aside.
  if [ "$rc" -eq 0 ] && [ -n "$new" ]; then
    kept=""
    for f in $new; do
      if [[ "$(basename "$f")" == slow-unit-* ]] &&
        timeout 10 "$build/fuzz/fuzz_$h" "$f" >/dev/null 2>&1; then
        mkdir -p "$findings/stalls"
        mv "$f" "$findings/stalls/"
        echo "fuzz_$h: $(basename "$f") was slow once but runs in under 10 s alone (a stall); kept in $findings/stalls/"
      else
        kept="$kept $f"
      fi
    done
    new=$(echo "$kept" | xargs -n1 2>/dev/null | grep . || true)
  fi
  if [ "$rc" -eq 0 ] && [ -z "$new" ]; then
    echo "fuzz_$h: ${execs:-?} executions in ${seconds} s, no crash"
  else
    status=1
    cp "$work/$h.log" "$findings/last-run.log"
    echo "fuzz_$h: ${execs:-?} executions, FOUND A CRASH (exit $rc); log $findings/last-run.log"
    grep -E '^==[0-9]+==ERROR|runtime error|uncaught exception|deadly signal|timeout|out-of-memory' \
      "$work/$h.log" | head -3 | sed 's/^/  /'
    for f in $new; do echo "  input: $f (reproduce: $build/fuzz/fuzz_$h $f)"; done
  fi
done
exit $status
