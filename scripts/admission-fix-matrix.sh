#!/usr/bin/env bash
# The single-cluster fix matrix (docs/admission-fix-matrix.md): each known
# bug's scenario checked as Kueue behaved before its fix and as it behaves
# now, one property each, printed as a markdown table from kmc's own JSON.
#   scripts/admission-fix-matrix.sh > table.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kmc=${KMC:-$root/build/cli/kmc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# bug | scenario folder | property | kmc.yaml options line before the fix | after
rows=(
  "K01 #6617|examples/drs-rounding|guarantee-eventually-admitted|options: {variant: pre-6617}|options: {}"
  "K05 #805|examples/cohort-shared-victim|no-over-admission|options: {variant: pre-805}|options: {}"
  "K10 #6143|examples/preemption-grace-hol|no-head-of-line-blocking|-|-"
  "K11 #2641|examples/cohort-preemption-hol|no-head-of-line-blocking|options: {variant: pre-2641}|options: {}"
  "K12 #15154|examples/zombie-pod-readopted|guarantee-not-stuck|options: {variant: pre-15154}|options: {}"
  "K13 #7312|examples/zombie-pod|guarantee-not-stuck|options: {variant: pre-7312}|options: {}"
  "K14 #7157|examples/preemption-livelock|no-preemption-livelock|options: {variant: pre-7157}|options: {}"
  "#11480 #11502|examples/admission-patch-race|guarantee-eventually-admitted|options: {variant: pre-11502}|options: {}"
  "K22 #3245, autoscaler#9490|examples/provisioning-accept-then-hang|guarantee-not-stuck|-|-"
  "§8.6 blockAdmission|examples/provisioning-block-admission|guarantee-not-stuck|-|-"
  "blockAdmission quota cut|examples/block-admission-quota-cut|no-over-admission|-|-"
  "gang (seeds 2, 4)|examples/plain-scheduler-gang-deadlock|no-gang-deadlock|-|-"
)
run() {  # folder property options-line -> "verdict | steps | states"
  local dir=$tmp/s$RANDOM
  cp -r "$root/$1" "$dir"
  if [ "$3" != "-" ]; then
    sed -i '/^options:/d' "$dir/kmc.yaml"
    echo "$3" >> "$dir/kmc.yaml"
  fi
  "$kmc" check "$dir" --property "$2" --output json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
steps = len(j["trace"]["states"]) - 1 if j.get("trace") else "-"
print(j["verdict"], "|", steps, "|", j["stats"]["states"])' || true
}
echo "| bug | scenario | property | before the fix | steps | states | after | steps | states | fix |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r bug dir prop before after <<<"$row"
  case $bug in
    "K10 #6143") fixed=$(run examples/preemption-grace-hol-fixed "$prop" -) fix="FastQuotaReleaseInPodIntegration" ;;
    K22*) fixed=$(run examples/provisioning-accept-then-hang-fixed "$prop" -) fix="check-capacity class" ;;
    "§8.6"*) fixed=$(run examples/provisioning-block-admission-fixed "$prop" -) fix="check-capacity class" ;;
    "blockAdmission quota cut") fixed=$(run examples/block-admission-quota-cut-fixed "$prop" -) fix="blockAdmission off" ;;
    gang*) fixed=$(run examples/plain-scheduler-gang-deadlock-fixed guarantee-not-stuck -) fix="Kueue (guarantee-not-stuck)" ;;
    *) fixed=$(run "$dir" "$prop" "$after") fix="current Kueue" ;;
  esac
  echo "| $bug | \`$dir\` | \`$prop\` | $(run "$dir" "$prop" "$before") | $fixed | $fix |"
done
