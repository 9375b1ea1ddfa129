// The lowering plan (see stage_plan.h): inlining, attachment resolution and validation, and the
// consumer lists bound inference needs.
#include "passes/lower/stage_plan.h"

#include <algorithm>
#include <unordered_set>

#include "ir/visitor.h"
#include "passes/lower/inline.h"
#include "support/error.h"

namespace tessel {


StagePlan::StagePlan(const Schedule& sch) {
  auto bodies = inline_stages(sch);
  for (const Stage& stage : sch.stages()) {
    if (stage->op->is_placeholder() || stage->attach == AttachKind::Inline) continue;
    index_[stage->op.get()] = stages_.size();
    by_stage_[stage.get()] = stages_.size();
    stages_.push_back({stage.get(), stage->op, bodies.at(stage->op.get()), nullptr, -1, {}});
  }
  for (PlannedStage& planned : stages_) resolve_attachment(planned);
  check_acyclic();
  check_nested_axes_distinct();
  for (const PlannedStage& consumer : stages_) {
    std::unordered_set<const OperationNode*> read;
    for (const TensorRead* r : tensor_reads(consumer.body)) read.insert(r->op.get());
    for (PlannedStage& producer : stages_)
      if (read.count(producer.op.get())) producer.consumers.push_back(&consumer);
  }
}

void StagePlan::resolve_attachment(PlannedStage& planned) {
  const StageNode& stage = *planned.stage;
  if (stage.attach != AttachKind::At) return;
  std::shared_ptr<const StageNode> parent = stage.attach_stage.lock();
  const std::string& name = stage.op.name();
  if (!parent) user_error("compute_at: the stage '", name, "' is computed at no longer exists; call compute_at again");
  auto it = by_stage_.find(parent.get());
  if (it == by_stage_.end())
    user_error("compute_at: '", name, "' is computed at '", parent->op.name(), "', which is inlined and has no loops; ",
               "compute '", name, "' at a stage that reads the inlined one instead");
  const auto& leaves = parent->leaf_axes;
  auto axis =
      std::find_if(leaves.begin(), leaves.end(), [&](const IterVar& l) { return l.same_as(stage.attach_axis); });
  if (axis == leaves.end())
    user_error("compute_at: '", name, "' is attached to axis '", stage.attach_axis.name(), "' of '", parent->op.name(),
               "', which is no longer one of its loops (it was split or fused after compute_at); ",
               "attach to one of the loops that split/fuse returned");
  planned.parent = &stages_[it->second];
  planned.attach_pos = static_cast<int>(axis - leaves.begin());
  resolve_storage(planned);
}

// Where a stage computed at a loop is stored: at that loop, or (store_at) at the loop directly
// outside it, which the loop between must run serially for a sliding window to be valid.
void StagePlan::resolve_storage(PlannedStage& planned) const {
  planned.store_pos = planned.attach_pos;
  const StageNode& stage = *planned.stage;
  if (!stage.store_axis.defined()) return;
  const auto& leaves = planned.parent->stage->leaf_axes;
  const std::string& name = stage.op.name();
  const std::string& parent = planned.parent->op.name();
  int pos = planned.attach_pos - 1;
  if (pos < 0 || !leaves[pos].same_as(stage.store_axis))
    user_error("store_at: '", name, "' is stored at loop '", stage.store_axis.name(), "' of '", parent,
               "', which is no longer directly outside loop '", stage.attach_axis.name(),
               "' it is computed at (the loops were split, fused or reordered after store_at); call store_at again");
  ForKind kind = planned.parent->stage->for_kind(stage.attach_axis);
  if (kind != ForKind::Serial && kind != ForKind::Unrolled)
    user_error("store_at: '", name, "' is computed at loop '", stage.attach_axis.name(), "' of '", parent,
               "', which runs ", for_kind_name(kind), "; a sliding window needs its iterations in order, so keep that "
               "loop serial (or compute '", name, "' without store_at)");
  planned.store_pos = pos;
}

void StagePlan::check_nested_axes_distinct() const {
  for (const PlannedStage& inner : stages_) {
    int pos = inner.attach_pos;
    for (const PlannedStage* outer = inner.parent; outer; pos = outer->attach_pos, outer = outer->parent) {
      for (const IterVar& a : inner.stage->leaf_axes) {
        for (int p = 0; p <= pos; ++p) {
          if (!a.var().same_as(outer->stage->leaf_axes[p].var())) continue;
          user_error("compute_at: '", inner.op.name(), "' is computed inside loop '", a.name(), "' of '",
                     outer->op.name(), "' and loops over that same axis itself; create a separate reduce_axis ",
                     "for each compute");
        }
      }
    }
  }
}

void StagePlan::check_acyclic() const {
  for (const PlannedStage& planned : stages_) {
    const PlannedStage* cur = planned.parent;
    for (size_t steps = 0; cur; cur = cur->parent, ++steps) {
      if (cur == &planned || steps > stages_.size())
        user_error("compute_at: the attachments of '", planned.op.name(), "' form a cycle (it is computed, directly ",
                   "or through other stages, inside its own loops); make one of them compute_root");
    }
  }
}

std::vector<const PlannedStage*> StagePlan::stored_at(const PlannedStage* parent, int pos) const {
  std::vector<const PlannedStage*> result;
  for (const PlannedStage& s : stages_)
    if (s.parent == parent && s.store_pos == pos && s.slides()) result.push_back(&s);
  return result;
}

const PlannedStage* StagePlan::find(const OperationNode* op) const {
  auto it = index_.find(op);
  return it == index_.end() ? nullptr : &stages_[it->second];
}

std::vector<const PlannedStage*> StagePlan::attached_at(const PlannedStage* parent, int pos) const {
  std::vector<const PlannedStage*> result;
  for (const PlannedStage& s : stages_)
    if (s.parent == parent && s.attach_pos == pos) result.push_back(&s);
  return result;
}

}  // namespace tessel
