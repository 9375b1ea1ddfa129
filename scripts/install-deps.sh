#!/usr/bin/env bash
# Installs every Debian package Tessel builds, tests and benchmarks with.
# Idempotent: packages already present are skipped, so the quick-start commands can call it each time.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  llvm-14-dev libzstd-dev zlib1g-dev libtinfo-dev libedit-dev libffi-dev libxml2-dev
  libdnnl-dev libopenblas-dev ocl-icd-opencl-dev opencl-headers
  catch2 nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libsqlite3-dev libdlpack-dev
  python3-matplotlib
  clang-14 libclang-rt-14-dev
  libxgboost-dev libtorch-dev
  libonnx-dev libonnx-testdata libprotobuf-dev libboost-graph-dev
  python3-torch python3-torchvision python3-onnx
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
