#!/usr/bin/env bash
# Quick start, tests: sets everything up and runs the whole test suite (ctest over every
# per-layer Catch2 binary plus the command-line contract checks).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"
