// Build inputs that lower on demand (backends/build_input.h).
#include "backends/build_input.h"

#include <exception>
#include <mutex>
#include <optional>

#include "passes/lower/lower.h"
#include "support/error.h"

namespace tessel {

struct BuildInput::State {
  std::string name;
  std::unique_ptr<Schedule> schedule;  // null for an input given lowered
  std::vector<Tensor> args;
  std::once_flag lowering;
  std::optional<LoweredFunc> lowered;
  std::exception_ptr lowering_error;
};

BuildInput::BuildInput(LoweredFunc func) : state_(std::make_shared<State>()) {
  state_->name = func.name;
  state_->lowered = std::move(func);
}

BuildInput BuildInput::from_schedule(Schedule schedule, std::vector<Tensor> args, std::string name) {
  auto state = std::make_shared<State>();
  state->name = std::move(name);
  state->schedule = std::make_unique<Schedule>(std::move(schedule));
  state->args = std::move(args);
  return BuildInput(std::move(state));
}

const std::string& BuildInput::name() const { return state_->name; }

bool BuildInput::has_schedule() const { return state_->schedule != nullptr; }

const Schedule& BuildInput::schedule() const {
  TESSEL_CHECK(has_schedule(), "build input '", name(), "' was given lowered; it has no schedule");
  return *state_->schedule;
}

const std::vector<Tensor>& BuildInput::args() const {
  TESSEL_CHECK(has_schedule(), "build input '", name(), "' was given lowered; it has no tensor arguments");
  return state_->args;
}

const LoweredFunc& BuildInput::lowered() const {
  State& s = *state_;
  if (s.schedule) {
    std::call_once(s.lowering, [&s] {
      try {
        s.lowered = lower(*s.schedule, s.args, s.name);
      } catch (...) {
        s.lowering_error = std::current_exception();
      }
    });
  }
  if (s.lowering_error) std::rethrow_exception(s.lowering_error);
  return *s.lowered;
}

}  // namespace tessel
