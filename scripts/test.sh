#!/usr/bin/env bash
# Quick start, tests: sets everything up and runs the whole test suite (ctest over every
# per-layer Catch2 binary, the command-line contract checks and a short run of each fuzz target).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
# The fuzz targets' short runs (ctest -R fuzz_) need their own build (clang, sanitizers: fuzz/README.md).
# TESSEL_SKIP_FUZZ=1 skips building them; ctest then reports those tests as skipped.
if command -v clang++-14 > /dev/null && [ -z "${TESSEL_SKIP_FUZZ:-}" ]; then
  bash "$root/scripts/fuzz.sh" build
fi
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"
