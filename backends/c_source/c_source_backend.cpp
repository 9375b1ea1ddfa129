// The c_source back end: code generation, compilation into a module, and the plugin registration.
#include "backends/c_source/c_source_backend.h"

#include "backends/c_source/c_codegen.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel {

namespace {

// Compiler flags that hold -march=native code below the host's instruction set, to the target's.
std::vector<std::string> isa_ceiling_flags(CpuIsa isa) {
  if (isa >= host_cpu().isa) return {};
  if (isa == CpuIsa::AVX2) return {"-mno-avx512f"};
  return {"-mno-avx512f", "-mno-avx2", "-mno-fma", "-mno-avx"};
}

}  // namespace

Module CSourceBackend::build(const std::vector<BuildInput>& functions) const {
  check_build_inputs(functions);
  Target t = target();
  c_source::CCompilerOptions options = options_;
  options.isa_flags = isa_ceiling_flags(t.cpu().isa);
  ModuleInfo info{t.str(), {}};
  std::vector<c_source::CSourceUnit> units;
  for (const BuildInput& input : functions) {
    const LoweredFunc& func = input.lowered();
    std::string name = c_source::c_function_name(func);
    units.push_back({name, c_source::generate_c(func)});
    info.functions.push_back(function_info(func, name + "_packed"));
  }
  return c_source::compile_module(units, info, options);
}

std::string CSourceBackend::emit(const LoweredFunc& func, const std::string& format) const {
  if (format != "c") user_error("back end 'c_source' cannot emit '", format, "'; valid formats: c");
  return c_source::generate_c(func);
}

TESSEL_REGISTER_PLUGIN(Backend, c_source, "C source compiled by the system C compiler with OpenMP (readable kernels)",
                       (std::vector<ParamSpec>{
                           {"compiler", ParamType::String, "cc", "the C compiler to run"},
                           {"opt_level", ParamType::Int, 2, "optimization level", Allowed::at_least(0).at_most(3)},
                           {"march", ParamType::String, "native", "value of -march; empty for none"}}),
                       [](const PluginParams& p) {
                         c_source::CCompilerOptions options;
                         options.compiler = p.get_string("compiler");
                         options.opt_level = static_cast<int>(p.get_int("opt_level"));
                         options.march = p.get_string("march");
                         if (options.compiler.empty()) user_error("c_source: 'compiler' must name a C compiler, e.g. cc");
                         return std::make_unique<CSourceBackend>(options);
                       });

}  // namespace tessel
