// Folding an addend into the sum it follows (ops/graph/fold_addend.h).
#include "ops/graph/fold_addend.h"

#include <unordered_map>

#include "ir/mutator.h"
#include "ir/visitor.h"

namespace tessel::ops {

namespace {

using VarMap = std::unordered_map<const VarNode*, Expr>;

// Whether `e` reads `sum` at `added`'s own point: each index is added's axis of that dimension, or
// 0 where sum's extent is 1 (a broadcasting read of a batch of one).
bool reads_at_own_point(const Expr& e, const Tensor& sum, const Tensor& added) {
  const TensorRead* read = e.as<TensorRead>();
  if (!read || read->op.get() != sum.get() || read->indices.size() != added->axis.size()) return false;
  for (size_t d = 0; d < read->indices.size(); ++d) {
    const Expr& index = read->indices[d];
    bool own_axis = index.same_as(added->axis[d].var());
    if (!own_axis && !(sum.shape()[d] == 1 && is_const_int(index, 0))) return false;
  }
  return true;
}

bool reads_tensor(const Expr& e, const Tensor& t) {
  for (const TensorRead* read : tensor_reads(e))
    if (read->op.get() == t.get()) return true;
  return false;
}

VarMap axes_to(const Tensor& t, const std::vector<Var>& vars) {
  VarMap map;
  for (size_t d = 0; d < vars.size(); ++d) map[t->axis[d].var().operator->()] = vars[d];
  return map;
}

}  // namespace

Tensor fold_addend_into_sum(const Tensor& added, const Tensor& sum) {
  if (added->is_placeholder() || sum->is_placeholder()) return Tensor();
  const Reduce* reduce = sum->body.as<Reduce>();
  const Add* add = added->body.as<Add>();
  if (!reduce || !add || reduce->combiner != ReduceOp::Sum || reduce->init.defined()) return Tensor();
  if (added.shape() != sum.shape() || added.dtype() != sum.dtype()) return Tensor();
  Expr addend;
  if (reads_at_own_point(add->a, sum, added)) addend = add->b;
  else if (reads_at_own_point(add->b, sum, added)) addend = add->a;
  if (!addend.defined() || reads_tensor(addend, sum)) return Tensor();
  return compute(
      sum.shape(),
      [&](const std::vector<Var>& i) {
        VarMap sum_axes = axes_to(sum, i);
        return tessel::sum(substitute(reduce->source, sum_axes), reduce->axes, substitute(reduce->condition, sum_axes),
                           substitute(addend, axes_to(added, i)));
      },
      sum.name(), sum->tag);
}

}  // namespace tessel::ops
