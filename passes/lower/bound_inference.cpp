// Bound inference (see bound_inference.h). Stages are visited consumers first, so the ranges of
// every loop a producer's region depends on are known when the producer is reached.
#include "passes/lower/bound_inference.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/arith/interval.h"
#include "passes/arith/simplify.h"
#include "support/error.h"

namespace tessel {

namespace {

using arith::Interval;
using arith::VarIntervals;

const VarNode* var_of(const IterVar& iv) { return static_cast<const VarNode*>(iv.var().get()); }

void relax_leaves(const PlannedStage& s, const AxisRanges& ranges, int after_pos, VarIntervals& relax) {
  const auto& leaves = s.stage->leaf_axes;
  for (int p = after_pos + 1; p < static_cast<int>(leaves.size()); ++p)
    relax[var_of(leaves[p])] = {make_zero(DataType::int32()), make_int(const_extent(ranges, leaves[p]) - 1)};
}

// The loop variables that sweep while `producer` (computed at its parent's loop) stays live for
// one iteration: every loop of the consumer and of the stages it is nested in, up to the
// producer's attach point. Throws if the consumer runs outside that loop.
VarIntervals relaxed_loops(const PlannedStage& producer, const PlannedStage& consumer, const StageRanges& ranges) {
  VarIntervals relax;
  const PlannedStage* parent = producer.parent;
  const PlannedStage* cur = &consumer;
  while (cur != parent) {
    relax_leaves(*cur, ranges.at(cur->stage), -1, relax);
    if (!cur->parent || (cur->parent == parent && cur->attach_pos < producer.attach_pos))
      user_error("compute_at: '", producer.op.name(), "' is computed at loop '",
                 parent->stage->leaf_axes[producer.attach_pos].name(), "' of '", parent->op.name(), "', but '",
                 consumer.op.name(), "' also reads it outside that loop; compute '", producer.op.name(),
                 "' at a loop enclosing all its readers (or compute_root)");
    cur = cur->parent;
  }
  relax_leaves(*parent, ranges.at(parent->stage), producer.attach_pos, relax);
  return relax;
}

bool has_fused_loops(const StageNode& stage) {
  return std::any_of(stage.relations.begin(), stage.relations.end(),
                     [](const IterRelation& r) { return std::holds_alternative<FuseRelation>(r); });
}

// The consumer's reads of `op` with its root axes replaced by their loop-variable values. Where the
// consumer fused loops, an index is simplified before its interval is taken: a read at y * W + x
// of a stage whose y and x are one fused loop f (y = f / W, x = f % W) is a read at f, whose
// interval over a tile of f is the tile, where y and x taken apart would give whole rows
// (ops/conv2d_pixels.h).
std::vector<std::vector<Expr>> reads_in_loop_vars(const PlannedStage& consumer, const OperationNode* op,
                                                  const AxisRanges& consumer_ranges) {
  LeafMapping mapping = map_leaves_to_roots(*consumer.stage, consumer_ranges);
  bool fused = has_fused_loops(*consumer.stage);
  std::unordered_map<const VarNode*, Expr> roots;
  for (const IterVar& axis : consumer.op->axis) roots[var_of(axis)] = mapping.values.at(axis.get());
  for (const IterVar& axis : consumer.op->reduce_axis) roots[var_of(axis)] = mapping.values.at(axis.get());
  std::vector<std::vector<Expr>> reads;
  for (const TensorRead* read : tensor_reads(consumer.body)) {
    if (read->op.get() != op) continue;
    std::vector<Expr>& indices = reads.emplace_back();
    for (const Expr& index : read->indices) {
      Expr value = substitute(index, roots);
      indices.push_back(fused ? simplify(value) : value);
    }
  }
  return reads;
}

Interval join(const Interval& a, const Interval& b, bool first) {
  if (first) return b;
  if (!a.bounded() || !b.bounded()) return Interval{};
  return {simplify(min(a.min, b.min)), simplify(max(a.max, b.max))};
}

// An index with its clamps to constants removed: min(max(i, 0), H - 1) -> i, as a pad reads.
class Unclamped : public IRMutator {
 protected:
  Expr mutate_node(const Min* op, const Expr& self) override { return strip(op->a, op->b, self); }
  Expr mutate_node(const Max* op, const Expr& self) override { return strip(op->a, op->b, self); }

 private:
  Expr strip(const Expr& a, const Expr& b, const Expr& self) {
    if (as_const_int(b)) return mutate(a);
    if (as_const_int(a)) return mutate(b);
    return self;
  }
};

// The constant upper bound of an interval's extent, if it has one.
std::optional<int64_t> const_extent_bound(const Interval& i, const arith::VarBounds& loop_bounds) {
  if (!i.bounded()) return std::nullopt;
  arith::ConstBound e = arith::const_bound(simplify(i.max - i.min + 1), loop_bounds);
  return e.has_max() ? std::optional<int64_t>(e.max) : std::nullopt;
}

// The range a region covers, or the whole dimension when it is unbounded or no smaller. A clamped
// read (a pad's, min(max(i, 0), H - 1)) has an extent whose constant bound, once the clamps meet
// the loop variables, is the whole dimension; clamping to constants never widens a range, so the
// extent of the same read unclamped bounds it, and the stage's edge guards keep its loop inside
// the tensor.
Range region_range(const Interval& region, const Interval& unclamped, int64_t dim,
                   const arith::VarBounds& loop_bounds) {
  Range whole{make_zero(DataType::int32()), make_int(dim)};
  if (!region.bounded()) return whole;
  std::optional<int64_t> extent = const_extent_bound(region, loop_bounds);
  if (std::optional<int64_t> loose = const_extent_bound(unclamped, loop_bounds); loose && (!extent || *loose < *extent))
    extent = loose;
  if (!extent || *extent >= dim) return whole;
  return Range{region.min, make_int(std::max<int64_t>(*extent, 1))};
}

void infer_attached_region(const PlannedStage& s, const StageRanges& result, const arith::VarBounds& loop_bounds,
                           AxisRanges& ranges) {
  if (s.consumers.empty())
    user_error("compute_at: '", s.op.name(), "' is computed at '", s.parent->op.name(),
               "' but no computed stage reads it; compute it at one of its readers");
  int ndim = s.op.ndim();
  std::vector<Interval> region(ndim), unclamped(ndim);
  bool first = true;
  for (const PlannedStage* consumer : s.consumers) {
    VarIntervals relax = relaxed_loops(s, *consumer, result);
    for (const auto& indices : reads_in_loop_vars(*consumer, s.op.get(), result.at(consumer->stage))) {
      for (int d = 0; d < ndim; ++d) {
        region[d] = join(region[d], arith::eval_interval(indices[d], relax), first);
        unclamped[d] = join(unclamped[d], arith::eval_interval(Unclamped().mutate(indices[d]), relax), first);
      }
      first = false;
    }
  }
  for (int d = 0; d < ndim; ++d)
    ranges[s.op->axis[d].get()] = region_range(region[d], unclamped[d], s.op.shape()[d], loop_bounds);
}

}  // namespace

StageRanges infer_bounds(const StagePlan& plan) {
  StageRanges result;
  arith::VarBounds loop_bounds;  // every loop variable seen so far runs over [0, extent)
  const auto& stages = plan.stages();
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    const PlannedStage& s = *it;
    AxisRanges& ranges = result[s.stage];
    for (const IterVar& r : s.op->reduce_axis) ranges[r.get()] = r->dom;
    if (s.parent) {
      infer_attached_region(s, result, loop_bounds, ranges);
    } else {
      for (const IterVar& axis : s.op->axis) ranges[axis.get()] = axis->dom;
    }
    pass_down_ranges(*s.stage, ranges);
    for (const IterVar& leaf : s.stage->leaf_axes) loop_bounds[var_of(leaf)] = {0, const_extent(ranges, leaf) - 1};
  }
  return result;
}

}  // namespace tessel
