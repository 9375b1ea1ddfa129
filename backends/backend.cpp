// Out-of-line parts of the back-end interface: argument checking for run(), virtual destructors
// and the default emit().
#include "backends/backend.h"

#include <algorithm>

#include "support/error.h"
#include "support/registry.h"

namespace tessel {

CompiledFunction::~CompiledFunction() = default;

void CompiledFunction::run(const std::vector<NDArray*>& args) const {
  const std::vector<FuncArg>& expected = func_.args;
  if (args.size() != expected.size())
    user_error("function '", func_.name, "' takes ", expected.size(), " arrays but was run with ", args.size(),
               "; pass one array per argument in order");
  std::vector<void*> data;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string what = "argument " + std::to_string(i) + " ('" + expected[i].buffer.name() + "') of function '" +
                       func_.name + "'";
    if (!args[i] || !args[i]->defined()) user_error(what, " is a null or undefined array");
    args[i]->check_matches(expected[i].shape, expected[i].buffer.dtype(), what);
    data.push_back(args[i]->data());
  }
  call(data.data());
}

Backend::~Backend() = default;

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
