// `tessel lower`: prints the loop program (or the generated code) of a library operator on a
// workload, under its default schedule or the naive one (no primitives applied).
#include <iostream>

#include "backends/backend.h"
#include "ir/printer.h"
#include "ops/op_schedule.h"
#include "ops/workload_ops.h"
#include "passes/lower/lower.h"
#include "support/error.h"
#include "support/registry.h"
#include "tools/commands.h"
#include "tools/number_option.h"

namespace tessel::tools {

namespace {

struct LowerArgs {
  std::string op, shape, workload, schedule = "default", emit = "loops";
  int64_t n = 0;
};

template <typename Shape>
Shape single_workload(const std::vector<Workload<Shape>>& found, const std::string& name) {
  if (found.size() != 1) user_error("lower takes one workload; '", name, "' names ", found.size());
  return found[0].shape;
}

ops::OpInstance instance_for(const LowerArgs& a) {
  bool by_shape = !a.shape.empty(), by_name = !a.workload.empty();
  if (by_shape && by_name) user_error("give either --shape or --workload, not both");
  if (a.op == "gemm") {
    if (by_name) user_error("gemm takes --n N or --shape M,N,K, not --workload");
    if (by_shape) return ops::gemm_instance(parse_gemm_shape(a.shape));
    if (a.n == 0) user_error("lower gemm needs --n N or --shape M,N,K");
    return ops::gemm_instance(square_gemm(a.n));
  }
  if (a.op == "conv2d") {
    if (by_shape) return ops::conv2d_instance(parse_conv2d_shape(a.shape));
    if (!by_name) user_error("lower conv2d needs --workload C1..C12 or --shape N,C,H,W,OC,K,S,P");
    return ops::conv2d_instance(single_workload(find_conv2d_workloads(a.workload), a.workload));
  }
  if (a.op == "depthwise") {
    if (by_shape) return ops::depthwise_instance(parse_depthwise_shape(a.shape));
    if (!by_name) user_error("lower depthwise needs --workload D1..D9 or --shape N,C,H,W,K,S,P");
    return ops::depthwise_instance(single_workload(find_depthwise_workloads(a.workload), a.workload));
  }
  user_error("unknown operator '", a.op, "'; valid: gemm, conv2d, depthwise");
}

Schedule schedule_for(const ops::OpInstance& op, const std::string& which) {
  if (which == "default") return ops::default_schedule(op.output);
  if (which == "naive") return create_schedule({op.output});
  user_error("unknown schedule '", which, "'; valid: default, naive");
}

void print_lowered(const LowerArgs& args) {
  ops::OpInstance op = instance_for(args);
  LoweredFunc func = lower(schedule_for(op, args.schedule), op.args(), args.op);
  if (args.emit == "loops") {
    std::cout << to_string(func) << "\n";
  } else if (args.emit == "c") {
    std::cout << Registry<Backend>::instance().create("c_source")->emit(func, "c");
  } else if (args.emit == "llvm" || args.emit == "asm") {
    std::cout << Registry<Backend>::instance().create("llvm_cpu")->emit(func, args.emit);
  } else {
    user_error("unknown --emit format '", args.emit, "'; valid: loops, c, llvm, asm");
  }
}

}  // namespace

void add_lower_command(CLI::App& app) {
  auto args = std::make_shared<LowerArgs>();
  auto* cmd = app.add_subcommand("lower", "print the lowered loop program of an operator");
  cmd->add_option("op", args->op, "gemm, conv2d or depthwise")->required();
  add_number_option(cmd, "--n", args->n, "square GEMM size", Allowed::at_least(1));
  cmd->add_option("--shape", args->shape, "M,N,K | N,C,H,W,OC,K,S,P | N,C,H,W,K,S,P");
  cmd->add_option("--workload", args->workload, "C1..C12 or D1..D9");
  cmd->add_option("--schedule", args->schedule, "default or naive")->capture_default_str();
  cmd->add_option("--emit", args->emit, "loops, c, llvm or asm")->capture_default_str();
  cmd->callback([args] { print_lowered(*args); });
}

}  // namespace tessel::tools
