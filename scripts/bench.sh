#!/usr/bin/env bash
# Quick start, main job: sets everything up, then prints Tessel against the vendor baselines
# measured in the same run: GEMM n=1024 against OpenBLAS, ResNet-18 conv2d C1–C12 and MobileNet
# depthwise D1–D9 against oneDNN. Extra arguments (e.g. --threads 1, --json, --target "llvm_cpu -isa=avx2")
# go to every bench.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" tessel
tessel="$root/build/tessel"
"$tessel" bench gemm --n 1024 "$@"
"$tessel" bench conv2d --workload all "$@"
"$tessel" bench depthwise --workload all "$@"
