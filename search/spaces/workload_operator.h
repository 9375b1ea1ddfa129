// The operator plugin interface (kind "operator"): what makes an operator tunable by name. An
// operator parses the shapes of its workloads ("gemm:M,N,K"), may know reference workloads by
// name ("C6"), and builds its tensor expression in the canonical layout, from which the workload
// key (search/spaces/workload_key.h) is computed. Schedule spaces then find their template by the operator's
// name (search/spaces/operator_templates.h), so a new operator becomes tunable by registering it
// and its template, without editing any switch.
//
// An operator's shape is its own struct (GemmShape, Conv2dShape, ...); ShapedOperator<Shape> does
// the type erasure, so an implementation writes typed functions:
//
//   class MyOperator : public ShapedOperator<MyShape> {
//     std::string forms() const override { return "mine:N"; }
//     MyShape parse(const std::string& text) const override { ... }
//     std::vector<Tensor> expression(const MyShape& s) const override { ... }   // inputs, then output
//     double flops(const MyShape& s) const override { ... }
//     int64_t reduction_size(const MyShape& s) const override { ... }
//     std::string describe(const MyShape& s) const override { ... }
//   };
//   TESSEL_REGISTER_PLUGIN(WorkloadOperator, mine, "my operator", {}, [](const PluginParams&) {
//     return std::make_unique<MyOperator>(); });
#pragma once
#include <any>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "support/error.h"

namespace tessel::search {

class WorkloadOperator {
 public:
  static constexpr const char* kPluginKind = "operator";
  virtual ~WorkloadOperator() = default;

  // How its workloads are written, for messages: "gemm:N, gemm:M,N,K".
  virtual std::string forms() const = 0;
  // The shape written after "<op>:"; throws UserError saying what is wrong and what is valid.
  virtual std::any parse_shape(const std::string& text) const = 0;
  // The shape of a reference workload of this operator called `name` ("C6"), if there is one.
  virtual std::optional<std::any> named_shape(const std::string& name) const { return std::nullopt; }

  // The tensor expression in the operator's canonical layout: inputs in call order, then output.
  virtual std::vector<Tensor> expression_of(const std::any& shape) const = 0;
  virtual double flops_of(const std::any& shape) const = 0;
  // Products summed into each output element (sets the accepted rounding error).
  virtual int64_t reduction_size_of(const std::any& shape) const = 0;
  virtual std::string describe_of(const std::any& shape) const = 0;
};

template <typename Shape>
class ShapedOperator : public WorkloadOperator {
 public:
  virtual Shape parse(const std::string& text) const = 0;
  virtual std::vector<Tensor> expression(const Shape& shape) const = 0;
  virtual double flops(const Shape& shape) const = 0;
  virtual int64_t reduction_size(const Shape& shape) const = 0;
  virtual std::string describe(const Shape& shape) const = 0;

  std::any parse_shape(const std::string& text) const final { return parse(text); }
  std::vector<Tensor> expression_of(const std::any& shape) const final { return expression(cast(shape)); }
  double flops_of(const std::any& shape) const final { return flops(cast(shape)); }
  int64_t reduction_size_of(const std::any& shape) const final { return reduction_size(cast(shape)); }
  std::string describe_of(const std::any& shape) const final { return describe(cast(shape)); }

 private:
  static const Shape& cast(const std::any& shape) {
    const Shape* s = std::any_cast<Shape>(&shape);
    TESSEL_CHECK(s != nullptr, "an operator was given the shape of another operator");
    return *s;
  }
};

}  // namespace tessel::search
