// The loop-level passes on hand-built loop programs: each result must compute exactly what its
// input computes (run both in the loop interpreter), and have the shape the pass promises.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "passes/arith/simplify.h"
#include "passes/lower/loop_interpreter.h"
#include "passes/lower/partition_loops.h"
#include "passes/lower/serialize_nested_parallel.h"
#include "passes/lower/unroll.h"
#include "passes/lower/vectorize.h"

using namespace tessel;

namespace {

constexpr int64_t kSize = 72;  // above the unroll limit

struct Program {
  Buffer in{"in", DataType::float32(), MemoryScope::global()};
  Buffer out{"out", DataType::float32(), MemoryScope::global()};

  LoweredFunc func(Stmt body) const { return {"f", {{in, {kSize}}, {out, {kSize}}}, std::move(body)}; }

  // Runs both programs on the same input and checks they write the same output.
  void check_same(const Stmt& before, const Stmt& after) const {
    INFO("before:\n" << before << "\nafter:\n" << after);
    NDArray input = NDArray::random_uniform({kSize}, DataType::float32(), 5);
    NDArray expected = NDArray::zeros({kSize}, DataType::float32());
    NDArray got = NDArray::zeros({kSize}, DataType::float32());
    run_lowered(func(before), {&input, &expected});
    run_lowered(func(after), {&input, &got});
    CHECK(max_abs_diff(expected, got) == 0);
  }
};

std::string text(const Stmt& s) { return to_string(s); }

}  // namespace

TEST_CASE("vectorize: ramps for strided access, serial loops for what lanes cannot express", "[lower]") {
  Program p;
  Var i("i"), k("k");
  Stmt strided = make_for(i, 0, 16, ForKind::Vectorized, make_store(p.out, i * 2 + 1, load(p.in, i) * 2.0));
  Stmt v = vectorize_loops(strided);
  p.check_same(strided, v);
  CHECK(text(v).find("ramp(1, 2, 16)") != std::string::npos);

  Stmt colliding =
      make_for(i, 0, 16, ForKind::Vectorized, make_store(p.out, i / 2, load(p.out, i / 2) + load(p.in, i)));
  Stmt c = vectorize_loops(colliding);
  p.check_same(colliding, c);
  CHECK(text(c).find("ramp") == std::string::npos);

  Stmt nested =
      make_for(i, 0, 8, ForKind::Vectorized,
               make_for(k, 0, 4, ForKind::Serial, make_store(p.out, i, load(p.out, i) + load(p.in, k * 8 + i))));
  Stmt n = vectorize_loops(nested);
  p.check_same(nested, n);
  CHECK(text(n).find("for (k, 0, 4)") != std::string::npos);
  CHECK(text(n).find("ramp(0, 1, 8)") != std::string::npos);

  Stmt per_lane_guard = make_for(i, 0, 16, ForKind::Vectorized, make_if(i < 5, make_store(p.out, i, load(p.in, i))));
  Stmt g = vectorize_loops(per_lane_guard);
  p.check_same(per_lane_guard, g);
  CHECK(text(g).find("ramp") == std::string::npos);
}

TEST_CASE("vectorize: a vector beyond one register whose lanes are no power of two runs in pieces", "[lower]") {
  Program p;
  Var i("i");
  Stmt wide = make_for(i, 0, 24, ForKind::Vectorized, make_store(p.out, i + 3, load(p.in, i * 2) + 1.0));
  Stmt w = vectorize_loops(wide, 512);  // 24 floats on 512-bit registers: 16 + 8
  p.check_same(wide, w);
  CHECK(text(w).find("ramp(3, 1, 16)") != std::string::npos);
  CHECK(text(w).find("ramp(19, 1, 8)") != std::string::npos);
  CHECK(text(w).find(", 24)") == std::string::npos);
  CHECK(text(vectorize_loops(wide)).find("ramp(3, 1, 24)") != std::string::npos);  // no register width: one

  Stmt twelve = make_for(i, 0, 12, ForKind::Vectorized, make_store(p.out, i, load(p.out, i) + load(p.in, i)));
  CHECK(text(vectorize_loops(twelve, 512)).find("ramp(0, 1, 12)") != std::string::npos);  // fits one register
  Stmt t = vectorize_loops(twelve, 256);
  p.check_same(twelve, t);
  CHECK(text(t).find("ramp(0, 1, 8)") != std::string::npos);
  CHECK(text(t).find("ramp(8, 1, 4)") != std::string::npos);

  Stmt eleven = make_for(i, 0, 11, ForKind::Vectorized, make_store(p.out, i, load(p.in, i) * 2.0));
  Stmt e = vectorize_loops(eleven, 256);  // 8 + 2 + 1, the last a scalar copy
  p.check_same(eleven, e);
  CHECK(text(e).find("ramp(8, 1, 2)") != std::string::npos);
  CHECK(text(e).find("out[10]") != std::string::npos);

  // a piece that cannot be vectorized leaves the whole loop serial
  Stmt colliding = make_for(i, 0, 12, ForKind::Vectorized, make_store(p.out, i / 2, load(p.in, i)));
  Stmt c = vectorize_loops(colliding, 256);
  p.check_same(colliding, c);
  CHECK(text(c).find("for (i, 0, 12)") != std::string::npos);
}

TEST_CASE("partition_loops: the guard of a ragged edge leaves the main iterations", "[lower]") {
  Program p;
  Var jo("jo"), ji("ji");
  Stmt store = make_store(p.out, jo * 16 + ji, load(p.in, jo * 16 + ji) + 1.0);
  Stmt guarded =
      make_for(jo, 0, 3, ForKind::Serial, make_for(ji, 0, 16, ForKind::Vectorized, make_if(jo * 16 + ji < 40, store)));
  Stmt partitioned = simplify(partition_loops(guarded));
  p.check_same(guarded, partitioned);
  INFO(partitioned);
  CHECK(text(partitioned).find("for (jo, 0, 2)") != std::string::npos);
  CHECK(text(partitioned).find("vectorized (ji, 0, 8)") != std::string::npos);  // the tail loop, shortened
  Stmt vectorized = vectorize_loops(partitioned);
  p.check_same(guarded, vectorized);
  CHECK(text(vectorized).find("ramp(jo*16, 1, 16)") != std::string::npos);
}

TEST_CASE("partition_loops: a guard of outer variables switches the outermost loop it is invariant in", "[lower]") {
  // A pixel tile's ragged last rows: tile f % 6 of 3 unrolled rows k, 16 rows in all, guarded
  // inside a reduction loop r that the guard does not depend on. The whole r loop gets a guard-free
  // copy for full tiles (f % 6 * 3 + 2 < 16), rather than leaving LLVM to unswitch it.
  Program p;
  Var f("f"), r("r"), k("k");
  Expr at = f * 3 + k;
  Stmt store = make_store(p.out, at, load(p.out, at) + load(p.in, at));
  auto tiles = [&](ForKind rows) {
    return make_for(f, 0, 24, ForKind::Parallel,
                    make_for(r, 0, 4, ForKind::Serial, make_for(k, 0, 3, rows, make_if(f % 6 * 3 + k < 16, store))));
  };
  Stmt guarded = tiles(ForKind::Unrolled);
  Stmt partitioned = simplify(partition_loops(guarded));
  p.check_same(guarded, partitioned);
  INFO(partitioned);
  REQUIRE(partitioned.as<For>());
  auto* full = partitioned.as<For>()->body.as<IfThenElse>();
  REQUIRE(full);
  CHECK(text(full->then_case).find("for (r, 0, 4)") != std::string::npos);
  CHECK(text(full->then_case).find("if (") == std::string::npos);
  CHECK(text(full->else_case).find("if (") != std::string::npos);
  // Rows in a serial loop of their own: that loop is cut (at a row that depends on f), not r's.
  Stmt rows_loop = simplify(partition_loops(tiles(ForKind::Serial)));
  p.check_same(tiles(ForKind::Serial), rows_loop);
  INFO(rows_loop);
  REQUIRE(rows_loop.as<For>());
  CHECK(rows_loop.as<For>()->body.as<For>());
}

TEST_CASE("unroll and nested parallel loops", "[lower]") {
  Program p;
  Var i("i"), j("j");
  Stmt body = make_store(p.out, i * 8 + j, load(p.in, j * 8 + i));
  Stmt loops = make_for(i, 0, 8, ForKind::Parallel, make_for(j, 0, 8, ForKind::Unrolled, body));
  Stmt unrolled = simplify(unroll_loops(loops));
  p.check_same(loops, unrolled);
  CHECK(text(unrolled).find("for (j") == std::string::npos);
  CHECK(text(unrolled).find("in[i + 56]") != std::string::npos);

  Stmt long_loop = make_for(i, 0, kSize, ForKind::Unrolled, make_store(p.out, i, load(p.in, i)));
  CHECK(text(unroll_loops(make_seq({long_loop, long_loop}))).find("for (i, 0, 72)") != std::string::npos);

  Stmt nested = make_for(i, 0, 8, ForKind::Parallel, make_for(j, 0, 8, ForKind::Parallel, body));
  Stmt one_level = serialize_nested_parallel(nested);
  p.check_same(nested, one_level);
  CHECK(text(one_level).find("parallel (i") != std::string::npos);
  CHECK(text(one_level).find("parallel (j") == std::string::npos);
}
