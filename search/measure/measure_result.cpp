// Status names of measurement results (search/measure/measure_result.h).
#include "search/measure/measure_result.h"

#include "support/error.h"

namespace tessel::search {

namespace {
constexpr TrialStatus kAllStatuses[] = {TrialStatus::Ok,      TrialStatus::CompileError, TrialStatus::Crash,
                                        TrialStatus::Timeout, TrialStatus::WrongResult,  TrialStatus::RuntimeError};
}

const char* status_name(TrialStatus status) {
  switch (status) {
    case TrialStatus::Ok: return "ok";
    case TrialStatus::CompileError: return "compile_error";
    case TrialStatus::Crash: return "crash";
    case TrialStatus::Timeout: return "timeout";
    case TrialStatus::WrongResult: return "wrong_result";
    case TrialStatus::RuntimeError: return "runtime_error";
  }
  return "?";
}

TrialStatus parse_status(const std::string& name) {
  for (TrialStatus s : kAllStatuses)
    if (name == status_name(s)) return s;
  user_error("unknown trial status '", name, "'; valid: ok, compile_error, crash, timeout, wrong_result, runtime_error");
}

}  // namespace tessel::search
