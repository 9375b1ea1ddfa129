// Out-of-line parts of the back-end interface: compile() on top of build(), module metadata of
// lowered functions, the checks every build() shares, and the default emit().
#include "backends/backend.h"

#include <algorithm>
#include <set>

#include "support/error.h"
#include "support/registry.h"

namespace tessel {

FunctionInfo function_info(const LoweredFunc& func, std::string symbol) {
  FunctionInfo info{func.name, std::move(symbol), {}};
  for (const FuncArg& arg : func.args) info.args.push_back({arg.buffer.name(), arg.buffer.dtype(), arg.shape});
  return info;
}

Backend::~Backend() = default;

std::unique_ptr<CompiledFunction> Backend::compile(const LoweredFunc& func) const {
  target().check_runs_here("the " + name() + " back end");
  Module module = build({func});
  return std::make_unique<CompiledFunction>(func, module.function(func.name));
}

void Backend::check_build_inputs(const std::vector<BuildInput>& functions) const {
  if (functions.empty()) user_error("back end '", name(), "': a module needs at least one function to build");
  std::set<std::string> names;
  for (const BuildInput& f : functions)
    if (!names.insert(f.name()).second)
      user_error("back end '", name(), "': two functions of one module are named '", f.name(),
                 "'; give each function its own name");
}

Target Backend::target() const {
  if (target_) return *target_;
  std::vector<std::string> cpu_kinds = {"llvm_cpu", "c_source"};
  bool cpu = std::find(cpu_kinds.begin(), cpu_kinds.end(), name()) != cpu_kinds.end();
  return Target::host(cpu ? name() : "llvm_cpu");
}

std::unique_ptr<Backend> create_backend(const Target& target, const nlohmann::json& params) {
  std::unique_ptr<Backend> backend = Registry<Backend>::instance().create(target.kind(), params);
  backend->target_ = target;
  return backend;
}

std::string Backend::emit(const LoweredFunc& func, const std::string& format) const {
  user_error("back end '", name(), "' cannot emit '", format, "' code for function '", func.name,
             "'; choose a back end that offers that format");
}

}  // namespace tessel
