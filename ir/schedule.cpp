// Schedule primitives: each checks that the request is legal for the stage (and says which rule
// it breaks if not), then records it. Nothing here generates loops; passes/lower reads the record.
#include "ir/schedule.h"

#include <algorithm>
#include <unordered_set>

#include "ir/mutator.h"
#include "support/error.h"

namespace tessel {

namespace {

StageRef make_stage(const Tensor& op) {
  auto stage = std::make_shared<StageNode>();
  stage->op = op;
  stage->origin = op;
  stage->all_axes = op->axis;
  stage->all_axes.insert(stage->all_axes.end(), op->reduce_axis.begin(), op->reduce_axis.end());
  stage->leaf_axes = stage->all_axes;
  return stage;
}

int64_t const_extent(const IterVar& iv) {
  const int64_t* e = as_const_int(iv->dom.extent);
  TESSEL_CHECK(e, "axis ", iv.name(), " has no constant extent");
  return *e;
}

IterVar derived_axis(const IterVar& parent, const std::string& suffix, int64_t extent) {
  return IterVar(Var(parent.name() + suffix), Range{0, Expr(extent)}, parent->kind);
}

const char* annotation_name(LoopAnnotation a) {
  switch (a) {
    case LoopAnnotation::Vectorize: return "vectorize";
    case LoopAnnotation::Unroll: return "unroll";
    case LoopAnnotation::Parallel: return "parallel";
    case LoopAnnotation::None: break;
  }
  return "none";
}

}  // namespace

// ---- Stage ---------------------------------------------------------------------------------------

const IterVar& Stage::axis(int i) const {
  const auto& axes = node_->op->axis;
  if (i < 0 || i >= static_cast<int>(axes.size()))
    user_error("stage '", name(), "' has ", axes.size(), " axes; axis ", i, " does not exist");
  return axes[i];
}

const IterVar& Stage::reduce_axis(int i) const {
  const auto& axes = node_->op->reduce_axis;
  if (i < 0 || i >= static_cast<int>(axes.size()))
    user_error("stage '", name(), "' has ", axes.size(), " reduction axes; reduction axis ", i, " does not exist");
  return axes[i];
}

size_t Stage::leaf_position(const IterVar& axis, const char* primitive) const {
  if (!axis.defined()) user_error(primitive, ": undefined axis given for stage '", name(), "'");
  const auto& leaves = node_->leaf_axes;
  auto it = std::find_if(leaves.begin(), leaves.end(), [&](const IterVar& l) { return l.same_as(axis); });
  if (it != leaves.end()) return static_cast<size_t>(it - leaves.begin());
  bool replaced = std::any_of(node_->all_axes.begin(), node_->all_axes.end(),
                              [&](const IterVar& a) { return a.same_as(axis); });
  if (replaced)
    user_error(primitive, ": axis '", axis.name(), "' of stage '", name(),
               "' was already split or fused; use the axes that split/fuse returned");
  user_error(primitive, ": axis '", axis.name(), "' is not a loop of stage '", name(),
             "'; each primitive takes the axes of the stage it is applied to");
}

std::pair<IterVar, IterVar> Stage::split(const IterVar& axis, int64_t factor) {
  size_t pos = leaf_position(axis, "split");
  if (factor <= 0)
    user_error("split: factor ", factor, " for axis '", axis.name(), "' of stage '", name(), "' must be positive");
  int64_t extent = const_extent(axis);
  IterVar outer = derived_axis(axis, ".outer", (extent + factor - 1) / factor);
  IterVar inner = derived_axis(axis, ".inner", factor);
  node_->relations.push_back(SplitRelation{axis, outer, inner, factor, 0});
  node_->all_axes.push_back(outer);
  node_->all_axes.push_back(inner);
  node_->leaf_axes[pos] = inner;
  node_->leaf_axes.insert(node_->leaf_axes.begin() + pos, outer);
  return {outer, inner};
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& axis, int64_t nparts) {
  if (nparts <= 0)
    user_error("split: nparts ", nparts, " for axis '", axis.name(), "' of stage '", name(), "' must be positive");
  leaf_position(axis, "split");
  int64_t extent = const_extent(axis);
  auto [outer, inner] = split(axis, (extent + nparts - 1) / nparts);
  auto& relation = std::get<SplitRelation>(node_->relations.back());
  relation.nparts = nparts;
  return {outer, inner};
}

std::array<IterVar, 4> Stage::tile(const IterVar& x, const IterVar& y, int64_t x_factor, int64_t y_factor) {
  auto [xo, xi] = split(x, x_factor);
  auto [yo, yi] = split(y, y_factor);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  size_t po = leaf_position(outer, "fuse"), pi = leaf_position(inner, "fuse");
  if (pi != po + 1)
    user_error("fuse: axes '", outer.name(), "' and '", inner.name(), "' of stage '", name(),
               "' are not adjacent with the outer one first; reorder them first");
  if (outer->kind != inner->kind)
    user_error("fuse: axis '", outer.name(), "' and axis '", inner.name(), "' of stage '", name(),
               "' differ in kind (data-parallel vs reduction); only axes of one kind fuse");
  IterVar fused(Var(outer.name() + "." + inner.name() + ".fused"),
                Range{0, Expr(const_extent(outer) * const_extent(inner))}, outer->kind);
  node_->relations.push_back(FuseRelation{outer, inner, fused});
  node_->all_axes.push_back(fused);
  node_->leaf_axes.erase(node_->leaf_axes.begin() + po, node_->leaf_axes.begin() + pi + 1);
  node_->leaf_axes.insert(node_->leaf_axes.begin() + po, fused);
  return fused;
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> positions;
  std::unordered_set<const IterVarNode*> seen;
  for (const IterVar& axis : order) {
    positions.push_back(leaf_position(axis, "reorder"));
    if (!seen.insert(axis.get()).second)
      user_error("reorder: axis '", axis.name(), "' of stage '", name(), "' is listed twice");
  }
  std::vector<size_t> slots = positions;
  std::sort(slots.begin(), slots.end());
  for (size_t i = 0; i < order.size(); ++i) node_->leaf_axes[slots[i]] = order[i];
}

void Stage::annotate(const IterVar& axis, LoopAnnotation annotation, const char* primitive) {
  leaf_position(axis, primitive);
  if (axis.is_reduce() && annotation != LoopAnnotation::Unroll)
    user_error(primitive, ": axis '", axis.name(), "' of stage '", name(),
               "' is a reduction axis; its iterations depend on each other, so only unroll applies to it");
  LoopAnnotation& current = node_->annotations[axis.get()];
  if (current != LoopAnnotation::None && current != annotation)
    user_error(primitive, ": axis '", axis.name(), "' of stage '", name(), "' is already marked ",
               annotation_name(current));
  current = annotation;
}

void Stage::vectorize(const IterVar& axis) { annotate(axis, LoopAnnotation::Vectorize, "vectorize"); }
void Stage::unroll(const IterVar& axis) { annotate(axis, LoopAnnotation::Unroll, "unroll"); }
void Stage::parallel(const IterVar& axis) { annotate(axis, LoopAnnotation::Parallel, "parallel"); }

namespace {

bool reads_transitively(const Tensor& consumer, const OperationNode* producer,
                        std::unordered_set<const OperationNode*>& visited) {
  if (!visited.insert(consumer.get()).second) return false;
  for (const Tensor& in : input_tensors(consumer))
    if (in.get() == producer || reads_transitively(in, producer, visited)) return true;
  return false;
}

void check_movable(const Stage& stage, const char* primitive) {
  if (stage->op->is_placeholder())
    user_error(primitive, ": '", stage.name(), "' is an input placeholder; it is not computed");
  if (stage->is_output)
    user_error(primitive, ": '", stage.name(), "' is an output of the schedule; outputs are computed at the root");
}

}  // namespace

void Stage::compute_at(const Stage& parent, const IterVar& axis) {
  check_movable(*this, "compute_at");
  if (parent.ref() == node_) user_error("compute_at: stage '", name(), "' cannot be computed at itself");
  parent.leaf_position(axis, "compute_at");
  std::unordered_set<const OperationNode*> visited;
  if (!reads_transitively(parent->op, node_->op.get(), visited))
    user_error("compute_at: stage '", parent.name(), "' does not read '", name(),
               "', so '", name(), "' cannot be computed inside its loops");
  node_->attach = AttachKind::At;
  node_->attach_stage = parent.ref();
  node_->attach_axis = axis;
}

void Stage::compute_inline() {
  check_movable(*this, "compute_inline");
  if (node_->op->is_reduction())
    user_error("compute_inline: '", name(), "' is a reduction; only element-wise stages can be inlined");
  node_->attach = AttachKind::Inline;
}

void Stage::compute_root() {
  check_movable(*this, "compute_root");
  node_->attach = AttachKind::Root;
  node_->attach_stage.reset();
  node_->attach_axis = IterVar();
}

// ---- Schedule -----------------------------------------------------------------------------------

Schedule::Schedule(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  if (outputs_.empty()) user_error("a schedule needs at least one output tensor");
  for (const Tensor& t : topological_order(outputs_)) {
    StageRef stage = make_stage(t);
    by_op_[t.get()] = stage;
    stages_.push_back(stage);
  }
  for (const Tensor& t : outputs_) by_op_.at(t.get())->is_output = true;
}

Schedule create_schedule(std::vector<Tensor> outputs) { return Schedule(std::move(outputs)); }

StageRef Schedule::stage_of(const OperationNode* op) const {
  auto it = by_op_.find(op);
  return it == by_op_.end() ? nullptr : it->second;
}

Stage Schedule::operator[](const Tensor& t) const {
  StageRef stage = t.defined() ? stage_of(t.get()) : nullptr;
  if (!stage) user_error("tensor '", t.defined() ? t.name() : "?", "' is not part of this schedule");
  return Stage(stage);
}

Tensor Schedule::current(const Tensor& t) const { return (*this)[t]->op; }

namespace {

// Points tensor reads at replacement operations.
class ReadRedirector : public IRMutator {
 public:
  explicit ReadRedirector(const std::unordered_map<const OperationNode*, Tensor>& m) : map_(m) {}

 protected:
  Expr mutate_node(const TensorRead* op, const Expr& self) override {
    Expr e = IRMutator::mutate_node(op, self);
    auto it = map_.find(op->op.get());
    if (it == map_.end()) return e;
    return it->second(e.as<TensorRead>()->indices);
  }

 private:
  const std::unordered_map<const OperationNode*, Tensor>& map_;
};

Tensor with_body(const Tensor& op, Expr body) {
  auto node = std::make_shared<OperationNode>(*op.get());
  node->body = std::move(body);
  return Tensor(std::move(node));
}

std::vector<Expr> axis_vars(const std::vector<IterVar>& axes) {
  std::vector<Expr> vars;
  for (const IterVar& a : axes) vars.push_back(a.var());
  return vars;
}

}  // namespace

void Schedule::replace_ops(const std::unordered_map<const OperationNode*, Tensor>& replaced) {
  std::unordered_map<const OperationNode*, Tensor> map = replaced;
  for (const StageRef& stage : stages_) {
    const Tensor& op = stage->op;
    auto direct = map.find(op.get());
    Tensor next = direct != map.end() ? direct->second : op;
    if (!next->is_placeholder()) {
      Expr body = ReadRedirector(map).mutate(next->body);
      if (!body.same_as(next->body)) next = with_body(next, body);
    }
    if (next.same_as(op)) continue;
    map[op.get()] = next;
    stage->op = next;
    by_op_[next.get()] = stage;
  }
}

void Schedule::insert_stage_before(const StageRef& consumer, StageRef stage) {
  auto it = std::find(stages_.begin(), stages_.end(), consumer);
  TESSEL_CHECK(it != stages_.end(), "consumer stage not in schedule");
  by_op_[stage->op.get()] = stage;
  stages_.insert(it, std::move(stage));
}

Tensor Schedule::cache_read(const Tensor& t, const std::vector<Tensor>& readers) {
  Tensor source = current(t);
  if (readers.empty()) user_error("cache_read: no readers given for '", source.name(), "'");
  Tensor cache = compute(source.shape(), [&](const std::vector<Var>& i) {
    return source(std::vector<Expr>(i.begin(), i.end()));
  }, source.name() + ".local", "cache_read");
  std::unordered_map<const OperationNode*, Tensor> redirect{{source.get(), cache}};
  std::unordered_map<const OperationNode*, Tensor> new_readers;
  StageRef first_reader;
  for (const Tensor& r : readers) {
    StageRef stage = (*this)[r].ref();
    std::unordered_set<const OperationNode*> visited;
    if (stage->op->is_placeholder() || !reads_transitively(stage->op, source.get(), visited))
      user_error("cache_read: '", stage->op.name(), "' does not read '", source.name(), "'");
    new_readers[stage->op.get()] = with_body(stage->op, ReadRedirector(redirect).mutate(stage->op->body));
    if (!first_reader) first_reader = stage;
  }
  for (const StageRef& s : stages_)
    if (new_readers.count(s->op.get())) { first_reader = s; break; }
  insert_stage_before(first_reader, make_stage(cache));
  replace_ops(new_readers);
  return cache;
}

Tensor Schedule::cache_write(const Tensor& t) {
  StageRef stage = (*this)[t].ref();
  Tensor op = stage->op;
  if (op->is_placeholder()) user_error("cache_write: '", op.name(), "' is an input placeholder");
  if (!stage->relations.empty() || !stage->annotations.empty())
    user_error("cache_write: stage '", op.name(), "' already has loop transformations; call cache_write first");
  std::unordered_map<const VarNode*, Expr> to_cache_axes;
  Tensor cache = compute(op.shape(), [&](const std::vector<Var>& i) {
    for (size_t d = 0; d < i.size(); ++d) to_cache_axes[op->axis[d].var().as<VarNode>()] = i[d];
    return substitute(op->body, to_cache_axes);
  }, op.name() + ".local", op->tag);
  Tensor copy = with_body(op, cache(axis_vars(op->axis)));
  auto copy_node = std::const_pointer_cast<OperationNode>(copy.ptr());
  copy_node->reduce_axis.clear();
  copy_node->tag = "cache_write";
  stage->all_axes = copy->axis;
  stage->leaf_axes = copy->axis;
  insert_stage_before(stage, make_stage(cache));
  replace_ops({{op.get(), copy}});
  return cache;
}

}  // namespace tessel
