// Soundness of the range analyses on random expressions: every value an expression takes at
// random points inside its variables' ranges must lie within the constant bound, and within the
// symbolic interval (evaluated at the point's symbolic variables) when some variables are relaxed.
#include "passes/arith/interval.h"

#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "passes/arith/const_bound.h"
#include "passes/lower/loop_interpreter.h"
#include "random_expr.h"

using namespace tessel;

namespace {

const VarNode* node(const Var& v) { return static_cast<const VarNode*>(v.get()); }

}  // namespace

TEST_CASE("const_bound: random expressions stay within their bounds", "[arith]") {
  std::vector<Var> vars{Var("x"), Var("y")};
  test::ExprGenerator gen(vars, 99);
  for (int i = 0; i < 2000; ++i) {
    arith::VarBounds bounds;
    for (const Var& v : vars) {
      int64_t lo = gen.in_range(-20, 20);
      bounds[node(v)] = {lo, lo + gen.in_range(0, 30)};
    }
    Expr e = gen.integer(4);
    arith::ConstBound b = arith::const_bound(e, bounds);
    INFO(e << " in [" << b.min << ", " << b.max << "]");
    for (int trial = 0; trial < 8; ++trial) {
      std::unordered_map<const VarNode*, int64_t> at;
      for (const Var& v : vars) at[node(v)] = gen.in_range(bounds[node(v)].min, bounds[node(v)].max);
      int64_t value = evaluate_int(e, at);
      REQUIRE(value >= b.min);
      REQUIRE(value <= b.max);
    }
  }
}

TEST_CASE("eval_interval: relaxed variables sweep inside the symbolic interval", "[arith]") {
  Var x("x"), y("y"), z("z");
  test::ExprGenerator gen({x, y, z}, 4242);
  int bounded = 0;
  for (int i = 0; i < 2000; ++i) {
    int64_t y_lo = gen.in_range(-10, 10), z_lo = gen.in_range(-10, 10);
    int64_t y_hi = y_lo + gen.in_range(0, 12), z_hi = z_lo + gen.in_range(0, 12);
    arith::VarIntervals relax{{node(y), {make_int(y_lo), make_int(y_hi)}}, {node(z), {make_int(z_lo), make_int(z_hi)}}};
    Expr e = gen.integer(3);
    arith::Interval r = arith::eval_interval(e, relax);
    INFO(e << " in [" << r.min << ", " << r.max << "]");
    bounded += r.bounded();
    for (int trial = 0; trial < 8; ++trial) {
      std::unordered_map<const VarNode*, int64_t> at{
          {node(x), gen.in_range(-15, 15)}, {node(y), gen.in_range(y_lo, y_hi)}, {node(z), gen.in_range(z_lo, z_hi)}};
      int64_t value = evaluate_int(e, at);
      if (r.min.defined()) REQUIRE(evaluate_int(r.min, at) <= value);
      if (r.max.defined()) REQUIRE(value <= evaluate_int(r.max, at));
    }
  }
  CHECK(bounded > 1000);  // most random expressions get a finite interval
}
