#!/usr/bin/env bash
# Installs what kmc needs from Debian 12's packages, and only what is missing
# (so it is quick and offline-safe on a machine that already has them).
set -euo pipefail
packages=(g++ cmake make pkg-config libz3-dev libboost-dev libfmt-dev libcli11-dev catch2
          librapidcheck-dev libyaml-cpp-dev nlohmann-json3-dev clang-format
          clang-16 libclang-rt-16-dev)  # clang and its libFuzzer: scripts/fuzz.sh, in .ci/run
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi
