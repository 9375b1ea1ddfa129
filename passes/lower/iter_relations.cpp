// Split/fuse range and index propagation (see iter_relations.h). Relations are recorded in the
// order the primitives ran, so ranges flow down in that order and values flow up in reverse.
#include "passes/lower/iter_relations.h"

#include "passes/arith/simplify.h"
#include "support/error.h"

namespace tessel {

namespace {

// A nparts split divides the range it finds, which bound inference may have shrunk.
int64_t split_factor(const SplitRelation& r, int64_t parent_extent) {
  return r.nparts ? (parent_extent + r.nparts - 1) / r.nparts : r.factor;
}

Range from_zero(int64_t extent) { return Range{make_zero(DataType::int32()), make_int(extent)}; }

Expr plus_min(const Expr& value, const Expr& min) { return is_const_int(min, 0) ? value : simplify(value + min); }

}  // namespace

int64_t const_extent(const AxisRanges& ranges, const IterVar& axis) {
  auto it = ranges.find(axis.get());
  TESSEL_CHECK(it != ranges.end(), "no range for axis ", axis.name());
  const int64_t* e = as_const_int(it->second.extent);
  TESSEL_CHECK(e, "axis ", axis.name(), " has no constant extent");
  return *e;
}

void pass_down_ranges(const StageNode& stage, AxisRanges& ranges) {
  for (const IterRelation& relation : stage.relations) {
    if (auto* split = std::get_if<SplitRelation>(&relation)) {
      int64_t extent = const_extent(ranges, split->parent);
      int64_t factor = split_factor(*split, extent);
      int64_t inner = std::min(factor, extent);
      ranges[split->inner.get()] = from_zero(inner);
      ranges[split->outer.get()] = from_zero((extent + factor - 1) / factor);
    } else {
      const auto& fuse = std::get<FuseRelation>(relation);
      ranges[fuse.fused.get()] = from_zero(const_extent(ranges, fuse.outer) * const_extent(ranges, fuse.inner));
    }
  }
}

LeafMapping map_leaves_to_roots(const StageNode& stage, const AxisRanges& ranges) {
  LeafMapping m;
  for (const IterVar& leaf : stage.leaf_axes) m.values[leaf.get()] = plus_min(leaf.var(), ranges.at(leaf.get()).min);
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    if (auto* split = std::get_if<SplitRelation>(&*it)) {
      int64_t extent = const_extent(ranges, split->parent);
      int64_t factor = split_factor(*split, extent);
      Expr offset = simplify(m.values.at(split->outer.get()) * make_int(factor) + m.values.at(split->inner.get()));
      if (const_extent(ranges, split->outer) * std::min(factor, extent) > extent)
        m.guards.push_back(offset < make_int(extent));
      m.values[split->parent.get()] = plus_min(offset, ranges.at(split->parent.get()).min);
    } else {
      const auto& fuse = std::get<FuseRelation>(*it);
      Expr fused = m.values.at(fuse.fused.get());
      Expr inner_extent = make_int(const_extent(ranges, fuse.inner));
      m.values[fuse.outer.get()] = plus_min(simplify(fused / inner_extent), ranges.at(fuse.outer.get()).min);
      m.values[fuse.inner.get()] = plus_min(simplify(fused % inner_extent), ranges.at(fuse.inner.get()).min);
    }
  }
  return m;
}

}  // namespace tessel
