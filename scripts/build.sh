#!/usr/bin/env bash
# Installs the dependencies (if missing), configures and builds Tessel into build/.
# Used by the quick-start commands; safe to run repeatedly (everything is incremental).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
# ccache, when the machine has it, makes rebuilds after a checkout switch cheap; it is optional.
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" > /dev/null
ninja -C "$root/build" -j "$(nproc)" "$@"
