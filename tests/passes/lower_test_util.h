// Helpers of the lowering tests: running a lowered function in the loop interpreter against the
// tensor-expression interpreter, checking the back-end contract of lower.h, and inspecting the
// loop program (realized regions, nodes present).
#pragma once
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "ir/printer.h"
#include "ir/te_interpreter.h"
#include "ir/visitor.h"
#include "passes/lower/loop_interpreter.h"
#include "passes/lower/lower.h"
#include "tests/user_error_check.h"

namespace tessel::test {

// Fails the test on anything lower.h promises the back ends never to see.
class ContractChecker : public IRVisitor {
 public:
  int vector_stores = 0, loops = 0, guards = 0, divisions = 0;

 protected:
  void visit_node(const For* op) override {
    CHECK((op->kind == ForKind::Serial || op->kind == ForKind::Parallel || op->kind == ForKind::ThreadBinding));
    CHECK((op->kind == ForKind::ThreadBinding) != op->thread_tag.empty());
    CHECK(as_const_int(op->extent));
    ++loops;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Allocate* op) override {
    CHECK(op->buffer.scope() != MemoryScope::global());
    CHECK(as_const_int(op->size));
    IRVisitor::visit_node(op);
  }
  void visit_node(const Store* op) override {
    CHECK(op->index.type().lanes <= 64);
    if (op->index.type().lanes > 1) ++vector_stores;
    IRVisitor::visit_node(op);
  }
  void visit_node(const IfThenElse* op) override {
    ++guards;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Div* op) override {
    ++divisions;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Mod* op) override {
    ++divisions;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Provide*) override { FAIL("Provide after lowering"); }
  void visit_node(const Realize*) override { FAIL("Realize after lowering"); }
  void visit_node(const TensorRead*) override { FAIL("TensorRead after lowering"); }
  void visit_node(const Reduce*) override { FAIL("Reduce after lowering"); }
};

inline ContractChecker check_contract(const LoweredFunc& f) {
  ContractChecker checker;
  checker.visit(f.body);
  return checker;
}

// Lowers `sch`, runs it on random inputs and compares the output (the last argument) with the
// tensor-expression interpreter's value of `reference` (the output as the user defined it).
inline LoweredFunc check_lowering(const Schedule& sch, const std::vector<Tensor>& inputs, const Tensor& reference,
                                  double tolerance = 1e-4) {
  std::vector<Tensor> args = inputs;
  args.push_back(reference);
  LoweredFunc f = lower(sch, args, "kernel");
  INFO("lowered:\n" << f);
  check_contract(f);
  std::vector<NDArray> values;
  std::vector<std::pair<Tensor, NDArray>> bindings;
  for (size_t i = 0; i < inputs.size(); ++i) {
    values.push_back(NDArray::random_uniform(inputs[i].shape(), inputs[i].dtype(), 100 + i));
    bindings.emplace_back(inputs[i], values.back());
  }
  NDArray expected = evaluate(reference, bindings);
  values.push_back(NDArray::zeros(reference.shape(), reference.dtype()));
  std::vector<NDArray*> pointers;
  for (NDArray& v : values) pointers.push_back(&v);
  run_lowered(f, pointers);
  CHECK(max_abs_diff(values.back(), expected) <= tolerance);
  return f;
}

// The extents of every Realize of the loop program, by tensor name.
class RealizeExtents : public IRVisitor {
 public:
  std::map<std::string, std::vector<int64_t>> extents;

 protected:
  void visit_node(const Realize* op) override {
    std::vector<int64_t> e;
    for (const Range& r : op->bounds) e.push_back(as_const_int(r.extent) ? *as_const_int(r.extent) : -1);
    extents[op->op->name] = e;
    IRVisitor::visit_node(op);
  }
};

inline std::map<std::string, std::vector<int64_t>> realize_extents(const Stmt& loops) {
  RealizeExtents r;
  r.visit(loops);
  return r.extents;
}

}  // namespace tessel::test
