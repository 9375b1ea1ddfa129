// A lowering-pass plugin built as its own shared library, as an out-of-tree one would be, and loaded
// by the tests (tests/plugins/lower_pass_plugin_test.cpp, tests/tools/cli_contract.sh): parallel
// loops whose constant extent is below min_extent become serial, since waking the thread pool costs
// more than a few iterations gain. It runs at the end of the finalize phase unless told otherwise.
#include <memory>

#include "ir/mutator.h"
#include "passes/lower/lower_pass.h"

namespace {

using namespace tessel;

class ShortParallelLoops : public IRMutator {
 public:
  explicit ShortParallelLoops(int64_t min_extent) : min_extent_(min_extent) {}

 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    Stmt rewritten = IRMutator::mutate_node(op, self);
    const int64_t* extent = as_const_int(op->extent);
    if (op->kind != ForKind::Parallel || !extent || *extent >= min_extent_) return rewritten;
    const For* loop = rewritten.as<For>();
    return make_for(loop->var, loop->min, loop->extent, ForKind::Serial, loop->body);
  }

 private:
  int64_t min_extent_;
};

class SerializeShortParallel : public LowerPass {
 public:
  explicit SerializeShortParallel(int64_t min_extent) : min_extent_(min_extent) {}
  Stmt run(const Stmt& body, const PassContext&) const override { return ShortParallelLoops(min_extent_).mutate(body); }

 private:
  int64_t min_extent_;
};

TESSEL_REGISTER_PLUGIN(LowerPass, serialize_short_parallel, "parallel loops shorter than min_extent run serially",
                       (std::vector<ParamSpec>{
                           phase_param(Phase::Finalize),
                           {"min_extent", ParamType::Int, 4, "shortest loop kept parallel", Allowed::at_least(1)}}),
                       [](const PluginParams& p) { return std::make_unique<SerializeShortParallel>(p.get_int("min_extent")); });

}  // namespace
