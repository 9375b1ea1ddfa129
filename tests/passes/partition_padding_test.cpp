// Loop partitioning of padded windows (passes/lower/partition_loops.h): a window that reads its
// input through a pad's bounds test and clamped index, as an inlined pad stage writes it. The
// partitioned program must compute what the original does (both run in the loop interpreter), and
// its interior must have lost the test and the clamp.
#include <catch2/catch.hpp>

#include "ir/equality.h"
#include "ir/printer.h"
#include "passes/arith/simplify.h"
#include "passes/lower/loop_interpreter.h"
#include "passes/lower/partition_loops.h"

using namespace tessel;

namespace {

constexpr int64_t kIn = 24;   // input elements
constexpr int64_t kOut = 48;  // output elements

struct Window {
  Buffer in{"in", DataType::float32(), MemoryScope::global()};
  Buffer out{"out", DataType::float32(), MemoryScope::global()};

  // out[o] += in[i] for the padded position i (zero outside [0, kIn)).
  Stmt accumulate(const Expr& o, const Expr& i) const {
    Expr inside = Expr(0) <= i && i < Expr(kIn);
    Expr read = select(inside, load(in, min(max(i, Expr(0)), Expr(kIn - 1))), Expr(0.0));
    return make_store(out, o, load(out, o) + read);
  }

  // partition_loops(window), simplified, after checking it computes what `window` does.
  Stmt partition(const Stmt& window) const {
    Stmt partitioned = simplify(partition_loops(window));
    check_same(window, partitioned);
    return partitioned;
  }

 private:
  void check_same(const Stmt& before, const Stmt& after) const {
    INFO("before:\n" << before << "\nafter:\n" << after);
    NDArray input = NDArray::random_uniform({kIn}, DataType::float32(), 3);
    NDArray expected = NDArray::zeros({kOut}, DataType::float32());
    NDArray got = NDArray::zeros({kOut}, DataType::float32());
    run_lowered(func(before), {&input, &expected});
    run_lowered(func(after), {&input, &got});
    CHECK(max_abs_diff(expected, got) == 0);
  }
  LoweredFunc func(Stmt body) const { return {"f", {{in, {kIn}}, {out, {kOut}}}, std::move(body)}; }
};

std::string text(const Stmt& s) { return to_string(s); }

// The statements of a sequence of `count` pieces.
std::vector<Stmt> pieces(const Stmt& s, size_t count) {
  INFO(s);
  auto* seq = s.as<Seq>();
  REQUIRE(seq);
  REQUIRE(seq->stmts.size() == count);
  return seq->stmts;
}

}  // namespace

TEST_CASE("partition_loops: a padded window splits into left border, interior and right border", "[lower]") {
  Window w;
  Var x("x"), r("r");
  Stmt window = make_for(x, 0, kIn, ForKind::Serial, make_for(r, 0, 3, ForKind::Serial, w.accumulate(x, x + r - 1)));
  std::vector<Stmt> parts = pieces(w.partition(window), 3);
  std::string interior = text(parts[1]);
  CHECK(interior.find("for (x, 1, 22)") != std::string::npos);
  CHECK(interior.find("select") == std::string::npos);
  CHECK(interior.find("max(") == std::string::npos);
  CHECK(interior.find("min(") == std::string::npos);
  CHECK(text(parts[0]).find("select") != std::string::npos);  // the borders keep the test
  CHECK(text(parts[2]).find("select") != std::string::npos);
}

TEST_CASE("partition_loops: a strided window only has a left border", "[lower]") {
  Window w;
  Var x("x"), r("r");
  Stmt window = make_for(x, 0, kIn / 2, ForKind::Serial,
                         make_for(r, 0, 3, ForKind::Serial, w.accumulate(x, x * 2 + r - 1)));
  CHECK(text(pieces(w.partition(window), 2)[1]).find("select") == std::string::npos);
}

TEST_CASE("partition_loops: a border decided by an outer variable becomes a branch", "[lower]") {
  // f runs over channel x row pairs; the row f % 12 is not linear in f, so the window loop r is
  // the one to split, at a point that depends on f: it gets a guard-free copy for interior rows.
  Window w;
  Var f("f"), r("r");
  Expr row = f % Expr(12);
  Stmt window = make_for(f, 0, 2 * 12, ForKind::Parallel,
                         make_for(r, 0, 3, ForKind::Serial, w.accumulate(f, row * 2 + r - 1)));
  Stmt partitioned = w.partition(window);
  INFO(partitioned);
  auto* loop = partitioned.as<For>();
  REQUIRE(loop);
  auto* branch = loop->body.as<IfThenElse>();
  REQUIRE(branch);
  CHECK(text(branch->then_case).find("select") == std::string::npos);
  CHECK(text(branch->then_case).find("for (r, 0, 3)") != std::string::npos);  // extents stay constant
  CHECK(text(branch->else_case).find("select") != std::string::npos);
}

TEST_CASE("partition_loops: guards it cannot reason about stay where they are", "[lower]") {
  Window w;
  Var x("x"), r("r");
  // The index is linear in neither x nor r, so no cut exists; and unrolled loops are not partitioned.
  Expr i = ((x + r) * (x + r)) % Expr(30) - 3;
  Stmt nonlinear = make_for(x, 0, kIn, ForKind::Serial, make_for(r, 0, 3, ForKind::Serial, w.accumulate(x, i)));
  CHECK(structural_equal(w.partition(nonlinear), simplify(nonlinear)));
  Stmt unrolled = make_for(x, 0, 4, ForKind::Unrolled, w.accumulate(x, x - 1));
  CHECK(text(simplify(partition_loops(unrolled))).find("unrolled (x, 0, 4)") != std::string::npos);
}

TEST_CASE("partition_loops: a parallel loop keeps its iterations together, borders in a branch", "[lower]") {
  // Two shares of 24 outputs, one per thread, each reading rows [12t - 1, 12t + 13): peeling share
  // 0 (the left border) would leave a parallel loop of one iteration per share, run one after
  // the other. The loop stays whole and its iterations branch: the border share to the guarded
  // body (whose window loops are split in turn), the other to the guard-free one. A long parallel
  // loop (rows) does the same, its two border rows inside the parallel loop.
  Window w;
  Var t("t"), x("x"), r("r");
  Expr o = t * Expr(12) + x;
  Stmt body = make_for(x, 0, 12, ForKind::Serial, make_for(r, 0, 3, ForKind::Serial, w.accumulate(o, o + r - 1)));
  Stmt shares = w.partition(make_for(t, 0, 2, ForKind::Parallel, body));
  INFO(shares);
  REQUIRE(shares.as<For>());
  CHECK(shares.as<For>()->kind == ForKind::Parallel);
  CHECK(text(shares).find("parallel (t, 0, 2)") != std::string::npos);
  REQUIRE(shares.as<For>()->body.as<IfThenElse>());  // share 1 past the left border, share 0 at it
  Stmt rows = make_for(x, 0, kIn, ForKind::Parallel, make_for(r, 0, 3, ForKind::Serial, w.accumulate(x, x + r - 1)));
  Stmt partitioned = w.partition(rows);
  INFO(partitioned);
  REQUIRE(partitioned.as<For>());
  CHECK(text(partitioned).find("parallel (x, 0, 24)") != std::string::npos);
  auto* row_branch = partitioned.as<For>()->body.as<IfThenElse>();
  REQUIRE(row_branch);
  CHECK(to_string(row_branch->cond).find("x") != std::string::npos);  // rows 1..22 in the main part
  CHECK(text(row_branch->then_case).find("select") == std::string::npos);
  CHECK(text(row_branch->else_case).find("select") != std::string::npos);
}
