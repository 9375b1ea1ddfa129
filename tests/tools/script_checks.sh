# Shared by the command-line test scripts (sourced, not run): counting checks and the bad-input
# contract of `tessel` (exit status 2 and one line on stderr saying what is wrong).
# The sourcing script sets $tessel before calling expect_message.
failures=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_message "description" "message part" args... : `tessel args...` exits with status 2 and
# prints one line containing the part (progress lines, which start with '[', aside).
expect_message() {
  local what=$1 want=$2; shift 2
  local err status
  err=$("$tessel" "$@" 2>&1 >/dev/null); status=$?
  if [ "$status" -ne 2 ]; then fail "$what: exit status $status, want 2 ($*): $err"; return; fi
  if [ "$(printf '%s\n' "$err" | grep -cv '^\[')" -ne 1 ]; then fail "$what: want one line, got: $err"; return; fi
  if ! grep -qF -- "$want" <<< "$err"; then fail "$what: message lacks '$want': $err"; return; fi
  pass
}

# expect_bad_args "description" args... : exit status 2 and one line, whatever it says.
expect_bad_args() { expect_message "$1" "" "${@:2}"; }

# Prints the count and ends the script with its verdict.
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" -eq 0 ]
  exit
}
