#!/usr/bin/env bash
# Makes (or remakes) one corpus entry: a copy of an example scenario with
# kmc.yaml lines overridden, the trace `kmc check` finds for one property,
# expect.yaml, and the trace's diagram. Review the trace, write README.md.
#   scripts/corpus-entry.sh NAME EXAMPLE PROPERTY MODEL REPLAY [KEY=LINE]...
# KEY=LINE replaces kmc.yaml's top-level line starting with "KEY:" by LINE
# (e.g. 'options=options: {variant: pre-8592-select-on-quota-reserved}').
set -euo pipefail
name=$1 example=$2 property=$3 model=$4 replay=$5
shift 5
root=$(cd "$(dirname "$0")/.." && pwd)
kmc=${KMC:-$root/build/cli/kmc}
entry=$root/counterexamples/corpus/$name
rm -rf "$entry/scenario" && mkdir -p "$entry"
cp -r "$root/examples/$example" "$entry/scenario"
rm -f "$entry/scenario/README.md"
# The corpus pins one configuration: the matrix section belongs to the example.
sed -i '/^# kmc matrix/,$d; /^matrix:/,$d' "$entry/scenario/kmc.yaml"
for kv in "$@"; do
  key=${kv%%=*} line=${kv#*=}
  grep -q "^$key:" "$entry/scenario/kmc.yaml" || echo "$key: {}" >> "$entry/scenario/kmc.yaml"
  python3 - "$entry/scenario/kmc.yaml" "$key" "$line" <<'PY'
import sys
path, key, line = sys.argv[1:]
lines = open(path).read().split("\n")
lines = [line if l.startswith(key + ":") else l for l in lines]
open(path, "w").write("\n".join(lines))
PY
done
cd "$entry"
set +e
"$kmc" check scenario --property "$property" --trace-out trace.itf.json > check.txt
set -e
printf 'property: %s\nmodel: %s    # the verdict of kmc check for the property\nreplay: %s    # the verdict of kmc replay in the engine\n' \
  "$property" "$model" "$replay" > expect.yaml
if "$kmc" render trace.itf.json --format mermaid > trace.mmd 2>/dev/null; then :; else rm -f trace.mmd; fi
[ "$replay" = None ] || "$kmc" replay trace.itf.json --scenario scenario || true
rm -f check.txt
