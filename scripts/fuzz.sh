#!/usr/bin/env bash
# Builds and runs Tessel's libFuzzer targets (fuzz/<name>_fuzzer.cpp; fuzz/README.md).
#   scripts/fuzz.sh build                       configure and build every fuzzer into build-fuzz/
#   scripts/fuzz.sh list                        the targets
#   scripts/fuzz.sh [--no-build] NAME SECONDS [libFuzzer options...]
#                                               build (unless --no-build), then fuzz NAME for SECONDS
#   scripts/fuzz.sh check NAME [RUNS]           the test suite's run: deterministic (see below)
# The fuzz build is its own folder, build-fuzz/, configured with clang++-14 and
# -DTESSEL_FUZZ=ON: all of libtessel is compiled with AddressSanitizer, UndefinedBehaviorSanitizer
# and libFuzzer's coverage (the ordinary build stays GCC). The first build compiles the library
# once more (ccache keeps later ones short).
# A run starts from the target's corpus, build-fuzz/corpus/NAME/, seeded from the repository
# (fuzz/seeds/NAME.sources: globs of repository files, or absolute ones of installed files;
# NAME.txt: one seed per line; NAME.jsonl: a few lines per seed; NAME/: files), and uses
# fuzz/seeds/NAME.dict when there is one. A crash,
# a sanitizer report, a timeout (30 s on one input) or memory beyond 4 GB fails the run with exit
# status 1; the input that caused it is saved under build-fuzz/artifacts/NAME/ and the command
# to reproduce it is printed.
# `check` is what ctest runs: every seed and every kept regression input (fuzz/regressions/NAME/,
# inputs that once failed), then RUNS (fuzz/seeds/NAME.runs, else 20000) mutations from a fixed random seed on a
# fresh corpus. The same build gives the same run, so a test failure is a real, reproducible
# finding, never the luck of a timed exploration.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz

targets() {
  local f
  for f in "$root"/fuzz/*_fuzzer.cpp; do basename "$f" _fuzzer.cpp; done
}

configure_and_build() {
  command -v clang++-14 > /dev/null ||
    { echo "fuzz.sh: clang++-14 is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
  local launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_COMPILER=clang-14 -DTESSEL_FUZZ=ON "${launcher[@]}" > /dev/null
  local names=()
  local t
  for t in $(targets); do names+=("${t}_fuzzer"); done
  ninja -C "$build" "${names[@]}"
}

# Fills the corpus folder with the target's seeds from the repository (files already there stay).
seed_corpus() {
  local name=$1 corpus=$2 seeds=$root/fuzz/seeds/$1
  mkdir -p "$corpus"
  if [ -f "$seeds.sources" ]; then
    local pattern file
    while read -r pattern; do
      case $pattern in ''|'#'*) continue ;; /*) ;; *) pattern=$root/$pattern ;; esac
      for file in $pattern; do
        [ -f "$file" ] && cp "$file" "$corpus/seed_$(printf '%s' "${file#"$root"/}" | tr -c 'A-Za-z0-9._-' '_')"
      done
    done < "$seeds.sources"
  fi
  [ -f "$seeds.txt" ] && awk -v dir="$corpus" '{ printf "%s", $0 > (dir "/seed_line" NR); close(dir "/seed_line" NR) }' "$seeds.txt"
  [ -f "$seeds.jsonl" ] && split -l 3 -a 3 "$seeds.jsonl" "$corpus/seed_lines_"
  [ -d "$seeds" ] && cp "$seeds"/* "$corpus"/
  return 0
}

# Runs target NAME on CORPUS with the given libFuzzer options and the common ones, in a scratch
# folder: whatever the code under test creates stays out of the tree. Inputs that fail are saved
# under build-fuzz/artifacts/NAME/. Leak detection is off: registries and the JIT keep their
# memory for the process's lifetime. Sets `status` to the fuzzer's exit status.
fuzz() {
  local name=$1 corpus=$2; shift 2
  local fuzzer=$build/${name}_fuzzer artifacts=$build/artifacts/$name/
  # (77: ctest reports the test as skipped, not passed.)
  [ -x "$fuzzer" ] || { echo "fuzz.sh: $fuzzer is not built; run scripts/fuzz.sh build" >&2; exit 77; }
  mkdir -p "$artifacts"
  local options=(-timeout=30 -rss_limit_mb=4096 -max_len=8192 -artifact_prefix="$artifacts")
  [ -f "$root/fuzz/seeds/$name.dict" ] && options+=(-dict="$root/fuzz/seeds/$name.dict")
  local scratch
  scratch=$(mktemp -d)
  status=0
  (cd "$scratch" && TMPDIR=$scratch ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-} UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$fuzzer" "${options[@]}" "$@" "$corpus") || status=$?
  rm -rf "$scratch"
  if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: $name found a problem (exit status $status); inputs in $artifacts:" >&2
    ls -t "$artifacts" | head -5 | sed "s|^|  reproduce: $fuzzer $artifacts|" >&2
  fi
}

# Exploration: SECONDS from the kept corpus, which grows.
run() {
  local name=$1 seconds=$2; shift 2
  local corpus=$build/corpus/$name
  seed_corpus "$name" "$corpus"
  echo "fuzz.sh: $name for $seconds s (corpus $corpus: $(ls "$corpus" | wc -l) inputs)"
  fuzz "$name" "$corpus" -max_total_time="$seconds" -print_final_stats=1 "$@"
  [ "$status" -eq 0 ] || exit 1
}

# The deterministic run of the test suite: a fresh corpus of seeds and kept regressions.
check() {
  local name=$1 runs=${2:-}
  # A slow target (seconds per thousand inputs) names a smaller count in fuzz/seeds/NAME.runs.
  [ -n "$runs" ] || runs=$(cat "$root/fuzz/seeds/$name.runs" 2> /dev/null || echo 20000)
  local corpus
  corpus=$(mktemp -d)
  trap "rm -rf '$corpus'" EXIT
  seed_corpus "$name" "$corpus"
  [ -d "$root/fuzz/regressions/$name" ] && cp "$root/fuzz/regressions/$name"/* "$corpus"/
  echo "fuzz.sh: $name, $runs runs from seed 1 (corpus: $(ls "$corpus" | wc -l) seeds and regressions)"
  fuzz "$name" "$corpus" -seed=1 -runs="$runs"
  [ "$status" -eq 0 ] || exit 1
}

case ${1:-} in
  build) configure_and_build ;;
  check) shift; [ $# -ge 1 ] || { echo "usage: scripts/fuzz.sh check NAME [RUNS]" >&2; exit 2; }; check "$@" ;;
  list) targets ;;
  --no-build) shift; [ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh [--no-build] NAME SECONDS" >&2; exit 2; }; run "$@" ;;
  ''|-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  *) [ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh [--no-build] NAME SECONDS" >&2; exit 2; }
     # grep without -q reads all the names: quitting at the first match could kill `targets` with
     # SIGPIPE, which pipefail would report as no match.
     targets | grep -x "$1" > /dev/null || { echo "fuzz.sh: no target '$1'; targets: $(targets | tr '\n' ' ')" >&2; exit 2; }
     configure_and_build; run "$@" ;;
esac
