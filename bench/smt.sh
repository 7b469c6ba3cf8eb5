#!/usr/bin/env bash
# What the SMT engines cost and buy (the SMT issue): for every MultiKueue
# example, CPU seconds of bounded model checking against explicit search for
# the always properties at each depth; then k-induction's proofs against
# explicit search on the same properties to the end. Figures only: nothing
# here asserts on time.
#   bench/smt.sh [--build DIR] [--depths "2 4 6 8"] [--time-limit S]
# Lines:
#   NAME  depth D  bmc: CPU s, VERDICT | explicit: CPU s, STATES states, VERDICT
#   NAME  PROPERTY  induction: CPU s, VERDICT (HOW) | explicit: CPU s, STATES states, VERDICT
set -euo pipefail

build=build depths="2 4 6 8 10" limit=120
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --depths) depths=$2; shift 2 ;;
    --time-limit) limit=$2; shift 2 ;;
    *) echo "usage: bench/smt.sh [--build DIR] [--depths \"2 4 6\"] [--time-limit S]" >&2; exit 2 ;;
  esac
done
kmc=$build/cli/kmc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
always="--property no-job-on-two-workers --property cluster-queue-within-quota --property quota-counted-once"

# "CPU STATES VERDICT" of one run; kmc exits 1 (violated) or 2 (incomplete) normally.
one() {
  local rc=0
  /usr/bin/time -f '%U %S' -o "$work/time" "$@" --output json >"$work/out" 2>/dev/null || rc=$?
  [ $rc -lt 3 ] || { cat "$work/out" >&2; exit 1; }
  local cpu
  cpu=$(tail -1 "$work/time" | awk '{printf "%.2f", $1 + $2}')
  python3 - "$work/out" "$cpu" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
how = ",".join(f'{p["name"]}={p["proof"]["method"]}:{p["proof"]["k"]}' for p in j["properties"] if p.get("proof"))
print(sys.argv[2], j["stats"]["states"], j["verdict"], how or "-")
PY
}

for dir in examples/*/; do
  grep -q '^manager:' "$dir/kmc.yaml" 2>/dev/null || continue  # MultiKueue fleets name a manager
  name=$(basename "$dir")
  for d in $depths; do
    b=($(one "$kmc" check "$dir" $always --engine bmc --max-depth "$d" --time-limit "$limit"))
    e=($(one "$kmc" check "$dir" $always --max-depth "$d" --time-limit "$limit" --no-shrink))
    printf '%-26s depth %2d  bmc: %7.2f s, %-10s | explicit: %7.2f s, %9d states, %s\n' \
      "$name" "$d" "${b[0]}" "${b[2]}" "${e[0]}" "${e[1]}" "${e[2]}"
  done
done
for name in gpu-hunter-fixed three-workers; do
  for prop in cluster-queue-within-quota quota-counted-once; do
    i=($(one "$kmc" check "examples/$name" --property "$prop" --engine induction --max-depth 8 --time-limit "$limit"))
    e=($(one "$kmc" check "examples/$name" --property "$prop" --time-limit "$limit" --no-shrink))
    printf '%-26s %-27s induction: %7.2f s, %-10s (%s) | explicit: %7.2f s, %9d states, %s\n' \
      "$name" "$prop" "${i[0]}" "${i[2]}" "${i[3]}" "${e[0]}" "${e[1]}" "${e[2]}"
  done
done
