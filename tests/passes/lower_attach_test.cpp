// Lowering of multi-stage schedules: compute_at (with the regions bound inference gives the
// producer), store_at (sliding windows in folded storage), compute_inline, compute_root, cache_read
// and cache_write, each executed against the tensor-expression interpreter.
#include <catch2/catch.hpp>
#include <tuple>

#include "ir/mutator.h"

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

TEST_CASE("lower: a sum starting from a bias, cached per tile with its reduction split", "[lower]") {
  Tensor a = placeholder({16, 12}, DataType::float32(), "A");
  Tensor w = placeholder({12, 20}, DataType::float32(), "W");
  Tensor bias = placeholder({20}, DataType::float32(), "bias");
  IterVar k = reduce_axis(12, "k");
  Tensor c = compute({16, 20}, [&](Var i, Var j) { return sum(a(i, k) * w(k, j), {k}, Expr(), bias(j)); }, "C");
  Schedule s = create_schedule({c});
  Tensor cl = s.cache_write(c);
  auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 4, 8);  // 8 does not divide 20
  s[cl].compute_at(s[c], jo);
  auto [ko, ki] = s[cl].split(s[cl].reduce_axis(0), 4);
  s[cl].reorder({ko, s[cl].axis(0), ki, s[cl].axis(1)});
  s[cl].vectorize(s[cl].axis(1));
  s[c].parallel(io);
  LoweredFunc f = check_lowering(s, {a, w, bias}, c);
  // The accumulator starts at the bias: the only add of the bias is its load into C.local.
  std::string code = to_string(f);
  CHECK(code.find("C.local[") != std::string::npos);
  CHECK(code.find("= bias[") != std::string::npos);
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

namespace {

// How many elements the lowered `f` stores to buffer `name` when it runs: each store also adds
// its lanes to a counter argument.
int64_t elements_stored(const LoweredFunc& f, const std::string& name) {
  class CountStores : public IRMutator {
   public:
    CountStores(std::string name, Buffer counter) : name_(std::move(name)), counter_(std::move(counter)) {}

   protected:
    Stmt mutate_node(const Store* op, const Stmt& self) override {
      if (op->buffer.name() != name_) return self;
      Expr count = load(counter_, make_zero(DataType::int32())) + make_int(op->value.type().lanes);
      return make_seq({self, make_store(counter_, make_zero(DataType::int32()), count)});
    }

   private:
    std::string name_;
    Buffer counter_;
  };
  Buffer counter("stores", DataType::int32(), MemoryScope::global());
  LoweredFunc counted = f;
  counted.body = CountStores(name, counter).mutate(f.body);
  counted.args.push_back({counter, {1}});
  std::vector<NDArray> arrays;
  for (const FuncArg& a : counted.args) arrays.push_back(NDArray::zeros(a.shape, a.buffer.dtype()));
  std::vector<NDArray*> pointers;
  for (NDArray& a : arrays) pointers.push_back(&a);
  run_lowered(counted, pointers);
  return arrays.back().data_as<int32_t>()[0];
}

// B = 2A read through a window of 3 rows of stride `stride` by the 32 / stride rows of C, split
// into tiles of 4 rows.
struct Window {
  explicit Window(int64_t stride)
      : a(placeholder({(32 / stride - 1) * stride + 3, 16}, DataType::float32(), "A")),
        b(compute(a.shape(), [&](Var i, Var j) { return a(i, j) * 2.0; }, "B")),
        c(compute({32 / stride, 16},
                  [&](Var i, Var j) {
                    Expr row = i * make_int(stride);
                    return b(row, j) + b(row + 1, j) + b(row + 2, j);
                  },
                  "C")),
        s(create_schedule({c})) {
    std::tie(tiles, rows) = s[c].split(s[c].axis(0), 4);
    s[b].compute_at(s[c], rows);
  }
  Tensor a, b, c;
  Schedule s;
  IterVar tiles, rows;
};

}  // namespace

TEST_CASE("store_at: a producer under a window slides down the rows, each computed once, in a ring", "[lower]") {
  for (int64_t stride : {1, 2}) {
    INFO("stride " << stride);
    Window w(stride);
    int64_t out_rows = w.c.shape()[0], tiles = out_rows / 4;
    // At C's row loop alone, B computes the 3 rows under the window for every output row.
    CHECK(elements_stored(lower(w.s, {w.a, w.c}, "f"), "B") == out_rows * 3 * 16);
    w.s[w.b].store_at(w.s[w.c], w.tiles);
    CHECK(realize_extents(schedule_to_loops(w.s, {w.a, w.c}))["B"] == std::vector<int64_t>{4, 16});
    LoweredFunc f = check_lowering(w.s, {w.a}, w.c);
    // Stored at the tiles: the 3 rows of each tile's first output row, then the rows the
    // window moves on by (stride) per further output row.
    CHECK(elements_stored(f, "B") == (tiles * 3 + (out_rows - tiles) * stride) * 16);
  }
}

TEST_CASE("store_at: a region that does not move is computed once per iteration of the storage loop", "[lower]") {
  Tensor a = placeholder({12, 16}, DataType::float32(), "A");
  Tensor b = compute({16}, [&](Var j) { return a(0, j) * 2.0; }, "B");
  Tensor c = compute({12, 16}, [&](Var i, Var j) { return a(i, j) + b(j); }, "C");
  Schedule s = create_schedule({c});
  auto [tiles, rows] = s[c].split(s[c].axis(0), 4);
  s[b].compute_at(s[c], rows);
  s[b].store_at(s[c], tiles);
  LoweredFunc f = check_lowering(s, {a}, c);
  CHECK(elements_stored(f, "B") == 3 * 16);
}

TEST_CASE("store_at: schedules a sliding window cannot run are user errors", "[lower][errors]") {
  SECTION("before compute_at, or at a loop not directly outside the compute loop") {
    Window w(1);
    Schedule fresh = create_schedule({w.c});
    require_user_error([&] { fresh[w.b].store_at(fresh[w.c], fresh[w.c].axis(0)); }, {"call compute_at", "first"});
    auto [tiles, rows] = w.s[w.c].split(w.tiles, 2);
    require_user_error([&] { w.s[w.b].store_at(w.s[w.c], tiles); }, {"not directly outside loop"});
  }
  SECTION("loops changed after store_at") {
    Window w(1);
    w.s[w.b].store_at(w.s[w.c], w.tiles);
    w.s[w.c].reorder({w.s[w.c].axis(1), w.tiles});
    require_user_error([&] { lower(w.s, {w.a, w.c}, "f"); }, {"no longer directly outside", "store_at again"});
  }
  SECTION("a parallel compute loop") {
    Window w(1);
    w.s[w.b].store_at(w.s[w.c], w.tiles);
    w.s[w.c].parallel(w.rows);
    require_user_error([&] { lower(w.s, {w.a, w.c}, "f"); }, {"iterations in order"});
  }
  SECTION("a region that moves backwards") {
    Tensor a = placeholder({16, 8}, DataType::float32(), "A");
    Tensor b = compute({16, 8}, [&](Var i, Var j) { return a(i, j) * 2.0; }, "B");
    Tensor c = compute({16, 8}, [&](Var i, Var j) { return b(make_int(15) - i, j); }, "C");
    Schedule s = create_schedule({c});
    auto [tiles, rows] = s[c].split(s[c].axis(0), 4);
    s[b].compute_at(s[c], rows);
    s[b].store_at(s[c], tiles);
    require_user_error([&] { lower(s, {a, c}, "f"); }, {"may move backwards"});
  }
}
