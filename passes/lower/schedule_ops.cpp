// Schedule to loop program (see schedule_ops.h).
#include "passes/lower/schedule_ops.h"

#include <unordered_map>

#include "passes/lower/loop_nest.h"
#include "passes/lower/sliding_window.h"
#include "support/error.h"

namespace tessel {

namespace {

class OpsBuilder {
 public:
  OpsBuilder(const StagePlan& plan, const StageRanges& ranges) : plan_(plan), ranges_(ranges) {
    for (const PlannedStage& s : plan.stages())
      if (s.slides()) windows_[&s] = plan_sliding_window(s, ranges.at(s.stage));
  }

  Stmt stage_code(const PlannedStage& s) const {
    auto window = windows_.find(&s);
    return make_loop_nest(
        s, ranges_.at(s.stage), [&](int pos, const Stmt& rest) { return with_attached(s, pos, rest); },
        window == windows_.end() ? nullptr : &window->second, enclosing_loops(s));
  }

  // The ancestors' loops down to where s is computed, outermost first.
  std::vector<EnclosingLoop> enclosing_loops(const PlannedStage& s) const {
    if (!s.parent) return {};
    std::vector<EnclosingLoop> loops = enclosing_loops(*s.parent);
    const StageNode& parent = *s.parent->stage;
    for (int p = 0; p <= s.attach_pos; ++p) {
      const IterVar& leaf = parent.leaf_axes[p];
      const int64_t* extent = as_const_int(ranges_.at(&parent).at(leaf.get()).extent);
      loops.push_back({leaf, extent ? *extent : 0});
    }
    return loops;
  }

  // The stages computed at s's loop `pos`, producers first, then `rest`; each realized around
  // everything after its own nest, or (store_at) around s's whole loop there.
  Stmt with_attached(const PlannedStage& s, int pos, const Stmt& rest) const {
    std::vector<const PlannedStage*> children = plan_.attached_at(&s, pos);
    Stmt body = rest;
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      body = make_seq({stage_code(**it), body});
      if (!(*it)->slides()) body = realize(**it, body);
    }
    std::vector<const PlannedStage*> stored = plan_.stored_at(&s, pos);
    for (auto it = stored.rbegin(); it != stored.rend(); ++it)
      body = realize_sliding(**it, ranges_.at((*it)->stage), windows_.at(*it), body);
    return body;
  }

  Stmt realize(const PlannedStage& s, const Stmt& body) const {
    std::vector<Range> bounds;
    for (const IterVar& axis : s.op->axis) bounds.push_back(ranges_.at(s.stage).at(axis.get()));
    return make_realize(s.op.ptr(), bounds, s.stage->scope.value_or(MemoryScope::local()), body);
  }

 private:
  const StagePlan& plan_;
  const StageRanges& ranges_;
  std::unordered_map<const PlannedStage*, SlidingWindow> windows_;
};

}  // namespace

Stmt schedule_ops(const StagePlan& plan, const StageRanges& ranges,
                  const std::unordered_set<const OperationNode*>& external) {
  OpsBuilder builder(plan, ranges);
  std::vector<Stmt> nests;
  std::vector<const PlannedStage*> roots;
  for (const PlannedStage& s : plan.stages()) {
    if (s.parent) continue;
    nests.push_back(builder.stage_code(s));
    roots.push_back(&s);
  }
  Stmt body = make_seq(nests);
  for (auto it = roots.rbegin(); it != roots.rend(); ++it)
    if (!external.count((*it)->op.get())) body = builder.realize(**it, body);
  for (const PlannedStage& s : plan.stages())
    if (external.count(s.op.get()) && s.stage->scope && *s.stage->scope != MemoryScope::global())
      user_error("lower: stage '", s.op.name(), "' has memory scope '", s.stage->scope->name(),
                 "' but is passed as an argument, which lives in global memory; drop its set_scope or the argument");
  return body;
}

}  // namespace tessel
