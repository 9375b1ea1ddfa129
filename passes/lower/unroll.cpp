// Unrolling (see unroll.h). Inner loops are unrolled first, so nested unrolled loops multiply out.
#include "passes/lower/unroll.h"

#include "ir/mutator.h"

namespace tessel {

namespace {

class Unroller : public IRMutator {
 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    Stmt inner = IRMutator::mutate_node(op, self);
    if (op->kind != ForKind::Unrolled) return inner;
    auto* loop = inner.as<For>();
    const int64_t* min = as_const_int(loop->min);
    const int64_t* extent = as_const_int(loop->extent);
    if (!min || !extent || *extent > kMaxUnroll)
      return make_for(loop->var, loop->min, loop->extent, ForKind::Serial, loop->body);
    std::vector<Stmt> copies;
    const auto* var = static_cast<const VarNode*>(loop->var.get());
    for (int64_t i = 0; i < *extent; ++i)
      copies.push_back(substitute(loop->body, {{var, make_int(*min + i, loop->var.type())}}));
    return make_seq(copies);
  }
};

}  // namespace

Stmt unroll_loops(const Stmt& s) { return Unroller().mutate(s); }

}  // namespace tessel
