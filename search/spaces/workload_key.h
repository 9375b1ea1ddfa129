// The canonical key of a workload: what it computes, independent of how it was named. Records are
// keyed by it, so "C6" and "conv2d:1,128,28,28,128,3,1,1" are one task, and a fused group of a
// model (whose anchor operator is built with fresh variables and tensors) finds the records of
// the same computation.
//
// The key is "<operator>/<16 hex digits>": the 64-bit FNV-1a hash of the canonical form of the
// operator's tensor expression. The canonical form writes every operation, producers first, with
// its dtype, shape, axis extents and body; placeholders are numbered by argument position,
// computes by position in topological order, and variables by where they are bound (output axis,
// reduction axis, let), so names, tags and node addresses do not enter it. It depends only on
// the computation, the shapes and the dtypes, is the same in every process, and changes only
// when the canonical form below is changed on purpose (tests/search/workload_key_test.cpp pins
// known keys).
//
//   std::vector<Tensor> te = {A, B, C};                  // inputs in call order, then the output
//   std::string key = workload_key("gemm", te);          // "gemm/5be1f7a2c3d4e5f6"
#pragma once
#include <string>
#include <vector>

#include "ir/tensor.h"

namespace tessel::search {

// The canonical text of a tensor expression given as its arguments (inputs in call order, then the
// output). Throws InternalError for a free variable or a node that has no place in a tensor
// expression (loads, ramps: loop-IR nodes).
std::string canonical_form(const std::vector<Tensor>& args);

// "<op>/<hash of canonical_form(args)>".
std::string workload_key(const std::string& op, const std::vector<Tensor>& args);

}  // namespace tessel::search
