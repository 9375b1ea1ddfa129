// Schedule errors only lowering can detect, argument errors, and the loop interpreter's own
// checks (out-of-bounds accesses, reads of never-written local memory, unlowered nodes).
#include <catch2/catch.hpp>
#include <cmath>

#include "lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

struct Chain {
  Tensor a = placeholder({16, 8}, DataType::float32(), "A");
  Tensor b = compute(
      {16, 8}, [&](Var i, Var j) { return a(i, j) + 1.0; }, "B");
  Tensor c = compute(
      {16, 8}, [&](Var i, Var j) { return b(i, j) * 2.0; }, "C");
  Tensor d = compute(
      {16, 8}, [&](Var i, Var j) { return c(i, j) - b(i, j); }, "D");
};

}  // namespace

TEST_CASE("lower: compute_at to a loop that was split afterwards", "[lower][errors]") {
  Chain g;
  Schedule s = create_schedule({g.d});
  IterVar i = s[g.d].axis(0);
  s[g.c].compute_at(s[g.d], i);
  s[g.d].split(i, 4);
  require_user_error([&] { lower(s, {g.a, g.d}, "f"); }, {"compute_at", "'C'", "'i'", "'D'", "split or fused"});
}

TEST_CASE("lower: compute_at to an inlined stage", "[lower][errors]") {
  Chain g;
  Schedule s = create_schedule({g.d});
  s[g.b].compute_at(s[g.c], s[g.c].axis(1));
  s[g.c].compute_inline();
  require_user_error([&] { lower(s, {g.a, g.d}, "f"); }, {"'B'", "'C'", "inlined"});
}

TEST_CASE("lower: a stage nested in a stage that shares its reduction axis", "[lower][errors]") {
  Tensor a = placeholder({6, 5}, DataType::float32(), "A");
  IterVar k = reduce_axis(5, "k");
  Tensor total = compute(
      {6}, [&](Var i) { return sum(a(i, k), {k}); }, "Total");
  Tensor scaled = compute(
      {6}, [&](Var i) { return sum(a(i, k) * total(i), {k}); }, "Scaled");
  Schedule s = create_schedule({scaled});
  check_lowering(s, {a}, scaled);  // sharing `k` is fine while the nests are apart
  s[total].compute_at(s[scaled], s[scaled].axis(0));
  check_lowering(s, {a}, scaled);
  s[total].compute_at(s[scaled], k);
  require_user_error([&] { lower(s, {a, scaled}, "f"); }, {"'Total'", "loop 'k'", "'Scaled'", "reduce_axis"});
}

TEST_CASE("lower: argument errors", "[lower][errors]") {
  Chain g;
  Schedule s = create_schedule({g.d});
  require_user_error([&] { lower(s, {g.d}, "f"); }, {"'A'", "arguments"});
  require_user_error([&] { lower(s, {g.a, g.d, g.a}, "f"); }, {"'A'", "twice"});
  Tensor stranger = placeholder({2}, DataType::float32(), "X");
  require_user_error([&] { lower(s, {g.a, stranger, g.d}, "f"); }, {"'X'"});
}

TEST_CASE("lower: a reduction nested inside a compute body", "[lower][errors]") {
  Tensor a = placeholder({4, 4}, DataType::float32(), "A");
  IterVar k = reduce_axis(4, "k");
  Tensor c = compute(
      {4}, [&](Var i) { return sum(a(i, k), {k}) + 1.0; }, "C");
  Schedule s = create_schedule({c});
  require_user_error([&] { lower(s, {a, c}, "f"); }, {"'C'", "whole body"});
}

TEST_CASE("lower: vectorization falls back to loops it cannot express", "[lower]") {
  Tensor a = placeholder({100, 3}, DataType::float32(), "A");
  Tensor b = compute(
      {100, 3}, [&](Var i, Var j) { return a(i, j) * a(i, j); }, "B");
  SECTION("guard that differs across lanes") {
    Schedule s = create_schedule({b});
    auto [io, ii] = s[b].split(s[b].axis(0), 16);
    s[b].reorder({ii, io, s[b].axis(1)});
    s[b].vectorize(ii);  // the guard io*16 + ii < 100 sits inside the io loop, inside the lanes
    LoweredFunc f = check_lowering(s, {a}, b);
    CHECK(check_contract(f).vector_stores == 0);
  }
  SECTION("extent above 64 lanes") {
    Schedule s = create_schedule({b});
    s[b].reorder({s[b].axis(1), s[b].axis(0)});
    s[b].vectorize(s[b].axis(0));
    CHECK(check_contract(check_lowering(s, {a}, b)).vector_stores == 0);
  }
  SECTION("strided lanes with a loop inside") {
    Schedule s = create_schedule({b});
    auto [io, ii] = s[b].split(s[b].axis(0), 4);
    s[b].reorder({ii, io});
    s[b].vectorize(ii);  // lanes step by 3 elements; the io and j loops run inside
    CHECK(check_contract(check_lowering(s, {a}, b)).vector_stores > 0);
  }
}

TEST_CASE("loop interpreter: reports out-of-bounds accesses and exposes uninitialized reads", "[lower]") {
  Buffer out("out", DataType::float32(), MemoryScope::global());
  Buffer tmp("tmp", DataType::float32(), MemoryScope::local());
  NDArray arr = NDArray::zeros({4}, DataType::float32());
  Var i("i");
  LoweredFunc past_end{"f", {{out, {4}}}, make_for(i, 0, 5, ForKind::Serial, make_store(out, i, make_float(1.0)))};
  require_user_error([&] { run_lowered(past_end, {&arr}); }, {"element 4", "'out'", "4 elements"});
  LoweredFunc unwritten{"g", {{out, {4}}}, make_allocate(tmp, 2, make_store(out, 0, load(tmp, 1)))};
  run_lowered(unwritten, {&arr});
  CHECK(std::isnan(arr.data_as<float>()[0]));
  Tensor t = placeholder({4}, DataType::float32(), "T");
  LoweredFunc unlowered{"h", {{out, {4}}}, make_store(out, 0, t(0))};
  require_user_error([&] { run_lowered(unlowered, {&arr}); }, {"tensor read", "lower"});
}
