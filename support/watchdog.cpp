// Time limits and crash notes for calls into plugins (support/watchdog.h).
#include "support/watchdog.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "support/error.h"

namespace tessel {

namespace {

using Clock = std::chrono::steady_clock;

struct Guarded {
  unsigned long id;
  std::string what;
  double limit_s;
  Clock::time_point deadline;  // time_point::max() without a limit
};

const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr size_t kFatalCount = sizeof kFatalSignals / sizeof kFatalSignals[0];

// What a fatal-signal handler prints: prepared while the guard is set up, since a handler may
// only write() what is ready.
char crash_note[1024];
struct sigaction previous_actions[kFatalCount];

void on_fatal_signal(int signal, siginfo_t* info, void*) {
  char line[1200];
  const char* name = sigabbrev_np(signal);
  int n = std::snprintf(line, sizeof line, "tessel: crashed with SIG%s in %s\n", name ? name : "?", crash_note);
  if (n > 0 && ::write(STDERR_FILENO, line, std::min<size_t>(n, sizeof line - 1)) < 0) {
    // Nothing more can be done about stderr from here.
  }
  // Back to what was there before (the default, or e.g. AddressSanitizer's report). A fault
  // returns to the faulting instruction, which faults again into that handler with its real
  // address; a signal that was sent is sent again.
  for (size_t i = 0; i < kFatalCount; ++i)
    if (kFatalSignals[i] == signal) ::sigaction(signal, &previous_actions[i], nullptr);
  if (info->si_code <= 0) ::raise(signal);
}

// An alternate stack, so that the note is printed even when the plugin overflowed its stack.
void ensure_signal_stack() {
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  static std::vector<char> memory(1 << 16);
  stack_t stack{};
  stack.ss_sp = memory.data();
  stack.ss_size = memory.size();
  ::sigaltstack(&stack, nullptr);
}

void install_crash_handlers() {
  ensure_signal_stack();
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < kFatalCount; ++i) ::sigaction(kFatalSignals[i], &action, &previous_actions[i]);
}

void restore_crash_handlers() {
  for (size_t i = 0; i < kFatalCount; ++i) ::sigaction(kFatalSignals[i], &previous_actions[i], nullptr);
}

[[noreturn]] void expire(const Guarded& g) {
  std::ostringstream message;
  message << "tessel: " << g.what << " did not return within " << g.limit_s
          << " s, so it was stopped; the records database holds every trial measured before it (running the "
             "same command again resumes); fix or remove the plugin, or allow it more time (--plugin-timeout)\n";
  std::string text = message.str();
  if (::write(STDERR_FILENO, text.data(), text.size()) < 0) {
    // The exit status still says it.
  }
  ::_exit(2);
}

// The guards of every thread and the thread that watches their deadlines. Never destroyed: the
// watching thread is detached and waits on it until the process ends.
class Watchdog {
 public:
  unsigned long push(std::string what, double limit_s) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!watching_) {
      std::thread([this] { watch(); }).detach();
      watching_ = true;
    }
    Clock::time_point deadline = Clock::time_point::max();
    if (limit_s > 0)
      deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    if (active_.empty()) install_crash_handlers();
    active_.push_back({++last_id_, std::move(what), limit_s, deadline});
    note_innermost();
    wake_.notify_one();
    return last_id_;
  }

  void pop(unsigned long id) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(active_, [id](const Guarded& g) { return g.id == id; });
    if (active_.empty()) restore_crash_handlers();
    else note_innermost();
    wake_.notify_one();
  }

 private:
  void note_innermost() {
    std::snprintf(crash_note, sizeof crash_note, "%s", active_.back().what.c_str());
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      auto earliest = std::min_element(active_.begin(), active_.end(),
                                       [](const Guarded& a, const Guarded& b) { return a.deadline < b.deadline; });
      if (earliest == active_.end() || earliest->deadline == Clock::time_point::max()) {
        wake_.wait(lock);
        continue;
      }
      if (Clock::now() >= earliest->deadline) expire(*earliest);
      Clock::time_point deadline = earliest->deadline;
      wake_.wait_until(lock, deadline);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Guarded> active_;
  unsigned long last_id_ = 0;
  bool watching_ = false;
};

Watchdog& watchdog() {
  static Watchdog* instance = new Watchdog;
  return *instance;
}

}  // namespace

PluginCallGuard::PluginCallGuard(std::string what, double limit_s) : id_(watchdog().push(std::move(what), limit_s)) {}

PluginCallGuard::~PluginCallGuard() { watchdog().pop(id_); }

}  // namespace tessel
