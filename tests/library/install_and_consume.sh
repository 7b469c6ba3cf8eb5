#!/usr/bin/env bash
# kmc as a library, end to end (docs/library.md): `cmake --install` the build
# into a fresh prefix, configure examples/library against it with
# find_package(kmc), build it, and run it: the GPU Hunter scenario checked
# through <kmc/kmc.hpp> is Violated and its trace reproduces in the engine;
# the property over kmc's RapidCheck generators holds, and its wrong
# variant fails. Writes only under a fresh temporary folder.
#
#   tests/library/install_and_consume.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "library test: $*" >&2
  exit 1
}

echo "+ cmake --install $build --prefix $tmp/prefix"
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || {
  cat "$tmp/install.log"
  fail "cmake --install failed"
}
for f in bin/kmc include/kmc/kmc.hpp include/kmc/api/api.hpp include/kmc/model/scenario.hpp \
  include/kmc/rapidcheck/kueue.hpp include/kmc/rapidcheck/fleet.hpp lib/cmake/kmc/kmcConfig.cmake; do
  [ -e "$tmp/prefix/$f" ] || fail "the install lacks $f"
done

# The installed binary runs on its own: the shipped deadlock is found (exit 1).
status=0
(cd "$tmp" && "$tmp/prefix/bin/kmc" check "$src/examples/gpu-hunter") >"$tmp/kmc.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || fail "the installed kmc check exited $status, expected 1 (Violated)"

# No build type: the example is small, and -O0 without -g compiles fastest on CI's two cores.
echo "+ configure and build examples/library against it"
cmake -S "$src/examples/library" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE= >"$tmp/configure.log" 2>&1 || {
  cat "$tmp/configure.log"
  fail "configuring examples/library against the installed package failed"
}
cmake --build "$tmp/example" -j2 >"$tmp/build.log" 2>&1 || {
  cat "$tmp/build.log"
  fail "building examples/library failed"
}

echo "+ check_scenario examples/gpu-hunter"
status=0
(cd "$tmp" && "$tmp/example/check_scenario" "$src/examples/gpu-hunter" "$tmp/trace.itf.json") \
  >"$tmp/check.out" 2>&1 || status=$?
cat "$tmp/check.out"
[ "$status" -eq 1 ] || fail "check_scenario exited $status, expected 1 (Violated)"
grep -qx "protocol: multikueue" "$tmp/check.out" || fail "no protocol line"
grep -qx "Result: Violated" "$tmp/check.out" || fail "the result is not Violated"
grep -qx "no-stuck-job is Violated" "$tmp/check.out" || fail "no-stuck-job is not Violated"
grep -qx "engine replay: Reproduced" "$tmp/check.out" || fail "the trace did not reproduce"

echo "+ policy_test"
(cd "$tmp" && "$tmp/example/policy_test") >"$tmp/policy.out" 2>&1 || {
  cat "$tmp/policy.out"
  fail "policy_test failed"
}
grep -q "OK, passed" "$tmp/policy.out" || fail "policy_test passed no tests"

echo "+ policy_test --half (a wrong claim: must fail)"
status=0
(cd "$tmp" && "$tmp/example/policy_test" --half) >"$tmp/half.out" 2>&1 || status=$?
[ "$status" -eq 1 ] || {
  cat "$tmp/half.out"
  fail "policy_test --half exited $status, expected 1"
}
grep -q "Falsifiable" "$tmp/half.out" || fail "policy_test --half found no counterexample"
echo "library: installed, found, built, checked, replayed, property tested"
