// Schedules: how a tensor expression is computed, separate from what it computes (TVM's
// separation of algorithm and schedule).
//
// A Schedule has one Stage per operation. A stage's loop nest starts as its operation's axes
// (data-parallel, then reduction) and is reshaped by primitives: split, tile, fuse and reorder
// change the loops; vectorize, unroll and parallel annotate them; compute_at, compute_inline and
// compute_root choose where the stage runs relative to its consumers; cache_read and cache_write
// add stages that stage data in local buffers. Illegal requests throw UserError naming the stage,
// the axis and the rule broken.
//
//   Schedule s = create_schedule({C});
//   auto [io, jo, ii, ji] = s[C].tile(s[C].axis(0), s[C].axis(1), 32, 32);
//   s[C].vectorize(ji);
//   s[C].parallel(io);
#pragma once
#include <array>
#include <memory>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ir/tensor.h"

namespace tessel {

enum class LoopAnnotation : uint8_t { None, Vectorize, Unroll, Parallel };
enum class AttachKind : uint8_t { Root, Inline, At };

// parent = outer * factor + inner, with outer over ceil(extent / factor) and inner over factor
// (or factor derived from nparts). Non-dividing splits are guarded during lowering.
struct SplitRelation {
  IterVar parent, outer, inner;
  int64_t factor;  // 0 when given by nparts
  int64_t nparts;  // 0 when given by factor
};

// fused = outer * extent(inner) + inner.
struct FuseRelation {
  IterVar outer, inner, fused;
};

using IterRelation = std::variant<SplitRelation, FuseRelation>;

struct StageNode;
using StageRef = std::shared_ptr<StageNode>;

struct StageNode {
  Tensor op;      // the operation computed now (cache primitives may replace it)
  Tensor origin;  // the operation the stage was created for
  std::vector<IterVar> all_axes;   // root axes and every axis a relation created
  std::vector<IterVar> leaf_axes;  // the loop nest, outermost first
  std::vector<IterRelation> relations;
  std::unordered_map<const IterVarNode*, LoopAnnotation> annotations;
  AttachKind attach = AttachKind::Root;
  std::weak_ptr<StageNode> attach_stage;  // for AttachKind::At
  IterVar attach_axis;                    // a leaf axis of attach_stage
  bool is_output = false;
};

class Stage {
 public:
  explicit Stage(StageRef node) : node_(std::move(node)) {}
  StageNode* operator->() const { return node_.get(); }
  const StageRef& ref() const { return node_; }
  const std::string& name() const { return node_->op.name(); }

  const IterVar& axis(int i) const;         // the current operation's data-parallel axis i
  const IterVar& reduce_axis(int i) const;  // the current operation's reduction axis i

  std::pair<IterVar, IterVar> split(const IterVar& axis, int64_t factor);
  std::pair<IterVar, IterVar> split_nparts(const IterVar& axis, int64_t nparts);
  // {x_outer, y_outer, x_inner, y_inner}, in that loop order.
  std::array<IterVar, 4> tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor);
  IterVar fuse(const IterVar& outer, const IterVar& inner);  // adjacent loops, outer first
  void reorder(const std::vector<IterVar>& order);

  void compute_at(const Stage& parent, const IterVar& axis);
  void compute_inline();
  void compute_root();

  void vectorize(const IterVar& axis);
  void unroll(const IterVar& axis);
  void parallel(const IterVar& axis);

 private:
  size_t leaf_position(const IterVar& axis, const char* primitive) const;
  void annotate(const IterVar& axis, LoopAnnotation annotation, const char* primitive);
  StageRef node_;
};

class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(std::vector<Tensor> outputs);

  // The stage of a tensor, found by the tensor the user holds even after cache primitives
  // replaced its operation.
  Stage operator[](const Tensor& t) const;
  const std::vector<StageRef>& stages() const { return stages_; }  // producers first
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // The operation now computing what `t` named when the user created it.
  Tensor current(const Tensor& t) const;

  // A new stage copying `t` into a local buffer, read by `readers` instead of `t`.
  Tensor cache_read(const Tensor& t, const std::vector<Tensor>& readers);
  // A new stage computing `t`'s body into a local buffer; `t` becomes a copy of it. Returns the
  // new (cache) tensor.
  Tensor cache_write(const Tensor& t);

 private:
  StageRef stage_of(const OperationNode* op) const;
  void replace_ops(const std::unordered_map<const OperationNode*, Tensor>& replaced);
  void insert_stage_before(const StageRef& consumer, StageRef stage);

  std::vector<Tensor> outputs_;
  std::vector<StageRef> stages_;
  std::unordered_map<const OperationNode*, StageRef> by_op_;  // current and original ops
};

Schedule create_schedule(std::vector<Tensor> outputs);

}  // namespace tessel
