// Calls into plugin code (a search strategy's propose/observe, a cost model's fit/predict through
// them) that must not take the tuner down silently: a call that does not return within its time
// limit ends the process with a message naming it, and one that crashes says where it crashed.
//
//   std::vector<uint64_t> batch = call_plugin("search strategy 'mine' proposing a batch", 600,
//                                             [&] { return strategy.next_batch(8); });
//
// Why end the process: a thread cannot be killed, and running the call where it could be abandoned
// (another process) would mean copying the plugin's whole state across on every call. The guarded
// calls never write the records database (the tuner appends a batch between them, in one
// transaction), so when a watchdog thread ends the process with exit status 2 the database holds
// every trial measured so far and the same command resumes.
//
// While a guarded call runs, fatal signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) first print
// "tessel: crashed with SIGSEGV in <what>" and then take their usual course (the process dies by
// the signal, as before; an installed handler such as AddressSanitizer's still reports).
// Exceptions other than Tessel's own (UserError, InternalError) leaving the call become a
// UserError naming it.
#pragma once
#include <string>
#include <utility>

#include "support/registry.h"  // rethrow_from_plugin

namespace tessel {

// While alive, the calling code is "in" `what`; past `limit_s` seconds (<= 0: no limit) the
// process prints "tessel: <what> did not return within <limit> s ..." and exits with status 2.
// Guards nest; each has its own limit.
class PluginCallGuard {
 public:
  PluginCallGuard(std::string what, double limit_s);
  ~PluginCallGuard();
  PluginCallGuard(const PluginCallGuard&) = delete;
  PluginCallGuard& operator=(const PluginCallGuard&) = delete;

 private:
  unsigned long id_;
};

// Runs `call` under a PluginCallGuard and with rethrow_from_plugin for its exceptions.
template <typename Call>
auto call_plugin(const std::string& what, double limit_s, Call&& call) -> decltype(call()) {
  PluginCallGuard guard(what, limit_s);
  try {
    return std::forward<Call>(call)();
  } catch (...) {
    rethrow_from_plugin(what);
  }
}

}  // namespace tessel
