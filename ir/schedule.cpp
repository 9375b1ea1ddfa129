// Schedule primitives: each checks that the request is legal for the stage (and says which rule
// it breaks if not), then records it. Nothing here generates loops; passes/lower reads the record.
#include "ir/schedule.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "ir/mutator.h"
#include "support/error.h"

namespace tessel {

namespace {

std::shared_ptr<StageNode> make_stage(const Tensor& op) {
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

bool is_pragma_key(const std::string& key) {
  auto allowed = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !key.empty() && std::all_of(key.begin(), key.end(), allowed);
}

}  // namespace

const char* annotation_name(ForKind kind) {
  switch (kind) {
    case ForKind::Serial: return "none";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorize";
    case ForKind::Unrolled: return "unroll";
    case ForKind::ThreadBinding: return "bind";
  }
  return "?";
}

ForKind parse_annotation(const std::string& text) {
  for (ForKind kind : {ForKind::Serial, ForKind::Unrolled, ForKind::Vectorized, ForKind::Parallel})
    if (text == annotation_name(kind)) return kind;
  user_error("unknown loop annotation '", text, "'; valid: none, unroll, vectorize, parallel");
}

ForKind StageNode::for_kind(const IterVar& axis) const {
  auto it = for_kinds.find(axis.get());
  return it == for_kinds.end() ? ForKind::Serial : it->second;
}

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

void Stage::annotate(const IterVar& axis, ForKind kind, const char* primitive) {
  leaf_position(axis, primitive);
  if (axis.is_reduce() && kind != ForKind::Unrolled)
    user_error(primitive, ": axis '", axis.name(), "' of stage '", name(),
               "' is a reduction axis; its iterations depend on each other, so only unroll applies to it");
  ForKind& current = node_->for_kinds[axis.get()];
  if (current != ForKind::Serial && current != kind)
    user_error(primitive, ": axis '", axis.name(), "' of stage '", name(), "' is already marked ",
               annotation_name(current));
  current = kind;
}

void Stage::vectorize(const IterVar& axis) { annotate(axis, ForKind::Vectorized, "vectorize"); }
void Stage::unroll(const IterVar& axis) { annotate(axis, ForKind::Unrolled, "unroll"); }
void Stage::parallel(const IterVar& axis) { annotate(axis, ForKind::Parallel, "parallel"); }

void Stage::bind(const IterVar& axis, const std::string& thread_tag) {
  const auto& tags = thread_tags();
  if (std::find(tags.begin(), tags.end(), thread_tag) == tags.end()) {
    std::string known;
    for (const std::string& t : tags) known += (known.empty() ? "" : ", ") + t;
    user_error("bind: '", thread_tag, "' (for axis '", axis.name(), "' of stage '", name(),
               "') is not a thread tag; valid: ", known);
  }
  for (const auto& [other, tag] : node_->thread_tags) {
    if (tag == thread_tag && other != axis.get())
      user_error("bind: stage '", name(), "' already binds another loop to ", thread_tag,
                 "; each thread tag binds one loop of a stage (fuse the loops first)");
    if (tag != thread_tag && other == axis.get())
      user_error("bind: axis '", axis.name(), "' of stage '", name(), "' is already bound to ", tag);
  }
  annotate(axis, ForKind::ThreadBinding, "bind");
  node_->thread_tags[axis.get()] = thread_tag;
}

void Stage::pragma(const IterVar& axis, const std::string& key, Expr value) {
  leaf_position(axis, "pragma");
  if (!is_pragma_key(key))
    user_error("pragma: key '", key, "' on axis '", axis.name(), "' of stage '", name(),
               "' must be a non-empty name of letters, digits and '_'");
  if (!value.defined() || (!value.as<IntImm>() && !value.as<FloatImm>()))
    user_error("pragma: the value of pragma '", key, "' on axis '", axis.name(), "' of stage '", name(),
               "' must be a constant");
  std::vector<Pragma>& on_axis = node_->pragmas[axis.get()];
  for (const Pragma& p : on_axis)
    if (p.key == key)
      user_error("pragma: axis '", axis.name(), "' of stage '", name(), "' already has pragma '", key, "'");
  on_axis.push_back({key, std::move(value)});
}

void Stage::prefetch(const Tensor& tensor, const IterVar& axis, int offset) {
  leaf_position(axis, "prefetch");
  if (offset < 1)
    user_error("prefetch: the offset of '", tensor.name(), "' on axis '", axis.name(), "' of stage '", name(),
               "' is ", offset, "; it counts iterations ahead and must be at least 1");
  node_->prefetches[axis.get()].push_back({tensor, offset});
}

void Stage::prefetch_whole(const Tensor& tensor, int64_t max_lines_per_step, int64_t lead_bytes) {
  if (max_lines_per_step < 1)
    user_error("prefetch_whole: at most ", max_lines_per_step, " lines per step of '", tensor.name(), "' in stage '",
               name(), "'; use at least 1");
  if (lead_bytes < 0)
    user_error("prefetch_whole: a lead of ", lead_bytes, " bytes for '", tensor.name(), "' in stage '", name(),
               "'; use 0 or more");
  node_->whole_prefetches.push_back({tensor, max_lines_per_step, lead_bytes});
}

void Stage::compute_past_edge(const IterVar& axis) {
  const auto& roots = node_->op->axis;
  if (std::none_of(roots.begin(), roots.end(), [&](const IterVar& r) { return r.same_as(axis); }))
    user_error("compute_past_edge: '", axis.name(), "' is not a data-parallel root axis of stage '", name(),
               "'; pass one of stage.axis(i)");
  node_->past_edge.insert(axis.get());
}

void Stage::set_scope(const std::string& scope) {
  MemoryScope checked(scope);
  if (node_->op->is_placeholder())
    user_error("set_scope: '", name(), "' is an input placeholder; its storage is the caller's global memory");
  if (node_->is_output)
    user_error("set_scope: '", name(), "' is an output of the schedule; outputs are function arguments in global memory");
  node_->scope = checked;
}

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
  if (parent.same_as(*this)) user_error("compute_at: stage '", name(), "' cannot be computed at itself");
  parent.leaf_position(axis, "compute_at");
  std::unordered_set<const OperationNode*> visited;
  if (!reads_transitively(parent->op, node_->op.get(), visited))
    user_error("compute_at: stage '", parent.name(), "' does not read '", name(),
               "', so '", name(), "' cannot be computed inside its loops");
  node_->attach = AttachKind::At;
  node_->attach_stage = parent.node_;
  node_->attach_axis = axis;
  node_->store_axis = IterVar();
}

void Stage::store_at(const Stage& parent, const IterVar& axis) {
  check_movable(*this, "store_at");
  if (node_->attach != AttachKind::At || node_->attach_stage.lock() != parent.node_)
    user_error("store_at: '", name(), "' is not computed at a loop of '", parent.name(), "'; call compute_at(",
               parent.name(), ", ...) first, then store_at at the loop directly outside that one");
  size_t store = parent.leaf_position(axis, "store_at");
  if (store + 1 != parent.leaf_position(node_->attach_axis, "store_at"))
    user_error("store_at: loop '", axis.name(), "' of '", parent.name(), "' is not directly outside loop '",
               node_->attach_axis.name(), "', where '", name(), "' is computed; store at the enclosing loop");
  node_->store_axis = axis;
}

void Stage::compute_inline() {
  check_movable(*this, "compute_inline");
  if (node_->op->is_reduction())
    user_error("compute_inline: '", name(), "' is a reduction; only element-wise stages can be inlined");
  node_->attach = AttachKind::Inline;
  node_->store_axis = IterVar();
}

void Stage::compute_root() {
  check_movable(*this, "compute_root");
  node_->attach = AttachKind::Root;
  node_->attach_stage.reset();
  node_->attach_axis = IterVar();
  node_->store_axis = IterVar();
}

// ---- Schedule -----------------------------------------------------------------------------------

Schedule::Schedule(std::vector<Tensor> outputs) : outputs_(std::move(outputs)) {
  if (outputs_.empty()) user_error("a schedule needs at least one output tensor");
  for (const Tensor& t : topological_order(outputs_)) {
    Stage stage(make_stage(t));
    by_op_.insert_or_assign(t.get(), stage);
    stages_.push_back(stage);
  }
  for (const Tensor& t : outputs_) by_op_.at(t.get()).node_->is_output = true;
}

Schedule create_schedule(std::vector<Tensor> outputs) { return Schedule(std::move(outputs)); }

const Stage* Schedule::stage_of(const OperationNode* op) const {
  auto it = by_op_.find(op);
  return it == by_op_.end() ? nullptr : &it->second;
}

Stage Schedule::operator[](const Tensor& t) const {
  const Stage* stage = t.defined() ? stage_of(t.get()) : nullptr;
  if (!stage) user_error("tensor '", t.defined() ? t.name() : "?", "' is not part of this schedule");
  return *stage;
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

std::vector<Expr> axis_vars(const std::vector<IterVar>& axes) {
  std::vector<Expr> vars;
  for (const IterVar& a : axes) vars.push_back(a.var());
  return vars;
}

Tensor with_body(const Tensor& op, Expr body) {
  auto node = std::make_shared<OperationNode>(*op.get());
  node->body = std::move(body);
  return Tensor(std::move(node));
}

// The operation cache_write leaves behind: `op` reduced to a copy of its cache, element by element.
Tensor copy_of_cache(const Tensor& op, const Tensor& cache) {
  auto node = std::make_shared<OperationNode>(*op.get());
  node->body = cache(axis_vars(op->axis));
  node->reduce_axis.clear();
  node->tag = "cache_write";
  return Tensor(std::move(node));
}

}  // namespace

void Schedule::replace_ops(const std::unordered_map<const OperationNode*, Tensor>& replaced) {
  std::unordered_map<const OperationNode*, Tensor> map = replaced;
  for (Stage& stage : stages_) {
    const Tensor& op = stage->op;
    auto direct = map.find(op.get());
    Tensor next = direct != map.end() ? direct->second : op;
    if (!next->is_placeholder()) {
      Expr body = ReadRedirector(map).mutate(next->body);
      if (!body.same_as(next->body)) next = with_body(next, body);
    }
    if (next.same_as(op)) continue;
    map[op.get()] = next;
    stage.node_->op = next;
    by_op_.insert_or_assign(next.get(), stage);
  }
}

void Schedule::insert_stage_before(const Stage& consumer, Stage stage) {
  auto it = std::find_if(stages_.begin(), stages_.end(), [&](const Stage& s) { return s.same_as(consumer); });
  TESSEL_CHECK(it != stages_.end(), "consumer stage not in schedule");
  by_op_.insert_or_assign(stage->op.get(), stage);
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
  for (const Tensor& r : readers) {
    Stage stage = (*this)[r];
    std::unordered_set<const OperationNode*> visited;
    if (stage->op->is_placeholder() || !reads_transitively(stage->op, source.get(), visited))
      user_error("cache_read: '", stage->op.name(), "' does not read '", source.name(), "'");
    new_readers[stage->op.get()] = with_body(stage->op, ReadRedirector(redirect).mutate(stage->op->body));
  }
  auto first_reader =
      std::find_if(stages_.begin(), stages_.end(), [&](const Stage& s) { return new_readers.count(s->op.get()) > 0; });
  insert_stage_before(*first_reader, Stage(make_stage(cache)));
  replace_ops(new_readers);
  return cache;
}

Tensor Schedule::cache_write(const Tensor& t) {
  Stage stage = (*this)[t];
  Tensor op = stage->op;
  if (op->is_placeholder()) user_error("cache_write: '", op.name(), "' is an input placeholder");
  if (!stage->relations.empty() || !stage->for_kinds.empty() || !stage->pragmas.empty() ||
      !stage->prefetches.empty() || !stage->whole_prefetches.empty())
    user_error("cache_write: stage '", op.name(), "' already has loop transformations; call cache_write first");
  std::unordered_map<const VarNode*, Expr> to_cache_axes;
  Tensor cache = compute(op.shape(), [&](const std::vector<Var>& i) {
    for (size_t d = 0; d < i.size(); ++d) to_cache_axes[op->axis[d].var().as<VarNode>()] = i[d];
    return substitute(op->body, to_cache_axes);
  }, op.name() + ".local", op->tag);
  Tensor copy = copy_of_cache(op, cache);
  stage.node_->all_axes = copy->axis;
  stage.node_->leaf_axes = copy->axis;
  insert_stage_before(stage, Stage(make_stage(cache)));
  replace_ops({{op.get(), copy}});
  return cache;
}

}  // namespace tessel
