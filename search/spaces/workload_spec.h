// A tuning workload named as on the command line (docs/workloads.md): "C6", "D3", "gemm:1024"
// (square), "gemm:M,N,K", "conv2d:N,C,H,W,OC,K,S,P", "depthwise:N,C,H,W,K,S,P". Bad names and
// shapes throw UserError with what is valid.
#pragma once
#include <string>
#include <variant>

#include "datasets/workloads.h"

namespace tessel::search {

struct WorkloadSpec {
  std::string name;  // as given: the key of its records
  std::variant<GemmShape, Conv2dShape, DepthwiseShape> shape;

  std::string op() const;  // "gemm" | "conv2d" | "depthwise"
  double flops() const;
  int64_t reduction_size() const;  // products summed into each output element
  std::string describe() const;
};

WorkloadSpec parse_workload(const std::string& name);

}  // namespace tessel::search
