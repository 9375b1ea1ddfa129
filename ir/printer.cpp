// The IR printer: one visitor writes expressions with precedence-aware parentheses and statements
// as indented blocks (see ir/printer.h for the conventions of the text).
#include "ir/printer.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "ir/intrinsic.h"
#include "ir/visitor.h"

namespace tessel {

namespace {

// Binding strength of an expression's outermost operator; leaves and call-like forms bind tightest.
enum Precedence : int { kOr = 1, kAnd, kEquality, kRelational, kAdditive, kMultiplicative, kUnary, kPrimary };

bool is_negative_constant(const Expr& e) {
  if (auto* i = e.as<IntImm>()) return i->value < 0 && !i->type.is_bool();
  if (auto* f = e.as<FloatImm>()) return std::signbit(f->value);
  return false;
}

int precedence(const Expr& e) {
  switch (e->kind) {
    case NodeKind::Or: return kOr;
    case NodeKind::And: return kAnd;
    case NodeKind::EQ: case NodeKind::NE: return kEquality;
    case NodeKind::LT: case NodeKind::LE: case NodeKind::GT: case NodeKind::GE: return kRelational;
    case NodeKind::Add: case NodeKind::Sub: return kAdditive;
    case NodeKind::Mul: case NodeKind::Div: case NodeKind::Mod: return kMultiplicative;
    case NodeKind::Not: return kUnary;
    default: return is_negative_constant(e) ? kUnary : kPrimary;
  }
}

// Shortest text that reads back as the same value, always marked as floating point.
std::string float_text(double value, DataType type) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = type.bits == 32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value))
                             : std::to_chars(buf, buf + sizeof buf, value);
  std::string text(buf, res.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (type.bits == 32) text += "f";
  else if (type.bits != 64) text += "f" + std::to_string(type.bits);
  return text;
}

std::string int_text(int64_t value, DataType type) {
  if (type.is_bool()) return value ? "true" : "false";
  std::string text = std::to_string(value);
  if (type.is_int() && type.bits == 32) return text;
  return text + (type.is_uint() ? "u" : "i") + std::to_string(type.bits);
}

class IRPrinter : public IRVisitor {
 public:
  explicit IRPrinter(std::ostream& os) : os_(os) {}

  // Prints e, parenthesized if it binds more loosely than its context requires.
  void print(const Expr& e, int context = 0) {
    if (!e.defined()) {
      os_ << "<undefined>";
      return;
    }
    bool paren = precedence(e) < context;
    if (paren) os_ << "(";
    visit(e);
    if (paren) os_ << ")";
  }

  void print(const Stmt& s) {
    if (!s.defined()) return;
    visit(s);
  }

  void print_list(const std::vector<Expr>& exprs) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (i) os_ << ", ";
      print(exprs[i]);
    }
  }

  void indent(int delta) { indent_ += delta; }

 protected:
  void infix(const char* op, int prec, const Expr& a, const Expr& b) {
    print(a, prec);
    os_ << op;
    print(b, prec + 1);
  }
  void call_like(const char* name, std::initializer_list<Expr> args) {
    os_ << name << "(";
    print_list(args);
    os_ << ")";
  }

  void visit_node(const Add* op) override { infix(" + ", kAdditive, op->a, op->b); }
  void visit_node(const Sub* op) override { infix(" - ", kAdditive, op->a, op->b); }
  void visit_node(const Mul* op) override { infix("*", kMultiplicative, op->a, op->b); }
  void visit_node(const Div* op) override { infix("/", kMultiplicative, op->a, op->b); }
  void visit_node(const Mod* op) override { infix("%", kMultiplicative, op->a, op->b); }
  void visit_node(const Min* op) override { call_like("min", {op->a, op->b}); }
  void visit_node(const Max* op) override { call_like("max", {op->a, op->b}); }
  void visit_node(const EQ* op) override { infix(" == ", kEquality, op->a, op->b); }
  void visit_node(const NE* op) override { infix(" != ", kEquality, op->a, op->b); }
  void visit_node(const LT* op) override { infix(" < ", kRelational, op->a, op->b); }
  void visit_node(const LE* op) override { infix(" <= ", kRelational, op->a, op->b); }
  void visit_node(const GT* op) override { infix(" > ", kRelational, op->a, op->b); }
  void visit_node(const GE* op) override { infix(" >= ", kRelational, op->a, op->b); }
  void visit_node(const And* op) override { infix(" && ", kAnd, op->a, op->b); }
  void visit_node(const Or* op) override { infix(" || ", kOr, op->a, op->b); }

  void visit_node(const IntImm* op) override { os_ << int_text(op->value, op->type); }
  void visit_node(const FloatImm* op) override { os_ << float_text(op->value, op->type); }
  void visit_node(const VarNode* op) override { os_ << op->name; }
  void visit_node(const Not* op) override {
    os_ << "!";
    print(op->a, kUnary);
  }
  void visit_node(const Select* op) override { call_like("select", {op->cond, op->true_value, op->false_value}); }
  void visit_node(const Cast* op) override { call_like(op->type.str().c_str(), {op->value}); }
  void visit_node(const Call* op) override {
    os_ << op->name << "(";
    for (size_t i = 0; i < op->args.size(); ++i) {
      os_ << (i ? ", " : "") << (op->intrinsic->is_address_arg(i) ? "&" : "");
      print(op->args[i]);
    }
    os_ << ")";
  }
  void visit_node(const TensorRead* op) override {
    os_ << op->op->name << "[";
    print_list(op->indices);
    os_ << "]";
  }
  void visit_node(const Reduce* op) override {
    os_ << reduce_op_name(op->combiner) << "(";
    print(op->source);
    os_ << ", axis=[";
    for (size_t i = 0; i < op->axes.size(); ++i) os_ << (i ? ", " : "") << op->axes[i].name();
    os_ << "]";
    if (!is_const_int(op->condition, 1)) {
      os_ << ", where=";
      print(op->condition);
    }
    if (op->init.defined()) {
      os_ << ", init=";
      print(op->init);
    }
    os_ << ")";
  }
  void visit_node(const Load* op) override {
    os_ << op->buffer.name() << "[";
    print(op->index);
    os_ << "]";
  }
  void visit_node(const Ramp* op) override {
    os_ << "ramp(";
    print_list({op->base, op->stride});
    os_ << ", " << op->lanes << ")";
  }
  void visit_node(const Broadcast* op) override {
    os_ << "x" << op->lanes << "(";
    print(op->value);
    os_ << ")";
  }
  void visit_node(const Let* op) override {
    os_ << "(let " << op->var.name() << " = ";
    print(op->value);
    os_ << " in ";
    print(op->body);
    os_ << ")";
  }

  void line_start() { os_ << std::string(2 * indent_, ' '); }
  void block(const Stmt& body) {
    os_ << " {\n";
    ++indent_;
    print(body);
    --indent_;
    line_start();
    os_ << "}";
  }

  void visit_node(const For* op) override {
    line_start();
    os_ << for_kind_name(op->kind) << " (" << op->var.name() << ", ";
    print(op->min);
    os_ << ", ";
    print(op->extent);
    if (!op->thread_tag.empty()) os_ << ", " << op->thread_tag;
    os_ << ")";
    block(op->body);
    os_ << "\n";
  }
  void visit_node(const Store* op) override {
    line_start();
    os_ << op->buffer.name() << "[";
    print(op->index);
    os_ << "] = ";
    print(op->value);
    os_ << "\n";
  }
  void visit_node(const Provide* op) override {
    line_start();
    os_ << op->op->name << "(";
    print_list(op->indices);
    os_ << ") = ";
    print(op->value);
    os_ << "\n";
  }
  void visit_node(const Realize* op) override {
    line_start();
    os_ << "realize " << op->op->name << "(";
    for (size_t i = 0; i < op->bounds.size(); ++i) {
      os_ << (i ? ", " : "") << "[";
      print(op->bounds[i].min);
      os_ << ", ";
      print(op->bounds[i].extent);
      os_ << "]";
    }
    os_ << ")";
    scope_suffix(op->scope);
    block(op->body);
    os_ << "\n";
  }
  void visit_node(const Allocate* op) override {
    line_start();
    os_ << "allocate " << op->buffer.name() << "[" << op->buffer.dtype().str() << " * ";
    print(op->size);
    os_ << "]";
    scope_suffix(op->buffer.scope());
    block(op->body);
    os_ << "\n";
  }
  void visit_node(const IfThenElse* op) override {
    line_start();
    os_ << "if (";
    print(op->cond);
    os_ << ")";
    block(op->then_case);
    if (op->else_case.defined()) {
      os_ << " else";
      block(op->else_case);
    }
    os_ << "\n";
  }
  void visit_node(const Seq* op) override {
    for (const Stmt& s : op->stmts) print(s);
  }
  void visit_node(const LetStmt* op) override {
    line_start();
    os_ << "let " << op->var.name() << " = ";
    print(op->value);
    os_ << "\n";
    print(op->body);
  }
  void visit_node(const Evaluate* op) override {
    line_start();
    print(op->value);
    os_ << "\n";
  }
  void visit_node(const AttrStmt* op) override {
    line_start();
    os_ << "attr ";
    if (auto* var = std::get_if<Var>(&op->subject)) os_ << "[" << var->name() << "] ";
    if (auto* buffer = std::get_if<Buffer>(&op->subject)) os_ << "[" << buffer->name() << "] ";
    if (auto* name = std::get_if<std::string>(&op->subject)) os_ << "[\"" << *name << "\"] ";
    os_ << op->key << " = ";
    print(op->value);
    block(op->body);
    os_ << "\n";
  }

  void scope_suffix(const MemoryScope& scope) {
    if (scope != MemoryScope::local()) os_ << " @" << scope.name();
  }

 private:
  std::ostream& os_;
  int indent_ = 0;
};

template <typename T>
std::string stream_to_string(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

void print_shape(std::ostream& os, DataType dtype, const std::vector<int64_t>& shape) {
  os << dtype.str() << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
}

void print_domain(std::ostream& os, const IterVar& iv) {
  const int64_t *min = as_const_int(iv->dom.min), *extent = as_const_int(iv->dom.extent);
  os << iv.name() << " in [" << iv->dom.min << ", ";
  if (min && extent) os << *min + *extent;
  else os << iv->dom.min + iv->dom.extent;
  os << ")";
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Expr& e) {
  IRPrinter(os).print(e);
  return os;
}

std::ostream& operator<<(std::ostream& os, const Stmt& s) {
  IRPrinter(os).print(s);
  return os;
}

std::ostream& operator<<(std::ostream& os, const LoweredFunc& f) {
  os << "func " << f.name << "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    os << (i ? ", " : "") << f.args[i].buffer.name() << ": ";
    print_shape(os, f.args[i].buffer.dtype(), f.args[i].shape);
  }
  os << ") {\n";
  IRPrinter printer(os);
  printer.indent(1);
  printer.print(f.body);
  return os << "}\n";
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  const OperationNode* op = t.get();
  if (op->is_placeholder()) {
    os << op->name << " = placeholder  // ";
    print_shape(os, op->dtype, op->shape);
    return os;
  }
  os << op->name << "[";
  for (size_t i = 0; i < op->axis.size(); ++i) os << (i ? ", " : "") << op->axis[i].name();
  os << "] = " << op->body << "  // ";
  print_shape(os, op->dtype, op->shape);
  if (!op->tag.empty()) os << ", tag " << op->tag;
  for (const IterVar& iv : op->reduce_axis) {
    os << ", ";
    print_domain(os, iv);
  }
  return os;
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
  }
  return "?";
}

std::string to_string(const Expr& e) { return stream_to_string(e); }
std::string to_string(const Stmt& s) { return stream_to_string(s); }
std::string to_string(const LoweredFunc& f) { return stream_to_string(f); }
std::string to_string(const Tensor& t) { return stream_to_string(t); }

std::string to_string(const std::vector<Tensor>& outputs) {
  std::ostringstream os;
  for (const Tensor& t : topological_order(outputs)) os << t << "\n";
  return os.str();
}

}  // namespace tessel
