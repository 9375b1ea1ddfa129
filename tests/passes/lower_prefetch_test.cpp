// Stage::prefetch: each iteration of the loop first hints the cache lines of the tensor that the
// iteration `offset` later reads (passes/lower/prefetch.h). The hints show in the lowered code at
// the right addresses, in contiguous runs of 64-byte lines, and change no result on any executor.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "tests/integration/executors.h"
#include "tests/passes/lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// The printed prefetch statements (calls of `intrinsic`) of a lowered function, in order.
std::vector<std::string> prefetches(const LoweredFunc& f, const std::string& intrinsic = "prefetch") {
  std::vector<std::string> found;
  std::string text = to_string(f), call = intrinsic + "(&";
  for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1))
    if (at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1])) && text[at - 1] != '_')
      found.push_back(text.substr(at, text.find('\n', at) - at));
  return found;
}

// Every executor computes the tensor expression's value of `out`.
void require_same_results(const LoweredFunc& f, const Tensor& in, const Tensor& out) {
  NDArray x = NDArray::random_uniform(in.shape(), in.dtype(), 7);
  require_same_everywhere(f, {x}, {evaluate(out, {{in, x}})});
}

}  // namespace

TEST_CASE("prefetch: each step of a split reduction hints the line two steps later", "[lower][prefetch]") {
  Tensor a = placeholder({64, 48}, DataType::float32(), "A");
  IterVar k = reduce_axis(48, "k");
  Tensor rows = compute({64}, [&](Var i) { return sum(a(i, k), {k}); }, "Rows");
  Schedule s = create_schedule({rows});
  auto [ko, ki] = s[rows].split(k, 16);
  s[rows].prefetch(a, ko, 2);
  LoweredFunc f = check_lowering(s, {a}, rows);
  INFO(to_string(f));
  // 16 floats, one line per step, 32 floats (2 steps) ahead; past the row's end it is the next row's
  CHECK(prefetches(f) == std::vector<std::string>{"prefetch(&A[i*48 + k.outer*16 + 32])"});
  require_same_results(f, a, rows);
}

TEST_CASE("prefetch: dimensions read whole merge into one run of lines", "[lower][prefetch]") {
  Tensor w = placeholder({8, 4, 16}, DataType::float32(), "W");
  IterVar k = reduce_axis(4, "k"), c = reduce_axis(16, "c");
  Tensor out = compute({8}, [&](Var i) { return sum(w(i, k, c), {k, c}); }, "Out");
  Schedule s = create_schedule({out});
  s[out].prefetch(w, s[out].axis(0), 1);
  LoweredFunc f = check_lowering(s, {w}, out);
  INFO(to_string(f));
  // the next i's 64 floats: 4 lines
  CHECK(prefetches(f) == std::vector<std::string>{"prefetch(&W[i*64 + 64])", "prefetch(&W[i*64 + 80])",
                                                  "prefetch(&W[i*64 + 96])", "prefetch(&W[i*64 + 112])"});
  require_same_results(f, w, out);
}

TEST_CASE("prefetch: a region with gaps is prefetched run by run", "[lower][prefetch]") {
  Tensor x = placeholder({4, 8, 32}, DataType::float32(), "X");
  IterVar j = reduce_axis(8, "j"), c = reduce_axis(8, "c");
  Tensor out = compute({4}, [&](Var i) { return sum(x(i, j, c), {j, c}); }, "Out");  // 8 of each row's 32
  Schedule s = create_schedule({out});
  s[out].prefetch(x, s[out].axis(0), 1);
  LoweredFunc f = check_lowering(s, {x}, out);
  std::vector<std::string> found = prefetches(f);
  INFO(to_string(f));
  REQUIRE(found.size() == 8);  // one line per run of 8 floats, 8 runs 32 floats apart
  CHECK(found.front() == "prefetch(&X[i*256 + 256])");
  CHECK(found.back() == "prefetch(&X[i*256 + 480])");
  require_same_results(f, x, out);
}

TEST_CASE("prefetch: bad requests name the stage, the tensor and the rule", "[lower][prefetch][errors]") {
  Tensor a = placeholder({64, 48}, DataType::float32(), "A");
  Tensor b = placeholder({64}, DataType::float32(), "B");
  IterVar k = reduce_axis(48, "k");
  Tensor rows = compute({64}, [&](Var i) { return sum(a(i, k), {k}); }, "Rows");
  Tensor doubled = compute({64}, [&](Var i) { return b(i) * 2.0; }, "Doubled");
  Schedule s = create_schedule({rows, doubled});
  require_user_error([&] { s[rows].prefetch(a, k, 0); }, {"prefetch", "'A'", "'Rows'", "at least 1"});
  auto [ko, ki] = s[rows].split(k, 16);
  require_user_error([&] { s[rows].prefetch(a, k, 1); }, {"prefetch", "'k'", "'Rows'"});  // not a leaf
  s[rows].prefetch(b, ko, 1);
  require_user_error([&] { lower(s, {a, b, rows, doubled}, "f"); },
                     {"prefetch of 'B'", "'k.outer'", "does not read it"});
}

// Stage::prefetch_whole: all of a tensor the stage does not read, an equal share at the top of
// each iteration of the outermost loop that leaves each share at most max_lines_per_step lines.
TEST_CASE("prefetch_whole: a tensor the stage does not read, spread over its rows", "[lower][prefetch]") {
  Tensor a = placeholder({16, 48}, DataType::float32(), "A");
  Tensor w = placeholder({4, 256}, DataType::float32(), "W");  // 4 KiB: 64 lines
  IterVar k = reduce_axis(48, "k");
  Tensor rows = compute({16}, [&](Var i) { return sum(a(i, k), {k}); }, "Rows");
  Schedule s = create_schedule({rows});
  s[rows].prefetch_whole(w, 4);  // 16 rows x 4 lines: the row loop, not the k loop inside it
  LoweredFunc f = check_lowering(s, {a, w}, rows);
  INFO(to_string(f));
  CHECK(prefetches(f) == std::vector<std::string>{});
  CHECK(prefetches(f, "prefetch_l2") == std::vector<std::string>{"prefetch_l2(&W[i*64])", "prefetch_l2(&W[i*64 + 16])",
                                                                  "prefetch_l2(&W[i*64 + 32])",
                                                                  "prefetch_l2(&W[i*64 + 48])"});
  // Steps of 64 lines: all of them once, before the row loop.
  Schedule once = create_schedule({rows});
  once[rows].prefetch_whole(w, 64);
  LoweredFunc g = check_lowering(once, {a, w}, rows);
  std::vector<std::string> found = prefetches(g, "prefetch_l2");
  INFO(to_string(g));
  REQUIRE(found.size() == 64);
  CHECK(found.front() == "prefetch_l2(&W[0])");
  CHECK(found.back() == "prefetch_l2(&W[1008])");
  CHECK(to_string(g).find("prefetch_l2(&W[0])") < to_string(g).find("for (i"));
}

TEST_CASE("prefetch_whole: a stage computed at another's loop counts the loops around it", "[lower][prefetch]") {
  Tensor a = placeholder({16, 48}, DataType::float32(), "A");
  Tensor w = placeholder({1000}, DataType::float32(), "W");  // 63 lines, the last one partly
  IterVar k = reduce_axis(48, "k");
  Tensor rows = compute({16}, [&](Var i) { return sum(a(i, k), {k}); }, "Rows");
  Tensor twice = compute({16}, [&](Var i) { return rows(i) * 2.0f; }, "Twice");
  Schedule s = create_schedule({twice});
  auto [outer, inner] = s[twice].split(s[twice].axis(0), 4);
  s[rows].compute_at(s[twice], outer);  // 4 rows per step of the 4 outer ones
  s[rows].prefetch_whole(w, 4);         // 16 rows in all, 4 lines each (the last share 3)
  LoweredFunc f = check_lowering(s, {a, w}, twice);
  INFO(to_string(f));
  std::vector<std::string> found = prefetches(f, "prefetch_l2");
  // 4 rows x 4 lines per outer step; the last share starts at line 59, not 60, to end at line 62
  CHECK(found == std::vector<std::string>{"prefetch_l2(&W[min(i.outer*16 + i*4, 59)*16])",
                                          "prefetch_l2(&W[min(i.outer*16 + i*4, 59)*16 + 16])",
                                          "prefetch_l2(&W[min(i.outer*16 + i*4, 59)*16 + 32])",
                                          "prefetch_l2(&W[min(i.outer*16 + i*4, 59)*16 + 48])"});
}

TEST_CASE("prefetch_whole: a lead starts every share that far ahead, the last ones at the end", "[lower][prefetch]") {
  Tensor a = placeholder({16, 48}, DataType::float32(), "A");
  Tensor w = placeholder({4, 256}, DataType::float32(), "W");  // 64 lines
  IterVar k = reduce_axis(48, "k");
  Tensor rows = compute({16}, [&](Var i) { return sum(a(i, k), {k}); }, "Rows");
  Schedule s = create_schedule({rows});
  s[rows].prefetch_whole(w, 4, 1024);  // 16 lines ahead: rows 12-15 all take the last share
  LoweredFunc f = check_lowering(s, {a, w}, rows);
  INFO(to_string(f));
  CHECK(prefetches(f, "prefetch_l2") == std::vector<std::string>{"prefetch_l2(&W[min(i*4 + 16, 60)*16])",
                                                                  "prefetch_l2(&W[min(i*4 + 16, 60)*16 + 16])",
                                                                  "prefetch_l2(&W[min(i*4 + 16, 60)*16 + 32])",
                                                                  "prefetch_l2(&W[min(i*4 + 16, 60)*16 + 48])"});
}

TEST_CASE("prefetch_whole: bad requests name the stage and the tensor", "[lower][prefetch][errors]") {
  Tensor a = placeholder({16}, DataType::float32(), "A");
  Tensor w = placeholder({64}, DataType::float32(), "W");
  Tensor doubled = compute({16}, [&](Var i) { return a(i) * 2.0f; }, "Doubled");
  Schedule s = create_schedule({doubled});
  require_user_error([&] { s[doubled].prefetch_whole(w, 0); }, {"prefetch_whole", "'W'", "'Doubled'", "at least 1"});
  require_user_error([&] { s[doubled].prefetch_whole(w, 4, -64); }, {"prefetch_whole", "-64 bytes", "'W'", "0 or more"});
}
