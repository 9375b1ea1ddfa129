// A tuning workload: an operator (search/spaces/workload_operator.h) with its shape, and the label it was
// named by. Named as on the command line (docs/workloads.md): "C6", "D3", "gemm:1024" (square),
// "gemm:M,N,K", "conv2d:N,C,H,W,OC,K,S,P", "depthwise:N,C,H,W,K,S,P[,B]", or "<op>:..." for any
// registered operator. Bad names and shapes throw UserError with what is valid.
//
// The label is not the workload's identity: key() is (search/spaces/workload_key.h), so "C6" and
// "conv2d:1,128,28,28,128,3,1,1" have different names and the same key.
//
//   WorkloadSpec w = parse_workload("C6");
//   w.op() == "conv2d";  w.shape<Conv2dShape>().oc == 128;  w.key() == parse_workload("conv2d:1,128,...").key()
#pragma once
#include <any>
#include <memory>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "search/spaces/workload_operator.h"

namespace tessel::search {

class WorkloadSpec {
 public:
  // `op` is the operator's registry name; `shape` its shape struct. Computes the key.
  WorkloadSpec(std::string name, std::string op, std::any shape);

  std::string name;  // the label it was named by; records keep it for people, not for matching

  const std::string& op() const { return op_; }  // "gemm" | "conv2d" | "depthwise" | ...
  const std::string& key() const { return key_; }
  double flops() const { return operator_->flops_of(shape_); }
  int64_t reduction_size() const { return operator_->reduction_size_of(shape_); }
  std::string describe() const { return operator_->describe_of(shape_); }
  // The operator's tensor expression in its canonical layout (inputs, then output); built anew.
  std::vector<Tensor> expression() const { return operator_->expression_of(shape_); }

  // The shape, for code written for one operator (its template, its vendor baseline).
  // shape<S>() throws InternalError if the workload is of another operator; shape_if<S>() is null.
  template <typename Shape>
  const Shape* shape_if() const { return std::any_cast<Shape>(&shape_); }
  template <typename Shape>
  const Shape& shape() const {
    const Shape* s = shape_if<Shape>();
    TESSEL_CHECK(s != nullptr, "workload ", name, " is a ", op_, ", not the shape asked for");
    return *s;
  }

 private:
  std::string op_;
  std::shared_ptr<const WorkloadOperator> operator_;
  std::any shape_;
  std::string key_;
};

WorkloadSpec parse_workload(const std::string& name);

// What parse_workload accepts, from every registered operator, for messages.
std::string valid_workload_forms();

}  // namespace tessel::search
