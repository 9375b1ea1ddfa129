// Nested parallel loops become serial (see serialize_nested_parallel.h).
#include "passes/lower/serialize_nested_parallel.h"

#include "ir/mutator.h"

namespace tessel {

namespace {

class NestedParallel : public IRMutator {
 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    if (op->kind != ForKind::Parallel) return IRMutator::mutate_node(op, self);
    bool outermost = !inside_parallel_;
    inside_parallel_ = true;
    Stmt body = mutate(op->body);
    inside_parallel_ = !outermost;
    ForKind kind = outermost ? ForKind::Parallel : ForKind::Serial;
    if (kind == op->kind && body.same_as(op->body)) return self;
    return make_for(op->var, op->min, op->extent, kind, body, op->thread_tag);
  }

 private:
  bool inside_parallel_ = false;
};

}  // namespace

Stmt serialize_nested_parallel(const Stmt& s) { return NestedParallel().mutate(s); }

}  // namespace tessel
