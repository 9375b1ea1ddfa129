// One walk over a lowered function collecting loops, bodies, accesses and operation counts.
#include "costmodels/loop_summary.h"

#include <unordered_map>

#include "ir/visitor.h"
#include "passes/arith/linear_form.h"
#include "support/error.h"

namespace tessel::features_detail {

namespace {

// Counts the operations of an expression and collects its loads. A float add or subtract of a
// product counts as one fused multiply-add, as the back end emits it.
class OpCounter : public IRVisitor {
 public:
  OpCounts ops;
  std::vector<const Load*> loads;

 protected:
  void visit_node(const Add* op) override { additive(op, op->a, op->b); }
  void visit_node(const Sub* op) override { additive(op, op->a, op->b); }
  void visit_node(const Mul* op) override { arith(op, ops.float_mul, op->a, op->b); }
#define TESSEL_COUNT_OTHER(T) \
  void visit_node(const T* op) override { arith(op, ops.float_other, op->a, op->b); }
  TESSEL_COUNT_OTHER(Div) TESSEL_COUNT_OTHER(Mod) TESSEL_COUNT_OTHER(Min) TESSEL_COUNT_OTHER(Max)
#undef TESSEL_COUNT_OTHER
#define TESSEL_COUNT_INT(T)                    \
  void visit_node(const T* op) override {      \
    ops.int_ops += op->type.lanes;             \
    IRVisitor::visit_node(op);                 \
  }
  TESSEL_COUNT_INT(EQ) TESSEL_COUNT_INT(NE) TESSEL_COUNT_INT(LT) TESSEL_COUNT_INT(LE) TESSEL_COUNT_INT(GT)
  TESSEL_COUNT_INT(GE) TESSEL_COUNT_INT(And) TESSEL_COUNT_INT(Or) TESSEL_COUNT_INT(Not)
#undef TESSEL_COUNT_INT
  void visit_node(const Select* op) override {
    (op->type.is_float() ? ops.float_other : ops.int_ops) += op->type.lanes;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Call* op) override {
    ops.math_calls += op->type.lanes;
    IRVisitor::visit_node(op);
  }
  void visit_node(const Load* op) override {
    loads.push_back(op);
    IRVisitor::visit_node(op);
  }

 private:
  void arith(const ExprNode* op, double& float_counter, const Expr& a, const Expr& b) {
    (op->type.is_float() ? float_counter : ops.int_ops) += op->type.lanes;
    visit(a);
    visit(b);
  }
  void additive(const ExprNode* op, const Expr& a, const Expr& b) {
    const Mul* product = a.as<Mul>() ? a.as<Mul>() : b.as<Mul>();
    if (!op->type.is_float() || !product) return arith(op, ops.float_add, a, b);
    ops.float_fma += op->type.lanes;
    visit(product->a);
    visit(product->b);
    visit(a.as<Mul>() ? b : a);
  }
};

// Strides of an index expression with respect to the loops enclosing a body.
class IndexAnalyzer {
 public:
  IndexAnalyzer(const std::unordered_map<const VarNode*, int>& loop_position,
                const std::unordered_map<const VarNode*, Expr>& lets, size_t depth)
      : loop_position_(loop_position), lets_(lets), depth_(depth) {}

  Access analyze(int buffer, bool is_store, const Expr& index) const {
    Access access{buffer, is_store, index.type().lanes, 0, std::vector<double>(depth_, 0.0), 0, true};
    double offset = 0;
    if (const Ramp* ramp = index.as<Ramp>()) {
      const int64_t* stride = as_const_int(ramp->stride);
      access.vector_stride = stride ? static_cast<double>(*stride) : 1.0;
      access.affine = stride != nullptr;
      add_linear(ramp->base, 1.0, access, offset);
    } else if (const Broadcast* broadcast = index.as<Broadcast>()) {
      add_linear(broadcast->value, 1.0, access, offset);
    } else {
      add_linear(index, 1.0, access, offset);
    }
    access.offset = static_cast<int64_t>(offset);
    return access;
  }

 private:
  // Adds scale * e to the access's strides and offset; parts that are not linear in loop
  // variables clear `affine` but still contribute their approximate strides.
  void add_linear(const Expr& e, double scale, Access& access, double& offset) const {
    if (e.type().lanes != 1 || !e.type().is_index()) {
      access.affine = false;
      return;
    }
    arith::LinearForm form = arith::to_linear(e);
    offset += scale * static_cast<double>(form.constant);
    for (const arith::LinearTerm& term : form.terms) add_atom(term.atom, scale * static_cast<double>(term.coef), access, offset);
  }

  void add_atom(const Expr& atom, double scale, Access& access, double& offset) const {
    if (const VarNode* var = atom.as<VarNode>()) {
      if (auto loop = loop_position_.find(var); loop != loop_position_.end()) {
        access.strides[loop->second] += scale;
      } else if (auto let = lets_.find(var); let != lets_.end()) {
        add_linear(let->second, scale, access, offset);
      } else {
        access.affine = false;
      }
      return;
    }
    access.affine = false;
    const Div* div = atom.as<Div>();
    const Mod* mod = atom.as<Mod>();
    const int64_t* divisor = div ? as_const_int(div->b) : mod ? as_const_int(mod->b) : nullptr;
    if (!divisor || *divisor <= 0) return;
    if (div) add_linear(div->a, scale / static_cast<double>(*divisor), access, offset);
    if (mod) add_linear(mod->a, scale, access, offset);
  }

  const std::unordered_map<const VarNode*, int>& loop_position_;
  const std::unordered_map<const VarNode*, Expr>& lets_;
  size_t depth_;
};

class LoopSummarizer : public IRVisitor {
 public:
  explicit LoopSummarizer(const LoweredFunc& func) {
    for (const FuncArg& arg : func.args) {
      double elements = 1;
      for (int64_t d : arg.shape) elements *= static_cast<double>(d);
      add_buffer(arg.buffer, elements);
    }
  }
  LoopSummary summary;

 protected:
  void visit_node(const For* op) override {
    const int64_t* extent = as_const_int(op->extent);
    int id = static_cast<int>(summary.loops.size());
    summary.loops.push_back(SummaryLoop{extent ? *extent : 1, op->kind == ForKind::Parallel, {}});
    children().push_back(ChildRef{true, id});
    loop_position_[op->var.operator->()] = static_cast<int>(path_.size());
    path_.push_back(id);
    visit(op->body);
    path_.pop_back();
    loop_position_.erase(op->var.operator->());
  }

  void visit_node(const Store* op) override {
    Body& body = current_body();
    OpCounter counter;
    counter.visit(op->value);
    counter.visit(op->index);
    add_ops(body.ops, counter.ops);
    IndexAnalyzer analyzer(loop_position_, lets_, path_.size());
    body.accesses.push_back(analyzer.analyze(buffer_index(op->buffer), true, op->index));
    for (const Load* load : counter.loads)
      body.accesses.push_back(analyzer.analyze(buffer_index(load->buffer), false, load->index));
    body.stores += 1;
    body.loads += static_cast<int>(counter.loads.size());
    body.guards = std::max(body.guards, guard_depth_);
    body.lanes = std::max(body.lanes, static_cast<int>(op->index.type().lanes));
  }

  void visit_node(const Allocate* op) override {
    const int64_t* size = as_const_int(op->size);
    double elements = size ? static_cast<double>(*size) : 0.0;
    add_buffer(op->buffer, elements);
    summary.local_alloc_bytes += elements * op->buffer.dtype().bytes();
    summary.local_allocs += 1;
    visit(op->body);
  }

  void visit_node(const IfThenElse* op) override {
    ++guard_depth_;
    visit(op->then_case);
    if (op->else_case.defined()) visit(op->else_case);
    --guard_depth_;
  }

  void visit_node(const LetStmt* op) override {
    lets_[op->var.operator->()] = op->value;
    visit(op->body);
  }

 private:
  std::vector<ChildRef>& children() { return path_.empty() ? summary.top : summary.loops[path_.back()].children; }

  // The body of the innermost enclosing loop, created at its first store.
  Body& current_body() {
    int key = path_.empty() ? -1 : path_.back();
    auto [it, created] = body_of_loop_.try_emplace(key, static_cast<int>(summary.bodies.size()));
    if (created) {
      Body body;
      body.path = path_;
      for (int loop : path_) body.trips *= static_cast<double>(summary.loops[loop].extent);
      summary.bodies.push_back(std::move(body));
      children().push_back(ChildRef{false, it->second});
    }
    return summary.bodies[it->second];
  }

  static void add_ops(OpCounts& total, const OpCounts& more) {
    total.float_add += more.float_add;
    total.float_mul += more.float_mul;
    total.float_fma += more.float_fma;
    total.float_other += more.float_other;
    total.math_calls += more.math_calls;
    total.int_ops += more.int_ops;
  }

  void add_buffer(const Buffer& buffer, double elements) {
    if (buffer_ids_.count(buffer.get())) return;
    buffer_ids_[buffer.get()] = static_cast<int>(summary.buffers.size());
    summary.buffers.push_back(BufferFacts{buffer.name(), buffer.dtype().bytes(),
                                          buffer->scope == MemoryScope::local(), elements});
  }

  int buffer_index(const Buffer& buffer) {
    add_buffer(buffer, 0.0);  // a buffer neither passed nor allocated: size unknown
    return buffer_ids_.at(buffer.get());
  }

  std::vector<int> path_;
  int guard_depth_ = 0;
  std::unordered_map<const VarNode*, int> loop_position_;
  std::unordered_map<const VarNode*, Expr> lets_;
  std::unordered_map<int, int> body_of_loop_;
  std::unordered_map<const BufferNode*, int> buffer_ids_;
};

}  // namespace

LoopSummary summarize_loops(const LoweredFunc& func) {
  LoopSummarizer summarizer(func);
  summarizer.visit(func.body);
  return std::move(summarizer.summary);
}

}  // namespace tessel::features_detail
