#!/usr/bin/env bash
# Plugins cannot take the tuner down (issue 9, defect 7): broken plugin libraries
# (tests/plugins/libraries/) loaded into `tessel` end in one line naming the library or plugin and
# exit status 2 — a registration that throws, a global constructor that throws, a factory that
# returns null, a library that is no plugin (libz), a strategy that throws — and a strategy or cost
# model that hangs is stopped by the time limit. A strategy that crashes (SIGSEGV) kills the run,
# but the records database passes SQLite's integrity check and the same command resumes it.
# Usage: broken_plugins.sh path/to/tessel path/to/build (which holds libmisbehaving.so, ...)
set -uo pipefail
tessel=$1
plugins=$2
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/script_checks.sh"

integrity_ok() {
  $py -c 'import sqlite3, sys; sys.exit(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0] != "ok")' "$1"
}

trials_in() { "$tessel" records list --db "$1" --json | wc -l; }

tune=(tune --workload gemm:32 --batch 2 --repeats 1 --select 0)

expect_message "a registration that throws" \
  "registering strategy 'throwing_registration' threw: cannot read my defaults" \
  --plugin "$plugins/libthrowing_registration.so" plugins
expect_message "a global constructor that throws" \
  "plugin library '$plugins/libthrowing_initializer.so' threw from a static initializer while loading: settings file missing" \
  --plugin "$plugins/libthrowing_initializer.so" plugins
expect_message "a factory returning null" \
  "strategy 'null_factory' (plugin library '$plugins/libnull_factory.so') could not be created: its factory returned no object" \
  --plugin "$plugins/libnull_factory.so" "${tune[@]}" --strategy null_factory --trials 2
libz=$(ldconfig -p | sed -n 's/.*libz\.so\.1 (libc6,x86-64) => \(.*\)/\1/p' | head -1)
expect_message "a library the program already uses (libz)" "registers no plugins" --plugin "$libz" plugins
TESSEL_TEST_FAULT=throw_propose expect_message "a strategy that throws a standard exception" \
  "search strategy 'misbehaving' proposing a batch: index 7 is out of range" \
  --plugin "$plugins/libmisbehaving.so" "${tune[@]}" --strategy misbehaving --trials 6

# Hangs: stopped at the time limit with the strategy named; what was measured before is kept.
for fault in hang_propose hang_observe; do
  start=$SECONDS
  TESSEL_TEST_FAULT=$fault expect_message "a strategy that hangs ($fault)" "search strategy 'misbehaving'" \
    --plugin "$plugins/libmisbehaving.so" "${tune[@]}" --strategy misbehaving \
    --trials 6 --plugin-timeout 2 --db "$work/$fault.db"
  [ $((SECONDS - start)) -lt 60 ] && pass || fail "$fault: the time limit did not stop it in time"
  integrity_ok "$work/$fault.db" && [ "$(trials_in "$work/$fault.db")" -ge 2 ] && pass ||
    fail "$fault: the records database lost its trials or its integrity"
done
TESSEL_TEST_FAULT=hang_fit expect_message "a cost model that hangs in fit" "did not return within 2 s" \
  --plugin "$plugins/libmisbehaving.so" "${tune[@]}" \
  --strategy misbehaving_model_user --cost-model stuck_model --trials 6 --plugin-timeout 2

# A crash in propose: the run dies by SIGSEGV after its first batch was recorded; the database is
# intact, and the same command (without the fault) resumes to the full count, no trial twice.
db=$work/crash.db
err=$(env TESSEL_TEST_FAULT=crash_propose "$tessel" --plugin "$plugins/libmisbehaving.so" "${tune[@]}" \
        --strategy misbehaving --trials 6 --db "$db" 2>&1 >/dev/null); status=$?
[ "$status" -eq $((128 + 11)) ] && grep -q "crashed with SIGSEGV in search strategy 'misbehaving' proposing a batch" <<< "$err" &&
  pass || fail "crash in propose: status $status, $err"
integrity_ok "$db" && [ "$(trials_in "$db")" -eq 2 ] && pass || fail "crash in propose: database after the crash"
"$tessel" --plugin "$plugins/libmisbehaving.so" "${tune[@]}" --strategy misbehaving --trials 6 --db "$db" > /dev/null 2>&1 &&
  pass || fail "resuming after the crash"
if "$tessel" records list --db "$db" --json | $py -c '
import json, sys
trials = [json.loads(line) for line in sys.stdin]
assert sorted(t["trial"] for t in trials) == [1, 2, 3, 4, 5, 6], trials
assert len({t["config_index"] for t in trials}) == 6, "a configuration measured twice"
'; then pass; else fail "the resumed run is not complete and unique"; fi
integrity_ok "$db" && pass || fail "integrity after resuming"

finish
