#!/usr/bin/env bash
# Fails when a folder includes a header of a folder DESIGN.md does not let it see.
set -u
root=${1:-.}
declare -A allowed=(
  [model]="model"
  [protocols]="model protocols"
  [invariants]="model protocols invariants"
  [checker]="model checker"
  [engine]="model engine"
  [counterexamples]="model protocols invariants checker engine counterexamples"
  [cli]="model protocols invariants checker engine counterexamples cli"
  # The library API (<kmc/kmc.hpp>) sits above cli/, whose protocol table it calls.
  [api]="model protocols invariants checker engine counterexamples cli api"
  # The installed RapidCheck generators build model/ values and nothing else.
  [include/kmc/rapidcheck]="model"
)
status=0
for folder in "${!allowed[@]}"; do
  [ -d "$root/$folder" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; inc=${rest#*:}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$inc")
    case " ${allowed[$folder]} " in
      *" $target "*) ;;
      *) echo "$file:$line: $folder/ may not include $target/ ($inc)"; status=1 ;;
    esac
  done < <(grep -rnE '^#include "(model|protocols|invariants|checker|engine|counterexamples|cli|api)/' "$root/$folder" --include='*.hpp' --include='*.cpp' | sed -E 's/^([^:]+):([0-9]+):/\1:\2:/')
done
# The generic part of counterexamples/ (its top level) knows no protocol:
# per-protocol adapters live in a subfolder (counterexamples/multikueue/).
while IFS= read -r hit; do
  echo "$hit: the generic counterexamples/ may not include a protocol's code (move it to a subfolder)"
  status=1
done < <(grep -nE '^#include "(protocols|invariants|engine)/|^#include "counterexamples/[a-z_]+/' "$root"/counterexamples/*.hpp "$root"/counterexamples/*.cpp 2>/dev/null)
[ $status -eq 0 ] && echo "design arrows hold"
exit $status
