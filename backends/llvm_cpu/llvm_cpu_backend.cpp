// The "llvm_cpu" Backend plugin: modules of object code for a CPU target (the host unless
// create_backend gives another), JIT-linked in this process or exported as shared libraries
// (backends/llvm_cpu/object_module.h), plus LLVM IR and assembly through emit().
#include "backends/llvm_cpu/llvm_cpu.h"
#include "backends/llvm_cpu/object_module.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel {

LlvmCpuOptions LlvmCpuBackend::options_for_target() const {
  LlvmCpuOptions options = options_;
  options.target = target();
  return options;
}

Module LlvmCpuBackend::build(const std::vector<BuildInput>& functions) const {
  check_build_inputs(functions);
  return llvm_cpu::build_module(functions, options_for_target());
}

std::string LlvmCpuBackend::emit(const LoweredFunc& func, const std::string& format) const {
  if (format == "llvm") return emit_llvm_ir(func, options_for_target());
  if (format == "asm") return emit_assembly(func, options_for_target());
  user_error("back end 'llvm_cpu' cannot emit '", format, "'; valid formats: llvm, asm");
}

TESSEL_REGISTER_PLUGIN(Backend, llvm_cpu, "LLVM 14 for CPU targets (the host by default): JIT, object files, IR and assembly",
                       (std::vector<ParamSpec>{
                           {"opt_level", ParamType::Int, 3, "LLVM optimization level", Allowed::at_least(0).at_most(3)},
                           {"fast_math", ParamType::Bool, false,
                            "allow reassociation and no-NaN/Inf assumptions beyond FMA contraction"}}),
                       [](const PluginParams& p) {
                         LlvmCpuOptions options;
                         options.opt_level = static_cast<int>(p.get_int("opt_level"));
                         options.fast_math = p.get_bool("fast_math");
                         return std::make_unique<LlvmCpuBackend>(options);
                       });

}  // namespace tessel
