// Tessel's side of each benchmark (benchmarks/tessel_kernels.h): the operator instance of
// ops/workload_ops (the same tensor expression `tessel lower` and the tuner see) for the target with
// its default schedule, compiled by the target's back end. Inputs are converted into the instance's layouts
// before timing, by compiled layout-transform ops; `run` calls the operator's kernel only;
// `read_output` converts the result back to the canonical layout.
//
// GEMM takes plain row-major A and B, like OpenBLAS: the B-panel packing is a stage of the timed
// kernel. For the convolutions, both sides are timed on pre-converted blocked layouts (oneDNN
// reorders into its own ahead of time too).
#include "benchmarks/tessel_kernels.h"

#include <cstring>
#include <memory>

#include "ops/build.h"
#include "ops/conv2d_winograd.h"
#include "ops/layout_transform.h"
#include "ops/workload_ops.h"
#include "runtime/thread_pool.h"
#include "support/timing.h"

namespace tessel {

namespace {

using Reader = std::function<void(const NDArray& result, float* out)>;

NDArray copy_in(const float* data, std::vector<int64_t> shape) {
  NDArray a = NDArray::empty(std::move(shape), DataType::float32());
  std::memcpy(a.data(), data, a.nbytes());
  return a;
}

// `transform` of a placeholder `source`, compiled and applied to `input`.
NDArray convert(const Tensor& transform, const Tensor& source, NDArray input) {
  auto kernel = ops::build_default(transform, {source}, transform.name());
  NDArray out = NDArray::empty(transform.shape(), transform.dtype());
  kernel->run({&input, &out});
  return out;
}

// Canonical NCHW data, in the NCHWc layout of `blocked` ([N, C/b, H, W, b]).
NDArray block_data(const Tensor& blocked, const float* x, const std::vector<int64_t>& nchw) {
  Tensor plain = placeholder(nchw, DataType::float32(), "x");
  return convert(ops::nchw_to_nchwc(plain, blocked.shape()[4]), plain, copy_in(x, nchw));
}

// Canonical OIHW weights, in the OIHWio layout of `blocked` ([O/ob, I/ib, KH, KW, ib, ob]).
NDArray block_kernel(const Tensor& blocked, const float* w, const std::vector<int64_t>& oihw) {
  Tensor plain = placeholder(oihw, DataType::float32(), "w");
  return convert(ops::oihw_to_oihwio(plain, blocked.shape()[4], blocked.shape()[5]), plain, copy_in(w, oihw));
}

void copy_out(const NDArray& result, float* out) { std::memcpy(out, result.data(), result.nbytes()); }

// read_output for blocked NCHWc results: a compiled NCHWc -> NCHW transform.
Reader unblocking_reader(const std::vector<int64_t>& blocked_shape) {
  Tensor blocked = placeholder(blocked_shape, DataType::float32(), "out_nchwc");
  Tensor plain = ops::nchwc_to_nchw(blocked, "out_nchw");
  std::shared_ptr<CompiledFunction> kernel = ops::build_default(plain, {blocked}, "unblock_output");
  return [kernel, plain](const NDArray& result, float* out) {
    NDArray in = result;
    NDArray canonical = NDArray::empty(plain.shape(), DataType::float32());
    kernel->run({&in, &canonical});
    copy_out(canonical, out);
  };
}

// `op` compiled by `build` and bound to `inputs` (in op's layouts) and a fresh output: run() makes
// the call, nothing else.
PreparedKernel prepare(const ops::OpInstance& op, std::vector<NDArray> inputs, Reader read, const KernelBuilder& build) {
  std::shared_ptr<CompiledFunction> kernel = build(op);
  inputs.push_back(NDArray::empty(op.output.shape(), DataType::float32()));
  auto pointers = std::make_shared<std::vector<void*>>();
  for (NDArray& a : inputs) pointers->push_back(a.data());
  NDArray result = inputs.back();
  auto arrays = std::make_shared<std::vector<NDArray>>(std::move(inputs));
  auto evict_weights = [arrays] {
    for (size_t i = 1; i + 1 < arrays->size(); ++i) evict_from_caches((*arrays)[i].data(), (*arrays)[i].nbytes());
  };
  return PreparedKernel{"tessel", [kernel, pointers, arrays] { kernel->call(pointers->data()); },
                        [result, read](float* out) { read(result, out); }, evict_weights};
}

// A convolution instance with canonical data and weights converted into its blocked layouts.
PreparedKernel prepare_blocked(const ops::OpInstance& op, const float* x, const std::vector<int64_t>& nchw,
                               const float* w, const std::vector<int64_t>& oihw, const KernelBuilder& build) {
  return prepare(op, {block_data(op.inputs[0], x, nchw), block_kernel(op.inputs[1], w, oihw)},
                 unblocking_reader(op.output.shape()), build);
}

}  // namespace

KernelBuilder default_kernel_builder(const Target& target) {
  return [target](const ops::OpInstance& op) {
    return ops::build_default(op.output, op.inputs, op.output.name(), target);
  };
}

PreparedKernel prepare_tessel_gemm(const GemmShape& s, const float* a, const float* b, const Target& target,
                                   const KernelBuilder& build) {
  set_num_threads(target.cpu().threads);
  return prepare(ops::gemm_instance(s, target), {copy_in(a, {s.m, s.k}), copy_in(b, {s.k, s.n})}, copy_out, build);
}

PreparedKernel prepare_tessel_conv2d(const Conv2dShape& s, const float* x_nchw, const float* w_oihw,
                                     const Target& target, const KernelBuilder& build) {
  set_num_threads(target.cpu().threads);
  return prepare_blocked(ops::conv2d_instance(s, target), x_nchw, {s.n, s.c, s.h, s.w}, w_oihw,
                         {s.oc, s.c / s.groups, s.kh, s.kw}, build);
}

PreparedKernel prepare_tessel_winograd(const Conv2dShape& s, int64_t m, const float* x_nchw, const float* w_oihw,
                                       const Target& target) {
  set_num_threads(target.cpu().threads);
  ops::WinogradInstance w = ops::winograd_instance({s.n, s.c, s.h, s.w, s.oc, s.pad, m}, target);
  NDArray weights = ops::winograd_weights(copy_in(w_oihw, {s.oc, s.c, 3, 3}), m, w.weights.shape()[4]);
  return prepare({{w.data, w.weights}, w.output}, {block_data(w.data, x_nchw, {s.n, s.c, s.h, s.w}), weights},
                 unblocking_reader(w.output.shape()), default_kernel_builder(target));
}

PreparedKernel prepare_tessel_depthwise(const DepthwiseShape& s, const float* x_nchw, const float* w_c1kk,
                                        const Target& target, const KernelBuilder& build) {
  set_num_threads(target.cpu().threads);
  return prepare_blocked(ops::depthwise_instance(s, target), x_nchw, {s.n, s.c, s.h, s.w}, w_c1kk,
                         {s.c, 1, s.k, s.k}, build);
}

}  // namespace tessel
