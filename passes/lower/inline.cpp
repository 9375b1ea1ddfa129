// compute_inline (see inline.h). Stages are visited producers first, so an inlined body is
// already free of inlined reads when it is substituted into its own readers.
#include "passes/lower/inline.h"

#include "ir/mutator.h"

namespace tessel {

namespace {

struct InlinedDefinition {
  std::vector<IterVar> axes;
  Expr body;
};

using Definitions = std::unordered_map<const OperationNode*, InlinedDefinition>;

class InlineReads : public IRMutator {
 public:
  explicit InlineReads(const Definitions& defs) : defs_(defs) {}

 protected:
  Expr mutate_node(const TensorRead* op, const Expr& self) override {
    Expr read = IRMutator::mutate_node(op, self);
    auto it = defs_.find(op->op.get());
    if (it == defs_.end()) return read;
    const auto& indices = read.as<TensorRead>()->indices;
    std::unordered_map<const VarNode*, Expr> at_indices;
    for (size_t d = 0; d < indices.size(); ++d)
      at_indices[static_cast<const VarNode*>(it->second.axes[d].var().get())] = indices[d];
    return substitute(it->second.body, at_indices);
  }

 private:
  const Definitions& defs_;
};

}  // namespace

std::unordered_map<const OperationNode*, Expr> inline_stages(const Schedule& sch) {
  Definitions inlined;
  std::unordered_map<const OperationNode*, Expr> bodies;
  for (const Stage& stage : sch.stages()) {
    const Tensor& op = stage->op;
    if (op->is_placeholder()) continue;
    Expr body = InlineReads(inlined).mutate(op->body);
    if (stage->attach == AttachKind::Inline)
      inlined[op.get()] = {op->axis, body};
    else
      bodies[op.get()] = body;
  }
  return bodies;
}

}  // namespace tessel
