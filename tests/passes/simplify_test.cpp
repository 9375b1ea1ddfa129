// The simplifier: random differential tests (random integer expressions evaluated before and after
// simplification at random points inside the variables' ranges must agree), plus the rewrites the
// lowering relies on (split index recovery, guards proven by loop bounds, fused index recovery).
#include "passes/arith/simplify.h"
#include "passes/arith/linear_form.h"

#include <catch2/catch.hpp>
#include <random>

#include "ir/equality.h"
#include "ir/printer.h"
#include "passes/lower/loop_interpreter.h"
#include "random_expr.h"

using namespace tessel;
using arith::ConstBound;
using arith::VarBounds;
using test::ExprGenerator;

namespace {

const VarNode* node(const Var& v) { return static_cast<const VarNode*>(v.get()); }

void check_same_values(const Expr& original, const Expr& simplified, const std::vector<Var>& vars,
                       const VarBounds& bounds, ExprGenerator& gen) {
  INFO("original:   " << original);
  INFO("simplified: " << simplified);
  for (int trial = 0; trial < 12; ++trial) {
    std::unordered_map<const VarNode*, int64_t> values;
    for (const Var& v : vars) values[node(v)] = gen.in_range(bounds.at(node(v)).min, bounds.at(node(v)).max);
    int64_t expected = evaluate_int(original, values), got = evaluate_int(simplified, values);
    if (expected != got) {
      for (const Var& v : vars) UNSCOPED_INFO(v.name() << " = " << values[node(v)]);
    }
    REQUIRE(expected == got);
  }
}

}  // namespace

TEST_CASE("simplify: random integer expressions keep their values", "[simplify]") {
  std::vector<Var> vars{Var("x"), Var("y"), Var("z")};
  ExprGenerator gen(vars, 12345);
  for (int i = 0; i < 3000; ++i) {
    VarBounds bounds;
    for (const Var& v : vars) {
      int64_t lo = gen.in_range(-30, 30);
      bounds[node(v)] = {lo, lo + gen.in_range(0, 40)};
    }
    Expr e = gen.integer(4);
    check_same_values(e, simplify(e, bounds), vars, bounds, gen);
  }
}

TEST_CASE("simplify: random conditions keep their values", "[simplify]") {
  std::vector<Var> vars{Var("x"), Var("y")};
  ExprGenerator gen(vars, 777);
  for (int i = 0; i < 3000; ++i) {
    VarBounds bounds;
    for (const Var& v : vars) {
      int64_t lo = gen.in_range(-10, 10);
      bounds[node(v)] = {lo, lo + gen.in_range(0, 20)};
    }
    Expr e = gen.boolean(3);
    check_same_values(e, simplify(e, bounds), vars, bounds, gen);
  }
}

TEST_CASE("simplify: split index recovery folds division and modulo", "[simplify]") {
  Var x("x"), y("y");
  VarBounds bounds{{node(x), {0, 15}}, {node(y), {0, 7}}};
  CHECK(structural_equal(simplify((x * 8 + y) / 8, bounds), x));
  CHECK(structural_equal(simplify((x * 8 + y) % 8, bounds), y));
  CHECK(structural_equal(simplify((y + x * 8 + 16) / 8, bounds), x + 2));
  // Without bounds on y the quotient keeps y's part.
  CHECK(structural_equal(simplify((x * 8 + y) / 8), x + y / 8));
  CHECK(structural_equal(simplify((x * 8 + y) % 8), y % 8));
  // (f / 6) * 6 + f % 6 is f (fused-loop recovery).
  Var f("f");
  CHECK(structural_equal(simplify((f / 6) * 6 + f % 6), f));
  CHECK(structural_equal(simplify((x * 4 + y) * 16 - y * 16 + 3 - 3), x * 64));
}

TEST_CASE("simplify: an aligned index plus a part smaller than the alignment divides alone", "[simplify]") {
  Var icc("icc"), icb("icb"), w("w");
  VarBounds bounds{{node(icc), {0, 11}}, {node(icb), {0, 7}}, {node(w), {0, 8}}};
  // A channel (icc*8 + icb) read through a 16c-to-8c layout change: no division left per element.
  CHECK(structural_equal(simplify((icc * 8 + icb) / 16, bounds), simplify(icc / 2, bounds)));
  CHECK(structural_equal(simplify((icc * 8 + icb) % 16, bounds), simplify(icb + icc * 8 % 16, bounds)));
  // w can reach 8, past the alignment: the division stays whole.
  CHECK(structural_equal(simplify((icc * 8 + w) / 16, bounds), (icc * 8 + w) / 16));
  ExprGenerator gen({icc, icb, w}, 7);
  for (Expr e : {(icc * 8 + icb) / 16, (icc * 8 + icb) % 16, (icc * 24 + icb + 3) / 16, (icc * 12 + icb) % 4})
    check_same_values(e, simplify(e, bounds), {icc, icb, w}, bounds, gen);
}

TEST_CASE("simplify: a ramp inside one block of the divisor divides to a broadcast and a ramp", "[simplify]") {
  Var j("j");
  Expr lanes = ramp(j * 8, Expr(int64_t{1}), 8);  // 8 channels of a 16-channel block (16c to 8c)
  Expr sixteen = broadcast(Expr(int64_t{16}), 8);
  CHECK(structural_equal(simplify(lanes / sixteen), broadcast(simplify(j * 8 / 16), 8)));
  CHECK(structural_equal(simplify(lanes % sixteen), ramp(simplify(j * 8 % 16), Expr(int64_t{1}), 8)));
  // Lanes that may cross a block boundary stay lane-wise: j*4 + 7 can reach the next block of 16.
  Expr crossing = ramp(j * 4, Expr(int64_t{1}), 8) / sixteen;
  CHECK(simplify(crossing).as<Broadcast>() == nullptr);
  // Every lane's value agrees with the lane-wise division.
  Expr quotient = simplify(lanes / sixteen);
  auto* b = quotient.as<Broadcast>();
  REQUIRE(b != nullptr);
  std::unordered_map<const VarNode*, int64_t> values;
  for (int64_t v = 0; v < 40; ++v) {
    values[node(j)] = v;
    for (int lane = 0; lane < 8; ++lane) {
      Expr scalar = (j * 8 + Expr(int64_t{lane})) / Expr(int64_t{16});
      CHECK(evaluate_int(b->value, values) == evaluate_int(scalar, values));
    }
  }
}

TEST_CASE("simplify: guards proven by ranges disappear", "[simplify]") {
  Var xo("xo"), xi("xi");
  Buffer out("out", DataType::float32(), MemoryScope::global());
  Stmt store = make_store(out, xo * 32 + xi, make_float(1.0));
  Stmt guarded =
      make_for(xo, 0, 3, ForKind::Serial, make_for(xi, 0, 32, ForKind::Serial, make_if(xo * 32 + xi < 100, store)));
  Stmt s = simplify(guarded);
  INFO(s);
  CHECK(to_string(s).find("if") == std::string::npos);
  // With a fourth outer iteration the guard is needed and stays.
  Stmt needed =
      make_for(xo, 0, 4, ForKind::Serial, make_for(xi, 0, 32, ForKind::Serial, make_if(xo * 32 + xi < 100, store)));
  CHECK(to_string(simplify(needed)).find("if (xo*32 + xi < 100)") != std::string::npos);
  // A loop that never runs and a guard that never holds vanish; an extent-1 loop becomes its body.
  CHECK(!simplify(make_for(xo, 0, 0, ForKind::Serial, store)).defined());
  CHECK(!simplify(make_for(xi, 0, 4, ForKind::Serial, make_if(xi > 10, store))).defined());
  Stmt single = simplify(make_for(xo, 2, 1, ForKind::Serial, make_for(xi, 0, 32, ForKind::Serial, store)));
  CHECK(to_string(single).find("64") != std::string::npos);
}

TEST_CASE("simplify: min, max and comparisons decided by ranges", "[simplify]") {
  Var x("x"), y("y");
  VarBounds bounds{{node(x), {0, 9}}, {node(y), {10, 20}}};
  CHECK(structural_equal(simplify(min(x, y), bounds), x));
  CHECK(structural_equal(simplify(max(x + 1, x), bounds), x + 1));
  CHECK(structural_equal(simplify(min(x * 2 + 3, x * 2 + 1)), x * 2 + 1));
  CHECK(can_prove(x < y, bounds));
  CHECK(can_prove(x * 2 <= 18, bounds));
  CHECK_FALSE(can_prove(x * 2 < 18, bounds));
  CHECK(can_prove(!(y < x), bounds));
  CHECK(structural_equal(simplify(x + 3 > y), y < x + 3));
}

TEST_CASE("simplify: constants fold with the IR's semantics", "[simplify]") {
  CHECK(is_const_int(simplify(Expr(-7) / 2), -4));
  CHECK(is_const_int(simplify(Expr(-7) % 2), 1));
  CHECK(is_const_int(simplify(Expr(7) % -2), -1));
  Expr big = make_int(2147483647) + 1;
  CHECK(is_const_int(simplify(big), -2147483648LL));
  Expr sum = simplify(make_float(0.1) + make_float(0.2));  // owns the node `f` views
  const auto* f = sum.as<FloatImm>();
  REQUIRE(f);
  CHECK(f->value == static_cast<double>(0.1f + 0.2f));
  // Division by a constant zero is left for run time to report.
  Var x("x");
  CHECK(simplify(x / 0).as<Div>());
}

// The simplifier's shortcuts (the form of a op b without building it, from_linear reusing the first
// operand's nodes) must build exactly what the plain path builds.
TEST_CASE("linear forms: the shortcuts build the same expressions as the plain path", "[simplify]") {
  std::vector<Var> vars{Var("x"), Var("y"), Var("z")};
  ExprGenerator gen(vars, 4242);
  for (int i = 0; i < 2000; ++i) {
    Expr a = simplify(gen.integer(3)), b = simplify(gen.integer(3));
    for (NodeKind kind : {NodeKind::Add, NodeKind::Sub, NodeKind::Mul}) {
      Expr plain = arith::from_linear(arith::to_linear(make_binary(kind, a, b)));
      INFO(a << " and " << b << ": " << plain);
      CHECK(structural_equal(arith::from_linear(arith::to_linear(kind, a, b)), plain));
      CHECK(structural_equal(arith::from_linear(arith::to_linear(kind, a, b), a), plain));
      CHECK(structural_equal(arith::from_linear(arith::to_linear(kind, a, b), b), plain));
    }
  }
}

TEST_CASE("linear forms: a sum extending its first operand reuses that operand's nodes", "[simplify]") {
  Var x("x"), y("y"), z("z"), w("w");
  Expr prefix = arith::from_linear(arith::to_linear(x * 2 + y));
  Expr sum = arith::from_linear(arith::to_linear(NodeKind::Add, prefix, w * 3), prefix);
  CHECK(to_string(sum) == "x*2 + y + w*3");
  const Add* top = sum.as<Add>();
  REQUIRE(top);
  CHECK(top->a.same_as(prefix));
  // Subtracted terms and the constant come last, so only the part before them is reused.
  Expr mixed = arith::from_linear(arith::to_linear(x * 2 + y - z + 5));
  Expr extended = arith::from_linear(arith::to_linear(NodeKind::Add, mixed, w), mixed);
  CHECK(to_string(extended) == "x*2 + y + w - z + 5");
  CHECK(extended.as<Add>()->a.as<Sub>()->a.as<Add>()->a.same_as(mixed.as<Add>()->a.as<Sub>()->a));
}
