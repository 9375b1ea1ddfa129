// Differential test of the whole compiler: many random legal schedules (random split factors,
// including non-dividing ones, reorders, fuses, vectorize/unroll/parallel, compute_at/inline,
// store_at, cache_write) applied to GEMM, conv2d, depthwise conv2d and pooling, lowered, compiled
// with both back ends and compared element by element with the reference interpreter. A store_at
// whose window lowering cannot prove to slide (a region moving along two axes, or through a
// modulo) may be refused, with a store_at error; every other schedule must run. A schedule found
// wrong once is written out at the end, so it stays checked whatever the generator draws.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <random>
#include <sstream>

#include "backends/backend.h"
#include "ir/printer.h"
#include "ir/te_interpreter.h"
#include "ops/conv2d_nchw.h"
#include "ops/depthwise_conv2d.h"
#include "ops/pool.h"
#include "passes/lower/lower.h"
#include "support/error.h"
#include "support/registry.h"

using namespace tessel;

namespace {

struct Workload {
  std::string name;
  std::vector<Tensor> inputs;
  Tensor output;
};

Workload plain_gemm() {
  Tensor a = placeholder({13, 9}, DataType::float32(), "A");
  Tensor b = placeholder({9, 17}, DataType::float32(), "B");
  IterVar k = reduce_axis(9, "k");
  Tensor c = compute({13, 17}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
  Tensor d = compute({13, 17}, [&](Var i, Var j) { return max(c(i, j), 0.0); }, "D");
  return {"gemm+relu", {a, b}, d};
}

Workload conv2d() {
  Tensor x = placeholder({1, 3, 9, 9}, DataType::float32(), "X");
  Tensor w = placeholder({4, 3, 3, 3}, DataType::float32(), "W");
  ops::Conv2dParams p;
  p.stride = {2, 2};
  p.padding = {1, 1};
  return {"conv2d", {x, w}, ops::conv2d_nchw(x, w, p)};
}

Workload depthwise() {
  Tensor x = placeholder({1, 4, 8, 8}, DataType::float32(), "X");
  Tensor w = placeholder({4, 1, 3, 3}, DataType::float32(), "W");
  ops::Conv2dParams p;
  p.padding = {1, 1};
  return {"depthwise", {x, w}, ops::depthwise_conv2d_nchw(x, w, p)};
}

Workload pooling() {
  Tensor x = placeholder({1, 3, 8, 8}, DataType::float32(), "X");
  ops::Conv2dParams p;
  p.stride = {2, 2};
  p.padding = {1, 1};
  return {"max_pool", {x}, ops::max_pool2d(x, {3, 3}, p)};
}

int64_t extent_of(const IterVar& iv) { return *as_const_int(iv->dom.extent); }

// Applies random legal primitives and records what it did, so a failure can be reproduced.
class RandomScheduler {
 public:
  explicit RandomScheduler(uint32_t seed) : rng_(seed) {}
  std::ostringstream log;
  bool stored_at = false;  // a producer is stored outside its compute loop

  Schedule make(const Workload& w) {
    Schedule s = create_schedule({w.output});
    if (chance(0.3) && !s[w.output]->op->is_placeholder()) {
      Tensor local = s.cache_write(w.output);
      shape_loops(s[w.output]);
      place_at_random_loop(s[local], s[w.output]);
      shape_loops(s[local]);
      log << "cache_write; ";
    } else {
      shape_loops(s[w.output]);
    }
    // Consumers first, so each producer knows whether its reader stays a loop nest it can join.
    const auto& stages = s.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
      Stage st = *it;
      if (st->op->is_placeholder() || st->is_output || st->attach != AttachKind::Root) continue;
      Stage reader = first_reader(s, st);
      bool reader_inlined = reader->attach == AttachKind::Inline;
      if (!st->op->is_reduction() && chance(0.4)) {
        st.compute_inline();
        log << "inline " << st.name() << "; ";
      } else if (!reader_inlined && chance(0.5)) {
        place_at_random_loop(st, reader);
        if (chance(0.5)) store_outside(st, reader);
        shape_loops(st);
      } else {
        shape_loops(st);
      }
    }
    return s;
  }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t pick(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  static Stage first_reader(const Schedule& s, const Stage& producer) {
    for (const Stage& stage : s.stages())
      for (const Tensor& in : input_tensors(stage->op))
        if (in.get() == producer->op.get()) return stage;
    FAIL("no stage reads " << producer.name());
    return producer;
  }

  void place_at_random_loop(Stage producer, Stage consumer) {
    const auto& leaves = consumer->leaf_axes;
    const IterVar& axis = leaves[pick(0, static_cast<int64_t>(leaves.size()) - 1)];
    producer.compute_at(consumer, axis);
    log << "compute_at " << producer.name() << " " << consumer.name() << "." << axis.name() << "; ";
  }

  // store_at the loop outside the one `producer` is computed at, where that one runs in order.
  void store_outside(Stage producer, Stage consumer) {
    const auto& leaves = consumer->leaf_axes;
    auto at = std::find_if(leaves.begin(), leaves.end(),
                           [&](const IterVar& l) { return l.same_as(producer->attach_axis); });
    if (at == leaves.begin()) return;
    ForKind kind = consumer->for_kind(*at);
    if (kind != ForKind::Serial && kind != ForKind::Unrolled) return;
    producer.store_at(consumer, *(at - 1));
    stored_at = true;
    log << "store_at " << producer.name() << " " << consumer.name() << "." << (at - 1)->name() << "; ";
  }

  // Random splits, a shuffle, maybe a fuse, and annotations on one stage.
  void shape_loops(Stage st) {
    for (int n = static_cast<int>(pick(0, 3)); n > 0; --n) {
      const auto& leaves = st->leaf_axes;
      IterVar axis = leaves[pick(0, static_cast<int64_t>(leaves.size()) - 1)];
      int64_t factor = pick(1, extent_of(axis) + 2);
      st.split(axis, factor);
      log << "split " << st.name() << "." << axis.name() << " by " << factor << "; ";
    }
    std::vector<IterVar> order = st->leaf_axes;
    std::shuffle(order.begin(), order.end(), rng_);
    st.reorder(order);
    log << "reorder " << st.name() << "; ";
    fuse_maybe(st);
    annotate(st);
  }

  void fuse_maybe(Stage st) {
    const auto& leaves = st->leaf_axes;
    if (leaves.size() < 2 || !chance(0.3)) return;
    size_t i = static_cast<size_t>(pick(0, static_cast<int64_t>(leaves.size()) - 2));
    if (leaves[i]->kind != leaves[i + 1]->kind) return;
    st.fuse(leaves[i], leaves[i + 1]);
    log << "fuse " << st.name() << " at " << i << "; ";
  }

  void annotate(Stage st) {
    const auto& leaves = st->leaf_axes;
    const IterVar inner = leaves.back();
    if (!inner.is_reduce() && extent_of(inner) <= 16 && chance(0.5)) {
      st.vectorize(inner);
      log << "vectorize " << inner.name() << "; ";
    }
    const IterVar outer = leaves.front();
    if (!outer.is_reduce() && !outer.same_as(inner) && chance(0.4)) {
      st.parallel(outer);
      log << "parallel " << outer.name() << "; ";
    }
    if (leaves.size() >= 3 && chance(0.4)) {
      const IterVar& mid = leaves[leaves.size() - 2];
      if (extent_of(mid) <= 8 && !st->for_kinds.count(mid.get())) {
        st.unroll(mid);
        log << "unroll " << mid.name() << "; ";
      }
    }
  }

  std::mt19937 rng_;
};

enum class Outcome { Ran, RanSliding, RefusedSliding };

// Runs one random schedule of `w` on `backend` and compares with the interpreter.
Outcome check_random_schedule(const Workload& w, uint32_t seed, const Backend& backend) {
  RandomScheduler scheduler(seed);
  Schedule s = scheduler.make(w);
  std::vector<Tensor> args = w.inputs;
  args.push_back(w.output);
  INFO(w.name << " seed " << seed << " on " << backend.name() << ": " << scheduler.log.str());
  LoweredFunc func;
  try {
    func = lower(s, args, "random_" + std::to_string(seed));
  } catch (const UserError& e) {
    if (scheduler.stored_at && std::string(e.what()).find("store_at: the region") != std::string::npos)
      return Outcome::RefusedSliding;
    FAIL_CHECK("lowering failed: " << e.what());
    return Outcome::Ran;
  } catch (const std::exception& e) {
    FAIL_CHECK("lowering failed: " << e.what());
    return Outcome::Ran;
  }
  INFO(to_string(func));

  std::vector<std::pair<Tensor, NDArray>> values;
  std::vector<NDArray> arrays;
  for (size_t i = 0; i < w.inputs.size(); ++i) {
    arrays.push_back(NDArray::random_uniform(w.inputs[i].shape(), DataType::float32(), seed * 7 + i));
    values.emplace_back(w.inputs[i], arrays.back());
  }
  NDArray expected = evaluate(w.output, values);
  arrays.push_back(NDArray::zeros(w.output.shape(), DataType::float32()));
  std::vector<NDArray*> pointers;
  for (NDArray& a : arrays) pointers.push_back(&a);
  backend.compile(func)->run(pointers);
  CHECK(max_abs_diff(arrays.back(), expected) < 1e-4);
  return scheduler.stored_at ? Outcome::RanSliding : Outcome::Ran;
}

}  // namespace

TEST_CASE("random legal schedules compute what the tensor expression says", "[integration][random]") {
  auto llvm = Registry<Backend>::instance().create("llvm_cpu");
  auto c_source = Registry<Backend>::instance().create("c_source");
  int sliding = 0, refused = 0;
  for (const Workload& w : {plain_gemm(), conv2d(), depthwise(), pooling()}) {
    for (uint32_t seed = 1; seed <= 30; ++seed) {
      Outcome outcome = check_random_schedule(w, seed, *llvm);
      sliding += outcome == Outcome::RanSliding;
      refused += outcome == Outcome::RefusedSliding;
    }
    // The C back end shells out to the compiler, so it gets fewer (slower) cases.
    for (uint32_t seed = 101; seed <= 104; ++seed) check_random_schedule(w, seed, *c_source);
  }
  std::cout << "random schedules with store_at: " << sliding << " ran, " << refused << " refused\n";
  CHECK(sliding >= 5);
}

namespace {

IterVar leaf_named(const Stage& st, const std::string& name) {
  for (const IterVar& leaf : st->leaf_axes)
    if (leaf.name() == name) return leaf;
  FAIL("stage " << st.name() << " has no loop " << name);
  return IterVar();
}

}  // namespace

// Seed 82 of the generator (past the seeds the loop above draws), written out: LLVM 14's loop
// vectorizer turned the row loop of the local tile (three unrolled taps accumulating into each
// element) into interleaved groups that read elements before their update in the same iteration
// (backends/llvm_cpu/optimize.cpp).
TEST_CASE("a depthwise schedule LLVM's interleaved groups miscompiled computes its values", "[integration][random]") {
  Workload w = depthwise();
  Schedule s = create_schedule({w.output});
  Tensor local = s.cache_write(w.output);
  Stage out = s[w.output], tile = s[local];
  auto [jo, ji] = out.split(out.axis(1), 4);
  auto [ko, ki] = out.split(out.axis(2), 8);
  out.reorder({out.axis(0), out.axis(3), jo, ki, ji, ko});
  out.vectorize(ko);
  tile.compute_at(out, out.axis(0));
  auto [lo, li] = tile.split(leaf_named(tile, "l"), 6);
  auto [lio, lii] = tile.split(li, 5);
  IterVar rx = leaf_named(tile, "rx");
  tile.reorder({leaf_named(tile, "i"), leaf_named(tile, "j"), leaf_named(tile, "ry"), leaf_named(tile, "k"), lio, lii,
                rx, lo});
  tile.parallel(leaf_named(tile, "i"));
  tile.unroll(rx);
  for (Stage st : s.stages())
    if (st.name() == "depthwise_conv2d_nchw.pad") st.compute_inline();
  std::vector<Tensor> args = w.inputs;
  args.push_back(w.output);
  LoweredFunc func = lower(s, args, "interleaved_groups");
  INFO(to_string(func));
  NDArray x = NDArray::random_uniform(w.inputs[0].shape(), DataType::float32(), 1);
  NDArray weights = NDArray::random_uniform(w.inputs[1].shape(), DataType::float32(), 2);
  NDArray expected = evaluate(w.output, {{w.inputs[0], x}, {w.inputs[1], weights}});
  NDArray result = NDArray::zeros(w.output.shape(), DataType::float32());
  Registry<Backend>::instance().create("llvm_cpu")->compile(func)->run({&x, &weights, &result});
  CHECK(max_abs_diff(result, expected) < 1e-4);
}
