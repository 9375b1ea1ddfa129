// The simple CPU schedule of reductions (ops/graph/graph_op_util.h): the last kept axis runs as
// vector lanes inside the reduction loops where every read is indexed last by it (an NCHWc global
// pool), and stays scalar where the lanes would gather (a reduction over the last axis).
#include <catch2/catch.hpp>

#include "ir/visitor.h"
#include "ops/graph/graph_op_util.h"
#include "passes/lower/lower.h"

using namespace tessel;

namespace {

// The widest store into the reduction's buffer.
class WidestStore : public IRVisitor {
 public:
  explicit WidestStore(std::string buffer) : buffer_(std::move(buffer)) {}
  int lanes = 0;

 protected:
  void visit_node(const Store* op) override {
    if (op->buffer.name() == buffer_) lanes = std::max<int>(lanes, op->value.type().lanes);
    IRVisitor::visit_node(op);
  }

 private:
  std::string buffer_;
};

int widest_store(const Tensor& out, const Tensor& in) {
  LoweredFunc f = lower(ops::schedule_simple_cpu(out), {in, out}, "reduce");
  WidestStore widest(out.name());
  widest.visit(f.body);
  return widest.lanes;
}

}  // namespace

TEST_CASE("simple schedule: a window reduction over a channel block adds whole vectors", "[graph][schedule]") {
  Tensor x = placeholder({1, 2, 7, 7, 32}, DataType::float32(), "x");
  IterVar ry = reduce_axis(7, "ry"), rx = reduce_axis(7, "rx");
  Tensor pool = compute({1, 2, 1, 1, 32}, [&](Var n, Var c, Var, Var, Var b) { return sum(x(n, c, ry, rx, b), {ry, rx}); },
                        "pool");
  CHECK(widest_store(pool, x) == 16);
}

TEST_CASE("simple schedule: lanes only over an axis every read indexes last", "[graph][schedule]") {
  Tensor x = placeholder({4, 32}, DataType::float32(), "x");
  IterVar r = reduce_axis(32, "r"), r0 = reduce_axis(4, "r0");
  Tensor rows = compute({4, 1}, [&](Var i, Var) { return sum(x(i, r), {r}); }, "rows");
  CHECK(widest_store(rows, x) == 1);  // lanes over i would gather with a stride of 32
  Tensor columns = compute({32}, [&](Var j) { return sum(x(r0, j), {r0}); }, "columns");
  CHECK(widest_store(columns, x) == 16);
}
