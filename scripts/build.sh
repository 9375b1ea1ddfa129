#!/usr/bin/env bash
# Installs the dependencies (if missing), configures and builds Tessel into build/.
# Used by the quick-start commands; safe to run repeatedly (everything is incremental).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
ninja -C "$root/build" -j "$(nproc)" "$@"
