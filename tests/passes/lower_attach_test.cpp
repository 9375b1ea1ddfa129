// Lowering of multi-stage schedules: compute_at (with the regions bound inference gives the
// producer), compute_inline, compute_root, cache_read and cache_write, each executed against the
// tensor-expression interpreter.
#include <catch2/catch.hpp>

#include "lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

TEST_CASE("bound inference: a producer at a tiled consumer's loop covers one tile plus its halo", "[lower]") {
  Tensor a = placeholder({34, 34}, DataType::float32(), "A");
  Tensor b = compute(
      {33, 33}, [&](Var i, Var j) { return a(i, j) + a(i + 1, j + 1); }, "B");
  Tensor c = compute(
      {32, 32}, [&](Var i, Var j) { return b(i, j) * b(i + 1, j + 1); }, "C");
  Schedule s = create_schedule({c});
  auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 8, 4);
  s[b].compute_at(s[c], jo);
  auto extents = realize_extents(schedule_to_loops(s, {a, c}));
  CHECK(extents["B"] == std::vector<int64_t>{9, 5});
  check_lowering(s, {a}, c);

  // At the outer row loop the producer covers a band of rows and every column.
  Schedule rows = create_schedule({c});
  auto [ro, co, ri, ci] = rows[c].tile(rows[c].axis(0), rows[c].axis(1), 8, 4);
  rows[b].compute_at(rows[c], ro);
  CHECK(realize_extents(schedule_to_loops(rows, {a, c}))["B"] == std::vector<int64_t>{9, 33});
  check_lowering(rows, {a}, c);
}

TEST_CASE("bound inference: a non-dividing consumer split keeps the producer inside its shape", "[lower]") {
  Tensor a = placeholder({100}, DataType::float32(), "A");
  Tensor b = compute(
      {100}, [&](Var i) { return a(i) * 2.0; }, "B");
  Tensor c = compute(
      {100}, [&](Var i) { return b(i) + 1.0; }, "C");
  Schedule s = create_schedule({c});
  auto [xo, xi] = s[c].split(s[c].axis(0), 32);
  s[b].compute_at(s[c], xo);
  s[c].vectorize(xi);
  CHECK(realize_extents(schedule_to_loops(s, {a, c}))["B"] == std::vector<int64_t>{32});
  check_lowering(s, {a}, c);
}

TEST_CASE("lower: compute_inline, compute_root and chains of compute_at", "[lower]") {
  Tensor a = placeholder({20, 12}, DataType::float32(), "A");
  Tensor b = compute(
      {20, 12}, [&](Var i, Var j) { return a(i, j) * 3.0; }, "B");
  Tensor c = compute(
      {20, 12}, [&](Var i, Var j) { return b(i, j) - 1.0; }, "C");
  Tensor d = compute(
      {20, 12}, [&](Var i, Var j) { return c(i, j) + b(i, j); }, "D");

  SECTION("inline") {
    Schedule s = create_schedule({d});
    s[b].compute_inline();
    s[c].compute_inline();
    LoweredFunc f = check_lowering(s, {a}, d);
    CHECK(to_string(f).find("allocate") == std::string::npos);
  }
  SECTION("root") {
    Schedule s = create_schedule({d});
    LoweredFunc f = check_lowering(s, {a}, d);
    CHECK(to_string(f).find("allocate B") != std::string::npos);
  }
  SECTION("chain") {
    Schedule s = create_schedule({d});
    auto [io, ii] = s[d].split(s[d].axis(0), 4);
    s[c].compute_at(s[d], io);
    s[b].compute_at(s[d], io);  // read by C (inside the same loop) and by D
    check_lowering(s, {a}, d);
    auto extents = realize_extents(schedule_to_loops(s, {a, d}));
    CHECK(extents["B"] == std::vector<int64_t>{4, 12});
    CHECK(extents["C"] == std::vector<int64_t>{4, 12});
  }
  SECTION("nested") {
    Schedule s = create_schedule({d});
    auto [io, ii] = s[d].split(s[d].axis(0), 5);
    s[c].compute_at(s[d], io);
    s[b].compute_at(s[c], s[c].axis(1));  // B inside C's inner loop: read by C there and by D outside
    test::require_user_error([&] { lower(s, {a, d}, "f"); }, {"'B'", "'D'", "outside that loop"});
    s[b].compute_at(s[d], ii);
    s[c].compute_at(s[d], ii);
    check_lowering(s, {a}, d);
  }
}

TEST_CASE("lower: cache_write and cache_read around a tiled GEMM", "[lower]") {
  for (int64_t n : {48, 40}) {  // the column tiles of 16 divide 48 but not 40
    Tensor a = placeholder({24, 16}, DataType::float32(), "A");
    Tensor b = placeholder({16, n}, DataType::float32(), "B");
    IterVar k = reduce_axis(16, "k");
    Tensor c = compute(
        {24, n}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");

    Schedule s = create_schedule({c});
    Tensor cl = s.cache_write(c);
    Tensor al = s.cache_read(a, {cl});
    auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 8, 16);
    s[cl].compute_at(s[c], jo);
    auto [ko, ki] = s[cl].split(s[cl].reduce_axis(0), 4);
    s[cl].reorder({ko, s[cl].axis(0), ki, s[cl].axis(1)});
    s[cl].vectorize(s[cl].axis(1));
    s[al].compute_at(s[cl], ko);
    s[c].vectorize(ji);
    s[c].parallel(io);
    LoweredFunc f = check_lowering(s, {a, b}, c);  // `c` is the handle the user created
    auto extents = realize_extents(schedule_to_loops(s, {a, b, c}));
    CHECK(extents["C.local"] == std::vector<int64_t>{8, 16});
    CHECK(extents["A.local"] == std::vector<int64_t>{8, 4});
    if (n == 48) CHECK(check_contract(f).vector_stores > 0);
  }
}

TEST_CASE("lower: reductions with a condition, a shifted axis and max combiner", "[lower]") {
  Tensor a = placeholder({10, 12}, DataType::float32(), "A");
  IterVar r = reduce_axis(Range{2, 7}, "r");
  Tensor m = compute(
      {10, 6}, [&](Var i, Var j) { return max_reduce(a(i, r.var() + j - 2), {r}, r.var() + j < 12); }, "M");
  Schedule s = create_schedule({m});
  auto [ro, ri] = s[m].split(r, 3);
  s[m].reorder({s[m].axis(0), ro, s[m].axis(1), ri});
  check_lowering(s, {a}, m);
}

TEST_CASE("lower: integer tensors and casts", "[lower]") {
  Tensor a = placeholder({6, 9}, DataType::int32(), "A");
  Tensor b = compute(
      {6, 9}, [&](Var i, Var j) { return (a(i, j) * 7 + i) / 4 % 5 - j; }, "B");
  Tensor c = compute(
      {6, 9}, [&](Var i, Var j) { return cast(DataType::float32(), b(i, j)) * 0.5; }, "C");
  Schedule s = create_schedule({c});
  auto [jo, ji] = s[c].split(s[c].axis(1), 4);
  s[b].compute_at(s[c], jo);
  s[c].vectorize(ji);
  check_lowering(s, {a}, c, 0);
}
