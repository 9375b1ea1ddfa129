// C text of expressions. Binary operations are fully parenthesized (the C output is for a compiler
// first; ir/printer.h is the readable form); integer types narrower than int are cast back after
// arithmetic because C promotes them, and integer Div/Mod go through the floor helpers.
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

#include "backends/c_source/c_codegen_internal.h"
#include "backends/cpu_contract.h"
#include "ir/tensor.h"
#include "support/error.h"

namespace tessel::c_source {

std::string c_type(DataType t) {
  t = t.element();
  if (t.is_bool()) return "bool";
  if (t.is_float() && t.bits == 32) return "float";
  if (t.is_float() && t.bits == 64) return "double";
  if ((t.is_int() || t.is_uint()) && (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64))
    return std::string(t.is_uint() ? "uint" : "int") + std::to_string(t.bits) + "_t";
  user_error("the c_source back end cannot represent type ", t.str(),
             ": use bool, float32, float64 or an 8/16/32/64-bit integer");
}

std::string c_suffix(DataType t) {
  const char* code = t.is_float() ? "f" : t.is_uint() ? "u" : "i";
  return code + std::to_string(t.bits);
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  return out;
}

std::string CEmitter::expr(const Expr& e) {
  TESSEL_CHECK(e.defined(), "undefined expression in a lowered function");
  visit(e);
  return result_;
}

std::string CEmitter::lane_type_cast(DataType t, const std::string& text) const {
  bool narrow = (t.is_int() || t.is_uint()) && !t.is_bool() && t.bits < 32;
  return narrow ? "((" + c_type(t) + ")" + text + ")" : text;
}

template <typename T>
void CEmitter::arithmetic(const T* op, const char* c_op, const char* helper) {
  DataType t = op->type.element();
  std::string a = expr(op->a), b = expr(op->b);
  bool is_div_mod = T::kKind == NodeKind::Div || T::kKind == NodeKind::Mod;
  // Floor helpers for signed Div/Mod and float Mod; min/max always; plain C operators otherwise
  // (unsigned floor division is C division).
  bool use_helper = !c_op || (is_div_mod && t.is_int()) || (T::kKind == NodeKind::Mod && t.is_float());
  if (use_helper) result_ = std::string(helper) + "_" + c_suffix(t) + "(" + a + ", " + b + ")";
  else result_ = lane_type_cast(t, "(" + a + " " + c_op + " " + b + ")");
}

template <typename T>
void CEmitter::comparison(const T* op, const char* c_op) {
  std::string a = expr(op->a), b = expr(op->b);
  result_ = "(" + a + " " + c_op + " " + b + ")";
}

void CEmitter::visit_node(const Add* op) { arithmetic(op, "+", nullptr); }
void CEmitter::visit_node(const Sub* op) { arithmetic(op, "-", nullptr); }
void CEmitter::visit_node(const Mul* op) { arithmetic(op, "*", nullptr); }
void CEmitter::visit_node(const Div* op) { arithmetic(op, "/", "floordiv"); }
void CEmitter::visit_node(const Mod* op) { arithmetic(op, "%", "floormod"); }
void CEmitter::visit_node(const Min* op) { arithmetic(op, nullptr, "min"); }
void CEmitter::visit_node(const Max* op) { arithmetic(op, nullptr, "max"); }
void CEmitter::visit_node(const EQ* op) { comparison(op, "=="); }
void CEmitter::visit_node(const NE* op) { comparison(op, "!="); }
void CEmitter::visit_node(const LT* op) { comparison(op, "<"); }
void CEmitter::visit_node(const LE* op) { comparison(op, "<="); }
void CEmitter::visit_node(const GT* op) { comparison(op, ">"); }
void CEmitter::visit_node(const GE* op) { comparison(op, ">="); }
void CEmitter::visit_node(const And* op) { comparison(op, "&&"); }
void CEmitter::visit_node(const Or* op) { comparison(op, "||"); }
void CEmitter::visit_node(const Not* op) { result_ = "(!" + expr(op->a) + ")"; }

std::string CEmitter::constant_int(int64_t value, DataType t) const {
  if (t.is_bool()) return value ? "true" : "false";
  if (t.is_uint() && t.bits == 64) return "UINT64_C(" + std::to_string(static_cast<uint64_t>(value)) + ")";
  if (t.bits == 64) return value == std::numeric_limits<int64_t>::min() ? "INT64_MIN" : "INT64_C(" + std::to_string(value) + ")";
  if (t.is_int() && t.bits == 32) return value < 0 ? "(" + std::to_string(value) + ")" : std::to_string(value);
  return "((" + c_type(t) + ")" + std::to_string(value) + ")";
}

std::string CEmitter::constant_float(double value, DataType t) const {
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value < 0 ? "(-INFINITY)" : "INFINITY";
  char buf[64];
  std::snprintf(buf, sizeof buf, t.bits == 32 ? "%.9g" : "%.17g", value);
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (t.bits == 32) text += "f";
  return value < 0 ? "(" + text + ")" : text;
}

void CEmitter::visit_node(const IntImm* op) { result_ = constant_int(op->value, op->type); }
void CEmitter::visit_node(const FloatImm* op) { result_ = constant_float(op->value, op->type); }

void CEmitter::visit_node(const VarNode* op) {
  const std::string* name = names_.find(op);
  if (!name) user_error("variable '", op->name, "' is used outside the statement that binds it; lowering left it free");
  if (lane_arrays_.count(op)) {
    TESSEL_CHECK(!lane_.empty(), "vector variable ", op->name, " read outside a per-lane loop");
    result_ = *name + "[" + lane_ + "]";
  } else {
    result_ = *name;
  }
}

void CEmitter::visit_node(const Select* op) {
  std::string c = expr(op->cond), t = expr(op->true_value), f = expr(op->false_value);
  result_ = "(" + c + " ? " + t + " : " + f + ")";
}

void CEmitter::visit_node(const Cast* op) {
  std::string value = expr(op->value);
  result_ = op->type.is_bool() ? "(" + value + " != 0)" : "((" + c_type(op->type) + ")" + value + ")";
}

// Pure math calls are the libm functions of the same name (expf for float32), sigmoid a helper.
void CEmitter::visit_node(const Call* op) {
  static const std::unordered_set<std::string> known = {"exp",   "log",  "sqrt",  "fabs", "floor",
                                                        "ceil", "round", "trunc", "tanh", "sigmoid"};
  TESSEL_CHECK(!op->intrinsic->is_statement(), "statement intrinsic ", op->name, " inside an expression");
  if (!known.count(op->name)) refuse_intrinsic(*op->intrinsic, "c_source", kImplementedIntrinsics);
  std::string arg = expr(op->args[0]);
  bool single = op->type.bits == 32;
  if (op->name == "sigmoid") result_ = "sigmoid_" + c_suffix(op->type.element()) + "(" + arg + ")";
  else result_ = op->name + (single ? "f(" : "(") + arg + ")";
}

void CEmitter::visit_node(const TensorRead* op) {
  user_error("the c_source back end got a TensorRead of '", op->op->name,
             "': only lowered (flattened) functions can be compiled; lower the schedule first");
}

void CEmitter::visit_node(const Reduce*) {
  user_error("the c_source back end got a Reduce: only lowered functions can be compiled; lower the schedule first");
}

std::string CEmitter::buffer_name(const Buffer& b) const {
  const std::string* name = names_.find(b.get());
  if (!name) user_error("buffer '", b.name(), "' is neither an argument nor allocated in this function");
  return *name;
}

void CEmitter::visit_node(const Load* op) {
  std::string index = expr(op->index);
  result_ = buffer_name(op->buffer) + "[" + index + "]";
}

void CEmitter::visit_node(const Ramp* op) {
  TESSEL_CHECK(!lane_.empty(), "a Ramp outside a vector store or vector let");
  std::string lane = lane_;
  lane_.clear();  // base and stride are scalars
  std::string base = expr(op->base), stride = expr(op->stride);
  lane_ = lane;
  std::string offset = is_const_int(op->stride, 1) ? lane : "(" + lane + " * " + stride + ")";
  result_ = "(" + base + " + " + offset + ")";
}

void CEmitter::visit_node(const Broadcast* op) {
  TESSEL_CHECK(!lane_.empty(), "a Broadcast outside a vector store or vector let");
  std::string lane = lane_;
  lane_.clear();
  result_ = expr(op->value);
  lane_ = lane;
}

void CEmitter::visit_node(const Let* op) {
  // A GNU statement expression keeps the binding local to the expression. In a per-lane loop the
  // variable holds this lane's value, so it is a scalar.
  std::string value = expr(op->value);
  std::string name = names_.bind(op->var.get(), op->var.name());
  std::string body = expr(op->body);
  names_.release(op->var.get());
  result_ = "({ const " + c_type(op->var.type()) + " " + name + " = " + value + "; " + body + "; })";
}

}  // namespace tessel::c_source
