#!/usr/bin/env bash
# Builds Tessel with AddressSanitizer and UndefinedBehaviorSanitizer (GCC) into build-asan/ and runs
# the whole test suite there. Not part of CI (it takes a full build and several times the suite's
# time); run it before a release or after touching memory-heavy code:
#   scripts/sanitize.sh              build, then run every test
#   scripts/sanitize.sh -R search    extra arguments go to ctest
# A sanitizer report fails the test that triggered it (UBSan halts on its first report) and is
# also kept in build-asan/sanitizer-logs/; the script ends by listing the reports found there.
# Leak checking is off: registries and JIT-compiled kernels live as long as the process by design.
# ASan's own SIGSEGV/SIGBUS/SIGFPE handlers are off too: the suite crashes code on purpose (kernels
# in the sandbox, plugins inside guarded calls) to check that Tessel's handlers report the signal
# and the process dies by it; memory errors are still caught where they happen.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-asan
bash "$root/scripts/install-deps.sh"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_SANITIZE=address,undefined \
  "${launcher[@]}" > /dev/null
ninja -C "$build" -j "$(nproc)"
logs=$build/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:log_path=$logs/asan:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan:${UBSAN_OPTIONS:-}"
status=0
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 1200 "$@") || status=$?
reports=$(find "$logs" -type f | wc -l)
if [ "$reports" -gt 0 ]; then
  echo "sanitize.sh: $reports sanitizer report(s) in $logs:"
  grep -h -m1 -E "ERROR: AddressSanitizer|runtime error" "$logs"/* | sort | uniq -c | sort -rn | head -40
  status=1
else
  echo "sanitize.sh: no sanitizer reports"
fi
exit "$status"
