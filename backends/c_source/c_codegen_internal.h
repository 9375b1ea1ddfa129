// The C emitter shared by c_codegen_expr.cpp (expressions, scalar and per-lane) and
// c_codegen_stmt.cpp (statements and the function around them). Private to backends/c_source.
#pragma once
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/stmt.h"
#include "ir/visitor.h"

namespace tessel::c_source {

// The C spelling of a scalar element type: float, int32_t, bool, ...
std::string c_type(DataType t);
// The suffix of the helpers for a type: i32, u8, f32, ...
std::string c_suffix(DataType t);
// Turns an IR name into a C identifier ("i.outer" -> "i_outer").
std::string sanitize(const std::string& name);
// Helper functions and includes every generated file starts with.
const char* c_prelude();
// The intrinsics the back end implements, for messages.
inline constexpr const char* kImplementedIntrinsics =
    "exp, log, sqrt, fabs, floor, ceil, round, trunc, tanh, sigmoid, prefetch, prefetch_l2 and fill";

// C names of variables and buffers. A name is unique among the names in scope; names released
// when their scope closes may be reused by later siblings.
class NameTable {
 public:
  NameTable();
  std::string bind(const void* key, const std::string& ir_name);
  void release(const void* key);
  // The name of a bound key, or nullptr.
  const std::string* find(const void* key) const;

 private:
  std::unordered_map<const void*, std::string> names_;
  std::unordered_set<std::string> live_;
};

class CEmitter : public IRVisitor {
 public:
  std::string function(const LoweredFunc& func);

  // Expression text; in a lane context (lane_ non-empty) vector nodes give their value at lane_.
  std::string expr(const Expr& e);

 protected:
  // expressions (c_codegen_expr.cpp)
#define TESSEL_DECLARE(T) void visit_node(const T* op) override;
  TESSEL_BINARY_NODES(TESSEL_DECLARE)
  TESSEL_OTHER_EXPR_NODES(TESSEL_DECLARE)
  TESSEL_STMT_NODES(TESSEL_DECLARE)
#undef TESSEL_DECLARE

 private:
  template <typename T>
  void arithmetic(const T* op, const char* c_op, const char* helper);
  template <typename T>
  void comparison(const T* op, const char* c_op);
  std::string lane_type_cast(DataType t, const std::string& text) const;
  std::string constant_int(int64_t value, DataType t) const;
  std::string constant_float(double value, DataType t) const;
  std::string buffer_name(const Buffer& b) const;

  // statements (c_codegen_stmt.cpp)
  std::ostream& line();
  void block(const Stmt& body);
  void lane_loop(int lanes, const std::function<void()>& body);
  void vector_store(const Store* op);
  void heap_or_stack_allocate(const Allocate* op, const std::string& name, int64_t size);
  void fill(const Call* op);

  std::ostringstream out_;
  std::string result_;  // the text of the last expression visited
  std::string lane_;    // the lane variable inside a per-lane loop, empty outside
  int indent_ = 0;
  NameTable names_;
  std::unordered_set<const VarNode*> lane_arrays_;  // vector variables stored one element per lane
};

}  // namespace tessel::c_source
