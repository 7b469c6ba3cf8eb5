#!/usr/bin/env bash
# Collects the seed corpora of fuzz/'s harnesses into DEST/<harness>/ from what
# the repository already holds (examples/, counterexamples/corpus/, the test
# fixtures), so no copy of them is kept in fuzz/: the manifests, the kmc.yaml
# files, the ITF traces, and the quantities the manifests write plus a few by
# hand. Each harness's fuzz/regressions/<harness>/ inputs are seeds too, so a
# fixed crash that comes back fails the run at once.
# usage: scripts/fuzz-seeds.sh DEST
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:?usage: scripts/fuzz-seeds.sh DEST}
mkdir -p "$dest"/{quantity,manifests,scenario,itf,expression}

# One file per input, named by its content's hash, as libFuzzer names its own.
seed() {  # harness file
  local sum
  sum=$(sha1sum <"$2" | cut -c1-40)
  cp "$2" "$dest/$1/$sum"
}
seed_text() {  # harness text
  local sum
  sum=$(printf '%s' "$2" | sha1sum | cut -c1-40)
  printf '%s' "$2" >"$dest/$1/$sum"
}

while IFS= read -r f; do seed manifests "$f"; done < <(
  find examples counterexamples/corpus tests/model/fixtures -name '*.yaml' ! -name kmc.yaml \
    ! -name expect.yaml | sort)
while IFS= read -r f; do seed scenario "$f"; done < <(
  find examples counterexamples/corpus tests/model/fixtures -name kmc.yaml | sort)
while IFS= read -r f; do seed itf "$f"; done < <(
  find counterexamples/corpus -name '*.itf.json' | sort)

# Quantities as the manifests write them (requests, limits, nominalQuota), and
# the edges of the grammar the parser's header names.
while IFS= read -r q; do seed_text quantity "$q"; done < <(
  grep -rhoE '(cpu|memory|nvidia\.com/gpu|nominalQuota|borrowingLimit|lendingLimit|pods): *"?[-+.0-9][^" ]*' \
    examples counterexamples/corpus --include='*.yaml' | sed -E 's/^[^:]*: *"?//; s/[]},]+$//' | sort -u)
for q in 0 8 500m 1.5 2e3 1E-3 1k 64Gi 1Ei 1E -1 +.5 0.001 100n 9223372036854775807m 8Ei; do
  seed_text quantity "$q"
done

# Expressions of kmc.yaml's own properties, over the harness's small layout (fuzz_expression.cpp).
for e in 'all j: job. phase[j] == Admitted => cluster[j] != none' \
  'some j: job. (count w: worker. remote[j, w] in {1, 2}) >= 2' \
  'usage[gpu-cq, h100] + usage["gpu-cq", a100] <= 16' \
  'no j: job. all w: worker. remote[j, w] == 2 => cluster[j] == w' \
  'not (sum w: worker. remote["team/a", w]) > 3 or phase[team/b] != Finished'; do
  seed_text expression "$e"
done

for h in quantity manifests scenario itf expression; do
  [ -d "fuzz/regressions/$h" ] || continue
  find "fuzz/regressions/$h" -type f ! -name '*.md' -exec cp {} "$dest/$h/" \;
done
