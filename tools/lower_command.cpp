// `tessel lower`: prints the loop program (or the generated code) of a library operator on a
// workload, under its default schedule or the naive one (no primitives applied), lowered for a
// target (which this machine need not be able to run) through the target's pipeline, with plugin
// passes added and the IR shown after the passes asked for.
#include <algorithm>
#include <iostream>

#include "backends/backend.h"
#include "ir/printer.h"
#include "ops/conv2d_pixels.h"
#include "ops/conv2d_winograd.h"
#include "ops/op_schedule.h"
#include "ops/workload_ops.h"
#include "passes/lower/lower.h"
#include "search/spaces/workload_spec.h"
#include "support/error.h"
#include "tools/commands.h"
#include "tools/number_option.h"
#include "tools/target_option.h"

namespace tessel::tools {

namespace {

struct LowerArgs {
  std::string op, shape, workload, schedule = "default", emit = "loops", target = "llvm_cpu";
  int64_t n = 0;
  std::vector<std::string> passes;       // plugin passes, NAME[:key=value,...]
  std::vector<std::string> print_after;  // pass names
  bool print_after_all = false, print_pipeline = false;
};

template <typename Shape>
Shape single_workload(const std::vector<Workload<Shape>>& found, const std::string& name) {
  if (found.size() != 1) user_error("lower takes one workload; '", name, "' names ", found.size());
  return found[0].shape;
}

ops::OpInstance instance_for(const LowerArgs& a, const Target& target) {
  bool by_shape = !a.shape.empty(), by_name = !a.workload.empty();
  if (by_shape && by_name) user_error("give either --shape or --workload, not both");
  if (a.op == "gemm") {
    if (by_name) user_error("gemm takes --n N or --shape M,N,K, not --workload");
    if (by_shape) return ops::gemm_instance(parse_gemm_shape(a.shape), target);
    if (a.n == 0) user_error("lower gemm needs --n N or --shape M,N,K");
    return ops::gemm_instance(square_gemm(a.n), target);
  }
  if (a.op == "conv2d") {
    if (by_shape) return ops::conv2d_instance(parse_conv2d_shape(a.shape), target);
    if (!by_name) user_error("lower conv2d needs --workload C1..C12 or --shape N,C,H,W,OC,K,S,P");
    return ops::conv2d_instance(single_workload(find_conv2d_workloads(a.workload), a.workload), target);
  }
  if (a.op == "depthwise") {
    if (by_shape) return ops::depthwise_instance(parse_depthwise_shape(a.shape), target);
    if (!by_name) user_error("lower depthwise needs --workload D1..D9 or --shape N,C,H,W,K,S,P");
    return ops::depthwise_instance(single_workload(find_depthwise_workloads(a.workload), a.workload), target);
  }
  if (a.op == "pixels") {  // a 1x1 conv2d over its pixels (ops/conv2d_pixels.h)
    if (!by_shape || by_name) user_error("lower pixels needs --shape N,C,H,W,OC");
    return ops::pixels_instance(search::parse_workload("pixels:" + a.shape).shape<ops::PixelsShape>(), target);
  }
  if (a.op == "winograd") {  // a 3x3 stride-1 conv2d by Winograd's algorithm (ops/conv2d_winograd.h)
    if (!by_shape || by_name) user_error("lower winograd needs --shape N,C,H,W,OC,P,M");
    auto w = ops::winograd_instance(search::parse_workload("winograd:" + a.shape).shape<ops::WinogradShape>(), target);
    return {{w.data, w.weights}, w.output};
  }
  user_error("unknown operator '", a.op, "'; valid: gemm, conv2d, depthwise, pixels, winograd");
}

Schedule schedule_for(const ops::OpInstance& op, const std::string& which, const Target& target) {
  if (which == "default") return ops::default_schedule(op.output, target);
  if (which == "naive") return create_schedule({op.output});
  user_error("unknown schedule '", which, "'; valid: default, naive");
}

// The same CPU description under another CPU kind: the back end that offers an --emit format.
Target with_kind(const Target& target, const std::string& kind) {
  return Target::parse(kind + target.str().substr(target.kind().size()));
}

// The code of `func` in `format` (checked before lowering, so a bad one fails first). A CPU
// target's C comes from c_source and its LLVM IR and assembly from llvm_cpu, for the target's ISA;
// other targets' formats are their own back end's.
std::string emitted(const LoweredFunc& func, const std::string& format, const Target& target) {
  if (format == "loops") return to_string(func) + "\n";
  if (!target.is_cpu()) return create_backend(target)->emit(func, format);
  return create_backend(with_kind(target, format == "c" ? "c_source" : "llvm_cpu"))->emit(func, format);
}

void check_emit_format(const std::string& format) {
  const std::vector<std::string> valid = {"loops", "c", "llvm", "asm"};
  if (std::find(valid.begin(), valid.end(), format) == valid.end())
    user_error("unknown --emit format '", format, "'; valid: ", join_list(valid));
}

// Prints the IR after the passes --print-after and --print-after-all ask for, each under a line
// naming the pass; names not in the pipeline are refused with the valid ones.
PassObserver ir_printer(const LowerArgs& args, const LoweringPipeline& pipeline) {
  std::vector<std::string> valid = pipeline.pass_names();
  for (const std::string& name : args.print_after)
    if (std::find(valid.begin(), valid.end(), name) == valid.end())
      user_error("--print-after: no pass '", name, "' in the ", pipeline.name(), " pipeline; valid: ", join_list(valid));
  if (!args.print_after_all && args.print_after.empty()) return nullptr;
  return [all = args.print_after_all, names = args.print_after](Phase phase, const Pass& pass, const Stmt& ir) {
    if (!all && std::find(names.begin(), names.end(), pass.name) == names.end()) return;
    std::cout << "// IR after " << pass.name << " (" << phase_name(phase) << ")\n" << to_string(ir) << "\n";
  };
}

void print_lowered(const LowerArgs& args) {
  check_emit_format(args.emit);
  Target target = Target::parse(args.target);
  LowerOptions options;
  for (const std::string& text : args.passes) options.extra_passes.push_back(parse_pass_request(text));
  LoweringPipeline pipeline = lowering_pipeline(target, options.extra_passes);
  if (args.print_pipeline) std::cout << "// the " << pipeline.name() << " lowering pipeline\n" << pipeline.describe() << "\n";
  options.after_each_pass = ir_printer(args, pipeline);
  ops::OpInstance op = instance_for(args, target);
  LoweredFunc func = lower(schedule_for(op, args.schedule, target), op.args(), args.op, target, options);
  std::cout << emitted(func, args.emit, target);
}

}  // namespace

void add_lower_command(CLI::App& app) {
  auto args = std::make_shared<LowerArgs>();
  auto* cmd = app.add_subcommand("lower", "print the lowered loop program of an operator");
  cmd->add_option("op", args->op, "gemm, conv2d, depthwise, pixels (a 1x1 conv2d over its pixels) or winograd")->required();
  add_number_option(cmd, "--n", args->n, "square GEMM size", Allowed::at_least(1));
  cmd->add_option("--shape", args->shape, "M,N,K | N,C,H,W,OC,K,S,P | N,C,H,W,K,S,P[,B] | N,C,H,W,OC | N,C,H,W,OC,P,M (winograd)");
  cmd->add_option("--workload", args->workload, "C1..C12 or D1..D9");
  cmd->add_option("--schedule", args->schedule, "default or naive")->capture_default_str();
  cmd->add_option("--emit", args->emit, "loops, c, llvm or asm (c, llvm and asm for the target's ISA)")
      ->capture_default_str();
  add_target_option(cmd, args->target);
  cmd->add_option("--pass", args->passes, "plugin pass NAME[:key=value,...] added to the pipeline (repeatable)");
  cmd->add_option("--print-after", args->print_after, "print the IR after the pass NAME (repeatable or comma list)")
      ->delimiter(',');
  cmd->add_flag("--print-after-all", args->print_after_all, "print the IR after every pass, under its name");
  cmd->add_flag("--print-pipeline", args->print_pipeline, "print the passes of the pipeline, phase by phase, first");
  cmd->callback([args] { print_lowered(*args); });
}

}  // namespace tessel::tools
