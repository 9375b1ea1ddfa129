// The base of the operators whose shapes are the structs of datasets/workloads.h (gemm, conv2d,
// depthwise): the struct knows its FLOPs and description, and the reference workloads of the
// operator ("C6", "D3") are one of that file's lists.
#pragma once
#include <vector>

#include "datasets/workloads.h"
#include "search/spaces/workload_operator.h"

namespace tessel::search {

template <typename Shape>
class DatasetOperator : public ShapedOperator<Shape> {
 public:
  explicit DatasetOperator(const std::vector<Workload<Shape>>& references = {}) : references_(references) {}

  std::optional<std::any> named_shape(const std::string& name) const override {
    for (const Workload<Shape>& w : references_)
      if (w.name == name) return w.shape;
    return std::nullopt;
  }
  double flops(const Shape& shape) const final { return shape.flops(); }
  std::string describe(const Shape& shape) const final { return tessel::describe(shape); }

 private:
  std::vector<Workload<Shape>> references_;
};

}  // namespace tessel::search
