// Out-of-line parts of the back-end interface: argument checking for run(), virtual destructors
// and the default emit().
#include "backends/backend.h"

#include "support/error.h"

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

std::string Backend::emit(const LoweredFunc& func, const std::string& format) const {
  user_error("back end '", name(), "' cannot emit '", format, "' code for function '", func.name,
             "'; choose a back end that offers that format");
}

}  // namespace tessel
