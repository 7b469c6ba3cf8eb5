#!/usr/bin/env bash
# Builds every target and runs every test (ctest) under ASan and UBSan with
# clang, in build-asan/: memory errors and undefined behaviour anywhere the
# test suite reaches, not only where the fuzz harnesses do. UBSan is fatal
# (-fno-sanitize-recover), so a report fails its test. Not in .ci/run: it
# does not fit CI's budget on a 2-core machine (README, Fuzzing, gives the
# measured time).
# One test fails here by design of ASan, not of kmc: tests/cli/stop_test.cpp's
# "an allocation failure ends a check in Incomplete" runs kmc under `ulimit -v`
# (160 MiB), and ASan cannot reserve its shadow memory within that (exit 134).
# Measured: 54 min to build, 3 min to test, on the 2-core machine while shared.
# usage: scripts/asan-tests.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# clang 16, as scripts/fuzz.sh: clang 14 cannot compile the sources (fuzz/sanitizers.cmake).
CXX=${KMC_FUZZ_CXX:-clang++-16} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
if ! nice -n 15 cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
  grep -E "error|Error" "$build/build.log" | head -40
  exit 1
fi
# detect_leaks: kmc ends some runs with exit() from deep inside (signals, bounds); a leak is not a crash here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure "$@"
