// Lowering of the schedule requests the GPU and accelerator layers build on: bind (a ThreadBinding
// loop inside a thread_extent or virtual_thread attribute), pragma (an attribute around the loop)
// and set_scope (the scope of the realized buffer). The loop interpreter runs the result like any
// other lowered function, so it must compute what the tensor expression defines.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "passes/arith/simplify.h"
#include "tests/passes/lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// B = A * 2 computed inside C = B + 1, over 64 x 32.
struct Pipeline {
  Tensor a = placeholder({64, 32}, DataType::float32(), "A");
  Tensor b = compute({64, 32}, [&](Var i, Var j) { return a(i, j) * 2.0; }, "B");
  Tensor c = compute({64, 32}, [&](Var i, Var j) { return b(i, j) + 1.0; }, "C");
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("lower: bind makes a ThreadBinding loop inside its thread_extent attribute", "[lower][bind]") {
  Pipeline p;
  Schedule s = create_schedule({p.c});
  auto [io, ii] = s[p.c].split(s[p.c].axis(0), 16);
  s[p.c].bind(io, "blockIdx.x");
  s[p.c].bind(ii, "threadIdx.x");
  s[p.b].compute_at(s[p.c], ii);
  s[p.b].set_scope("shared");
  LoweredFunc f = check_lowering(s, {p.a}, p.c);
  std::string text = to_string(f);
  INFO(text);
  CHECK(contains(text, "attr [\"blockIdx.x\"] thread_extent = 4 {\n"
                       "    thread_binding (i.outer, 0, 4, blockIdx.x) {\n"
                       "      attr [\"threadIdx.x\"] thread_extent = 16 {\n"
                       "        thread_binding (i.inner, 0, 16, threadIdx.x) {\n"
                       "          allocate B[float32 * 32] @shared {"));
}

TEST_CASE("lower: vthread makes a virtual_thread attribute", "[lower][bind]") {
  Pipeline p;
  Schedule s = create_schedule({p.c});
  auto [jo, ji] = s[p.c].split(s[p.c].axis(1), 8);
  s[p.c].bind(jo, "vthread");
  std::string text = to_string(check_lowering(s, {p.a}, p.c));
  INFO(text);
  CHECK(contains(text, "attr [\"vthread\"] virtual_thread = 4 {\n        thread_binding (j.outer, 0, 4, vthread) {"));
}

TEST_CASE("lower: pragmas wrap their loop, in the order given, in the init nest too", "[lower][pragma]") {
  Tensor a = placeholder({8, 16}, DataType::float32(), "A");
  IterVar k = reduce_axis(16, "k");
  Tensor total = compute({8}, [&](Var i) { return sum(a(i, k), {k}); }, "Total");
  Schedule s = create_schedule({total});
  Stage t = s[total];
  t.pragma(t.axis(0), "first", 1);
  t.pragma(t.axis(0), "second", 2.5);
  t.pragma(k, "on_k", 3);
  std::string text = to_string(check_lowering(s, {a}, total));
  INFO(text);
  CHECK(contains(text, "attr pragma_first = 1 {\n    attr pragma_second = 2.5f {\n      for (i, 0, 8) {"));
  CHECK(contains(text, "attr pragma_on_k = 3 {\n          for (k, 0, 16) {"));
}

TEST_CASE("lower: set_scope chooses the scope of the allocation; 'local' is the default", "[lower][scope]") {
  for (const char* scope : {"", "local", "global", "shared"}) {
    Pipeline p;
    Schedule s = create_schedule({p.c});
    if (*scope) s[p.b].set_scope(scope);
    LoweredFunc f = lower(s, {p.a, p.c}, "f");
    std::string text = to_string(f);
    INFO(scope << ":\n" << text);
    std::string expected = std::string("allocate B[float32 * 2048]") +
                           (*scope && std::string(scope) != "local" ? std::string(" @") + scope : "") + " {";
    CHECK(contains(text, expected));
    NDArray av = NDArray::random_uniform({64, 32}, DataType::float32(), 3), out = NDArray::zeros({64, 32}, DataType::float32());
    run_lowered(f, {&av, &out});
    CHECK(max_abs_diff(out, evaluate(p.c, {{p.a, av}})) == 0);
  }
}

TEST_CASE("lower: a stage with a scope cannot be an argument", "[lower][scope][errors]") {
  Pipeline p;
  Schedule s = create_schedule({p.c});
  s[p.b].set_scope("shared");
  require_user_error([&] { lower(s, {p.a, p.b, p.c}, "f"); },
                     {"stage 'B'", "memory scope 'shared'", "passed as an argument", "global"});
}

TEST_CASE("simplify: a bound loop keeps its extent of one; attributes go with empty bodies", "[lower][simplify]") {
  Var i("i");
  Buffer out("out", DataType::float32(), MemoryScope::global());
  Stmt bound = make_for(i, 0, 1, ForKind::ThreadBinding, make_store(out, i, 1.0), "threadIdx.x");
  CHECK(simplify(bound).as<For>() != nullptr);
  Stmt serial = make_for(i, 0, 1, ForKind::Serial, make_store(out, i, 1.0));
  CHECK(simplify(serial).as<Store>() != nullptr);
  Stmt empty = make_attr("pragma_x", std::monostate{}, 1, make_for(i, 0, 0, ForKind::Serial, make_store(out, i, 1.0)));
  CHECK_FALSE(simplify(empty).defined());
}
