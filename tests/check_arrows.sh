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
  done < <(grep -rnE '^#include "(model|protocols|invariants|checker|engine|counterexamples|cli)/' "$root/$folder" --include='*.hpp' --include='*.cpp' | sed -E 's/^([^:]+):([0-9]+):/\1:\2:/')
done
[ $status -eq 0 ] && echo "design arrows hold"
exit $status
