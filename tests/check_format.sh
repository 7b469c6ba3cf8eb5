#!/usr/bin/env bash
# Fails when a source file does not follow the committed .clang-format (STYLE.md),
# naming each file and the command that fixes it.
set -u
root=${1:-.}
cd "$root" || exit 2
command -v clang-format >/dev/null || { echo "clang-format is not installed (scripts/install-deps.sh installs it)"; exit 1; }
status=0
while IFS= read -r f; do
  if ! clang-format --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "$f does not follow .clang-format (clang-format -i $f)"
    status=1
  fi
done < <(find model protocols invariants checker engine counterexamples cli api include examples tests bench fuzz \
              -name '*.cpp' -o -name '*.hpp' | grep -v '^tests/approval/' | sort)
[ $status -eq 0 ] && echo "every source file follows .clang-format"
exit $status
