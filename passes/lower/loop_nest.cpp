// One stage's loop nest (see loop_nest.h). The nest is built from the innermost statement
// outwards; level p means "inside the loop at leaf position p", level -1 "outside every loop".
#include "passes/lower/loop_nest.h"

#include <algorithm>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/lower/prefetch.h"
#include "support/error.h"

namespace tessel {

namespace {

const VarNode* var_of(const IterVar& iv) { return static_cast<const VarNode*>(iv.var().get()); }

class ReduceFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void visit_node(const Reduce*) override { found = true; }
};

// The loop of `leaf` over `var` as scheduled: its kind, and for a bound loop its thread tag and
// the thread_extent (virtual_thread) attribute around it, then its pragmas around that.
Stmt make_leaf_loop(const StageNode& stage, const IterVar& leaf, const Var& var, const Expr& extent, Stmt body) {
  ForKind kind = stage.for_kind(leaf);
  std::string tag = kind == ForKind::ThreadBinding ? stage.thread_tags.at(leaf.get()) : "";
  Stmt loop = make_for(var, 0, extent, kind, std::move(body), tag);
  if (kind == ForKind::ThreadBinding)
    loop = make_attr(tag == kVirtualThreadTag ? attr::kVirtualThread : attr::kThreadExtent, tag, extent, loop);
  auto pragmas = stage.pragmas.find(leaf.get());
  if (pragmas == stage.pragmas.end()) return loop;
  for (auto p = pragmas->second.rbegin(); p != pragmas->second.rend(); ++p)
    loop = make_attr(attr::kPragmaPrefix + p->key, std::monostate{}, p->value, loop);
  return loop;
}

struct Guard {
  Expr cond;
  int level;              // the innermost loop it depends on
  bool uses_reduce_loop;  // so it does not apply to the reduction's init
};

class NestBuilder {
 public:
  NestBuilder(const PlannedStage& s, const AxisRanges& ranges, const AttachFn& attach, const SlidingWindow* window,
              std::vector<EnclosingLoop> enclosing)
      : s_(s),
        stage_(*s.stage),
        ranges_(ranges),
        attach_(attach),
        leaves_(stage_.leaf_axes),
        enclosing_count_(static_cast<int>(enclosing.size())) {
    auto first = std::find_if(leaves_.begin(), leaves_.end(), [](const IterVar& l) { return l.is_reduce(); });
    first_reduce_ = static_cast<int>(first - leaves_.begin());
    LeafMapping mapping = map_leaves_to_roots(stage_, ranges_);
    for (const IterVar& axis : s.op->axis) roots_[var_of(axis)] = mapping.values.at(axis.get());
    for (const IterVar& axis : s.op->reduce_axis) roots_[var_of(axis)] = mapping.values.at(axis.get());
    for (const Expr& g : mapping.guards) add_guard(g);
    if (s.parent) add_edge_guards();
    if (window) add_sliding_guard(*window);
    if (!stage_.whole_prefetches.empty()) spread_ = spread_loops(std::move(enclosing));
    for (const WholePrefetch& p : stage_.whole_prefetches) whole_.push_back(place(p));
  }

  Stmt build() {
    auto* reduce = s_.body.as<Reduce>();
    ReduceFinder nested;
    nested.visit(reduce ? reduce->source : s_.body);
    if (nested.found)
      user_error("compute '", s_.op.name(), "': a reduction must be the whole body of a compute, not part of it; ",
                 "split it into a separate compute");
    Stmt body = reduce ? update(*reduce) : make_provide(s_.op.ptr(), indices(), substitute(s_.body, roots_));
    for (int pos = static_cast<int>(leaves_.size()) - 1; pos >= -1; --pos) {
      if (reduce && pos + 1 == first_reduce_) body = make_seq({init(*reduce), body});
      body = guarded(body, pos);
      if (pos < 0) return with_prefetches(pos, body);
      body = attach_(pos, body);
      const IterVar& leaf = leaves_[pos];
      body = with_prefetches(pos, body);
      body = make_leaf_loop(stage_, leaf, leaf.var(), ranges_.at(leaf.get()).extent, body);
    }
    return body;
  }

 private:
  void add_guard(const Expr& cond) {
    Guard g{cond, -1, false};
    for (int p = 0; p < static_cast<int>(leaves_.size()); ++p) {
      const VarNode* leaf = var_of(leaves_[p]);
      if (!uses_var(cond, [&](const VarNode* v) { return v == leaf; })) continue;
      g.level = p;
      g.uses_reduce_loop = g.uses_reduce_loop || leaves_[p].is_reduce();
    }
    guards_.push_back(g);
  }

  // Points an earlier iteration of a store_at stage's compute loop computed are not computed again.
  void add_sliding_guard(const SlidingWindow& window) {
    Expr index = window.dim < 0 ? Expr() : roots_.at(var_of(s_.op->axis[window.dim]));
    add_guard(computes_point(window, index));
  }

  // A compute_at region may reach past the tensor's edge (a consumer's non-dividing split), unless
  // the schedule computes that axis past it (Stage::compute_past_edge).
  void add_edge_guards() {
    for (int d = 0; d < s_.op.ndim(); ++d) {
      if (stage_.past_edge.count(s_.op->axis[d].get())) continue;
      const Range& r = ranges_.at(s_.op->axis[d].get());
      if (is_const_int(r.min, 0) && is_const_int(r.extent, s_.op.shape()[d])) continue;
      Expr value = roots_.at(var_of(s_.op->axis[d]));
      add_guard(value >= 0);
      add_guard(value < make_int(s_.op.shape()[d]));
    }
  }

  std::vector<Expr> indices() const {
    std::vector<Expr> idx;
    for (const IterVar& axis : s_.op->axis) idx.push_back(roots_.at(var_of(axis)));
    return idx;
  }

  Stmt update(const Reduce& reduce) const {
    std::vector<Expr> idx = indices();
    Expr combined = reduce_combine(reduce.combiner, s_.op(idx), substitute(reduce.source, roots_));
    Stmt provide = make_provide(s_.op.ptr(), idx, combined);
    if (is_const_int(reduce.condition, 1)) return provide;
    return make_if(substitute(reduce.condition, roots_), provide);
  }

  // The prefetches (Stage::prefetch) of the loop at leaf `pos` run first in each iteration, with
  // the shares of the whole prefetches (Stage::prefetch_whole) placed there; position -1 is the
  // stage's start, before its outermost loop.
  Stmt with_prefetches(int pos, const Stmt& body) const {
    std::vector<Stmt> seq;
    auto found = pos < 0 ? stage_.prefetches.end() : stage_.prefetches.find(leaves_[pos].get());
    if (found != stage_.prefetches.end())
      for (const Prefetch& p : found->second)
        seq.push_back(prefetch_ahead(p.tensor, leaves_[pos].var(), p.offset, body));
    for (size_t i = 0; i < whole_.size(); ++i)
      if (whole_[i].pos == pos)
        seq.push_back(prefetch_share(stage_.whole_prefetches[i].tensor, iteration_through(pos), whole_[i].iterations,
                                     stage_.whole_prefetches[i].lead_bytes));
    if (seq.empty()) return body;
    seq.push_back(body);
    return make_seq(seq);
  }

  // The loops whole prefetches count iterations over: the enclosing ones (each must have a
  // constant extent), then the stage's leading serial or parallel leaves with constant extents.
  // Leaf position p (-1: before the first leaf) comes after the first enclosing + p + 1 of them.
  std::vector<EnclosingLoop> spread_loops(std::vector<EnclosingLoop> enclosing) const {
    for (const EnclosingLoop& loop : enclosing)
      if (loop.extent <= 0)
        user_error("prefetch_whole in stage '", s_.op.name(), "': the loop '", loop.leaf.name(),
                   "' around it has no constant extent; compute the stage at a loop that has one");
    for (const IterVar& leaf : leaves_) {
      const int64_t* extent = as_const_int(ranges_.at(leaf.get()).extent);
      ForKind kind = stage_.for_kind(leaf);
      if (!extent || (kind != ForKind::Serial && kind != ForKind::Parallel)) break;
      enclosing.push_back({leaf, *extent});
    }
    return enclosing;
  }

  // Where a whole prefetch goes: the outermost leaf position (-1: the stage's start) whose
  // iterations leave each share of p's tensor at most p.max_lines_per_step lines, the deepest one
  // if none does; and how many iterations share the tensor there.
  struct WholePlacement {
    int pos;
    int64_t iterations;
  };
  WholePlacement place(const WholePrefetch& p) const {
    WholePlacement at{-1, 1};
    for (int i = 0; i < enclosing_count_; ++i) at.iterations *= spread_[i].extent;
    int64_t lines = cache_lines(p.tensor);
    for (size_t i = enclosing_count_; i < spread_.size() && at.iterations * p.max_lines_per_step < lines; ++i) {
      at.iterations *= spread_[i].extent;
      at.pos = static_cast<int>(i) - enclosing_count_;
    }
    return at;
  }

  // The index of the current iteration among those of the spread loops down to leaf `pos`.
  Expr iteration_through(int pos) const {
    Expr index = make_int(0);
    for (int i = 0; i < enclosing_count_ + pos + 1; ++i)
      index = index * make_int(spread_[i].extent) + spread_[i].leaf.var();
    return index;
  }

  Stmt guarded(Stmt body, int level) const {
    for (const Guard& g : guards_)
      if (g.level == level) body = make_if(g.cond, body);
    return body;
  }

  // The starting value (the reduction's init, else the combiner's identity) stored over the
  // data-parallel loops inside the first reduction loop, with fresh loop variables (the update
  // nest reuses the originals).
  Stmt init(const Reduce& reduce) const {
    std::unordered_map<const VarNode*, Expr> fresh;
    for (int p = first_reduce_; p < static_cast<int>(leaves_.size()); ++p)
      if (!leaves_[p].is_reduce()) fresh[var_of(leaves_[p])] = Var(leaves_[p].name() + ".init");
    std::vector<Expr> idx = indices();
    for (Expr& i : idx) i = substitute(i, fresh);
    Expr start = reduce.init.defined() ? substitute(substitute(reduce.init, roots_), fresh)
                                       : reduce_identity(reduce.combiner, s_.op.dtype());
    Stmt body = make_provide(s_.op.ptr(), idx, start);
    for (int p = static_cast<int>(leaves_.size()) - 1; p >= first_reduce_; --p) {
      const IterVar& leaf = leaves_[p];
      if (leaf.is_reduce()) continue;
      for (const Guard& g : guards_)  // a data-parallel guard's innermost loop is data-parallel too
        if (g.level == p && !g.uses_reduce_loop) body = make_if(substitute(g.cond, fresh), body);
      Var v(fresh.at(var_of(leaf)));
      body = make_leaf_loop(stage_, leaf, v, ranges_.at(leaf.get()).extent, body);
    }
    return body;
  }

  const PlannedStage& s_;
  const StageNode& stage_;
  const AxisRanges& ranges_;
  const AttachFn& attach_;
  const std::vector<IterVar>& leaves_;
  int enclosing_count_;
  std::vector<EnclosingLoop> spread_;  // spread_loops(), for stages with whole prefetches
  std::vector<WholePlacement> whole_;  // one per stage_.whole_prefetches
  int first_reduce_;
  std::unordered_map<const VarNode*, Expr> roots_;
  std::vector<Guard> guards_;
};

}  // namespace

Stmt make_loop_nest(const PlannedStage& s, const AxisRanges& ranges, const AttachFn& attach,
                    const SlidingWindow* window, std::vector<EnclosingLoop> enclosing) {
  return NestBuilder(s, ranges, attach, window, std::move(enclosing)).build();
}

}  // namespace tessel
