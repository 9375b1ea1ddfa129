// The stages lowering turns into loop nests, with their bodies after inlining and their validated
// attachment points. Building the plan is where schedule errors that only show once the whole
// schedule is known are reported: compute_at to an axis that was split or fused afterwards, to an
// inlined stage, in a cycle, or inside a stage sharing a reduction axis with it.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/schedule.h"

namespace tessel {

struct PlannedStage {
  const StageNode* stage;
  Tensor op;
  Expr body;                                   // the op's body with inlined producers substituted
  const PlannedStage* parent;                  // the stage this one is computed at; null at the root
  int attach_pos;                              // the leaf position in parent's loops; -1 at the root
  std::vector<const PlannedStage*> consumers;  // planned stages whose body reads op
  int store_pos = -1;  // the leaf position in parent's loops its storage lives at (attach_pos unless store_at)

  bool slides() const { return store_pos != attach_pos; }  // stored outside its compute loop (store_at)
};

class StagePlan {
 public:
  explicit StagePlan(const Schedule& sch);
  StagePlan(const StagePlan&) = delete;
  StagePlan& operator=(const StagePlan&) = delete;

  // Producers first (the schedule's order); placeholders and inlined stages are not planned.
  const std::vector<PlannedStage>& stages() const { return stages_; }
  const PlannedStage* find(const OperationNode* op) const;  // null if not planned
  // The stages attached at `parent`'s leaf position `pos`, in schedule order.
  std::vector<const PlannedStage*> attached_at(const PlannedStage* parent, int pos) const;
  // The stages computed inside `parent`'s loops whose storage lives at its leaf position `pos`
  // (store_at), in schedule order.
  std::vector<const PlannedStage*> stored_at(const PlannedStage* parent, int pos) const;

 private:
  void resolve_attachment(PlannedStage& planned);
  void resolve_storage(PlannedStage& planned) const;
  void check_acyclic() const;
  // A stage nested in another's loops must not loop over an enclosing loop's variable again (a
  // reduce_axis shared by two computes).
  void check_nested_axes_distinct() const;

  std::vector<PlannedStage> stages_;
  std::unordered_map<const OperationNode*, size_t> index_;
  std::unordered_map<const StageNode*, size_t> by_stage_;
};

}  // namespace tessel
