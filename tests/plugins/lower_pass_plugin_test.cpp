// A lowering pass from a plugin library built on its own (tests/plugins/libraries/
// serialize_short_parallel.cpp, built into the build directory as an out-of-tree plugin would be):
// loaded with load_plugin_library, listed with its parameters, added to the CPU pipeline by name,
// and its rewrite checked on the lowered program, which still computes the same values.
#include <catch2/catch.hpp>

#include "ir/te_interpreter.h"
#include "ir/visitor.h"
#include "passes/lower/loop_interpreter.h"
#include "passes/lower/lower.h"
#include "support/registry.h"

using namespace tessel;

namespace {

class ParallelLoops : public IRVisitor {
 public:
  int count = 0;

 protected:
  void visit_node(const For* op) override {
    count += op->kind == ForKind::Parallel;
    IRVisitor::visit_node(op);
  }
};

int parallel_loops(const Stmt& s) {
  ParallelLoops v;
  v.visit(s);
  return v.count;
}

// B[i, j] = A[i, j] + A[i, j] over 6×32, the rows in parallel.
struct Scale {
  Tensor a = placeholder({6, 32}, DataType::float32(), "A");
  Tensor b = compute({6, 32}, [&](Var i, Var j) { return a(i, j) + a(i, j); }, "B");

  LoweredFunc lower_with(const std::vector<PassRequest>& passes) const {
    Schedule s = create_schedule({b});
    s[b].parallel(s[b].axis(0));
    LowerOptions options;
    options.extra_passes = passes;
    return lower(s, {a, b}, "scale", Target::host(), options);
  }

  // Runs f and compares with the tensor-expression interpreter.
  void check(const LoweredFunc& f) const {
    NDArray av = NDArray::random_uniform({6, 32}, DataType::float32(), 3);
    NDArray bv = NDArray::zeros({6, 32}, DataType::float32());
    run_lowered(f, {&av, &bv});
    CHECK(max_abs_diff(bv, evaluate(b, std::vector<std::pair<Tensor, NDArray>>{{a, av}})) == 0);
  }
};

void load_test_plugin() { load_plugin_library(TESSEL_BINARY_DIR "/libserialize_short_parallel.so"); }

}  // namespace

TEST_CASE("a lower_pass plugin library registers its pass with a phase", "[plugins][pipeline]") {
  load_test_plugin();
  const PluginInfo& info = Registry<LowerPass>::instance().info("serialize_short_parallel");
  CHECK(info.kind == "lower_pass");
  REQUIRE(info.params.size() == 2);
  CHECK(info.params[0].name == "phase");
  CHECK(info.params[0].default_value == "finalize");
  CHECK(info.params[1].name == "min_extent");
}

TEST_CASE("a plugin pass from a library rewrites the lowered program", "[plugins][pipeline]") {
  load_test_plugin();
  Scale scale;
  LoweredFunc as_scheduled = scale.lower_with({});
  CHECK(parallel_loops(as_scheduled.body) == 1);

  LoweredFunc kept = scale.lower_with({{"serialize_short_parallel", {{"min_extent", 6}}}});
  CHECK(parallel_loops(kept.body) == 1);
  LoweredFunc serial = scale.lower_with({{"serialize_short_parallel", {{"min_extent", 7}}}});
  CHECK(parallel_loops(serial.body) == 0);
  scale.check(serial);

  // Moved to the schedule phase, it rewrites the loops before they are flattened.
  LoweredFunc early = scale.lower_with({{"serialize_short_parallel", {{"min_extent", 7}, {"phase", "schedule"}}}});
  CHECK(parallel_loops(early.body) == 0);
  scale.check(early);
}
