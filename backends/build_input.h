// What a back end builds one function of a module from: either a lowered function (the loop IR of
// ir/stmt.h, what the llvm_cpu and c_source back ends compile), or a scheduled tensor expression
// with its arguments, which lowers on demand. A back end that generates code from the schedule
// itself (a Halide-style one) reads schedule() and args() and never lowers.
//
//   backend->build({lowered_func});                                      // already lowered
//   backend->build({BuildInput::from_schedule(sch, {a, b, c}, "gemm")});  // lowered if needed
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/schedule.h"
#include "ir/stmt.h"

namespace tessel {

class BuildInput {
 public:
  BuildInput(LoweredFunc func);  // NOLINT(google-explicit-constructor): a lowered function is an input
  // A scheduled expression; `args` are the function's arguments in call order (inputs, then outputs).
  static BuildInput from_schedule(Schedule schedule, std::vector<Tensor> args, std::string name);

  const std::string& name() const;
  bool has_schedule() const;
  // The schedule and arguments; InternalError unless has_schedule().
  const Schedule& schedule() const;
  const std::vector<Tensor>& args() const;

  // The lowered function: given, or lowered from the schedule on first use (once, thread-safely);
  // a schedule lowering rejects throws its UserError again on every call.
  const LoweredFunc& lowered() const;

 private:
  struct State;
  explicit BuildInput(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace tessel
