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
