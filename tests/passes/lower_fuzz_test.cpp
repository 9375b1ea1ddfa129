// Random schedules of a small stencil-plus-reduction pipeline (splits with odd factors, fuses,
// reorders, loop annotations, inline/root/compute_at of the producer, cache_write of the output,
// cache_read of the input),
// each lowered, executed by the loop interpreter and compared with the tensor-expression
// interpreter.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <random>

#include "lower_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

class ScheduleFuzzer {
 public:
  explicit ScheduleFuzzer(uint32_t seed) : rng_(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A few random loop transformations and annotations on one stage.
  void transform(Stage s, std::string& log) {
    for (int step = pick(4); step > 0; --step) {
      auto& leaves = s->leaf_axes;
      IterVar leaf = leaves[pick(static_cast<int>(leaves.size()))];
      switch (pick(3)) {
        case 0: {
          int64_t factor = std::array<int64_t, 5>{2, 3, 4, 5, 8}[pick(5)];
          s.split(leaf, factor);
          log += " split(" + leaf.name() + "," + std::to_string(factor) + ")";
          break;
        }
        case 1: {
          size_t p = static_cast<size_t>(pick(static_cast<int>(leaves.size())));
          if (p + 1 < leaves.size() && leaves[p]->kind == leaves[p + 1]->kind) {
            log += " fuse(" + leaves[p].name() + ")";
            s.fuse(leaves[p], leaves[p + 1]);
          }
          break;
        }
        default: {
          std::vector<IterVar> order = leaves;
          std::shuffle(order.begin(), order.end(), rng_);
          s.reorder(order);
          log += " reorder";
        }
      }
    }
    annotate(s, log);
  }

  IterVar random_leaf(const Stage& s) { return s->leaf_axes[pick(static_cast<int>(s->leaf_axes.size()))]; }

 private:
  void annotate(Stage s, std::string& log) {
    IterVar leaf = random_leaf(s);
    if (leaf.is_reduce()) {
      if (pick(2)) {
        s.unroll(leaf);
        log += " unroll(" + leaf.name() + ")";
      }
      return;
    }
    switch (pick(4)) {
      case 0:
        s.vectorize(leaf);
        log += " vectorize(" + leaf.name() + ")";
        break;
      case 1:
        s.unroll(leaf);
        log += " unroll(" + leaf.name() + ")";
        break;
      case 2:
        s.parallel(leaf);
        log += " parallel(" + leaf.name() + ")";
        break;
      default: break;
    }
  }

  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("lower: random schedules compute what the tensor expression defines", "[lower][fuzz]") {
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    Tensor a = placeholder({14, 13}, DataType::float32(), "A");
    Tensor b = compute(
        {13, 11}, [&](Var i, Var j) { return a(i, j) + a(i + 1, j + 2) * 0.5; }, "B");
    IterVar r = reduce_axis(3, "r");
    Tensor c = compute(
        {12, 9}, [&](Var i, Var j) { return sum(b(i + 1, j + r.var()) * cast(DataType::float32(), r.var() + 1), {r}); },
        "C");
    ScheduleFuzzer fuzz(seed);
    std::string log;
    Schedule s = create_schedule({c});
    Tensor computed = c;
    if (fuzz.pick(3) == 0) {
      computed = s.cache_write(c);
      fuzz.transform(s[c], log);
      s[computed].compute_at(s[c], fuzz.random_leaf(s[c]));
      log += " cache_write";
    }
    bool read_cache = fuzz.pick(3) == 0;
    Tensor al = read_cache ? s.cache_read(a, {b}) : Tensor();
    fuzz.transform(s[computed], log);
    switch (fuzz.pick(3)) {
      case 0:
        s[b].compute_inline();
        log += " | B inline";
        break;
      case 1: log += " | B root"; break;
      default: {
        IterVar at = fuzz.random_leaf(s[computed]);
        s[b].compute_at(s[computed], at);
        log += " | B at " + at.name();
      }
    }
    bool b_inlined = s[b]->attach == AttachKind::Inline;
    if (!b_inlined) fuzz.transform(s[b], log);
    if (read_cache && fuzz.pick(2)) {
      Stage reader = b_inlined ? s[computed] : s[b];
      IterVar at = fuzz.random_leaf(reader);
      s[al].compute_at(reader, at);
      log += " | A.local at " + reader.name() + "." + at.name();
    }
    INFO("seed " << seed << ":" << log);
    check_lowering(s, {a}, c);
  }
}
