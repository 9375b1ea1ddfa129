// Tessel's side of each benchmark (benchmarks/tessel_kernels.h): the operator built from ops/ with
// its default CPU schedule, compiled by the llvm_cpu back end. Inputs are converted into the
// schedule's layout before timing, by compiled layout-transform ops; `run` calls the operator's
// kernel only; `read_output` converts the result back to the canonical layout.
//
// GEMM takes plain row-major A and B, like OpenBLAS: the B-panel packing is a stage of the timed
// kernel. For the convolutions, both sides are timed on pre-converted blocked layouts (oneDNN
// reorders into its own ahead of time too).
#include "benchmarks/tessel_kernels.h"

#include <cstring>
#include <memory>

#include "ops/build.h"
#include "ops/conv2d_nchwc.h"
#include "ops/depthwise_conv2d.h"
#include "ops/gemm.h"
#include "ops/layout_transform.h"
#include "runtime/thread_pool.h"

namespace tessel {

namespace {

NDArray copy_in(const float* data, std::vector<int64_t> shape) {
  NDArray a = NDArray::empty(std::move(shape), DataType::float32());
  std::memcpy(a.data(), data, a.nbytes());
  return a;
}

// `transform` of a placeholder `source`, compiled and applied to `input`.
NDArray convert(const Tensor& transform, const Tensor& source, const NDArray& input) {
  auto kernel = ops::build_default(transform, {source}, transform.name());
  NDArray out = NDArray::empty(transform.shape(), transform.dtype());
  ops::call_checked(*kernel, {input, out});
  return out;
}

// A kernel bound to its argument arrays: run() makes the call, nothing else.
PreparedKernel bind(std::shared_ptr<CompiledFunction> kernel, std::vector<NDArray> args,
                    std::function<void(const NDArray& result, float* out)> read) {
  auto pointers = std::make_shared<std::vector<void*>>();
  for (NDArray& a : args) pointers->push_back(a.data());
  NDArray result = args.back();
  auto arrays = std::make_shared<std::vector<NDArray>>(std::move(args));
  return PreparedKernel{"tessel",
                        [kernel, pointers, arrays] { kernel->call(pointers->data()); },
                        [result, read](float* out) { read(result, out); }};
}

void copy_out(const NDArray& result, float* out) { std::memcpy(out, result.data(), result.nbytes()); }

// read_output for blocked NCHWc results: a compiled NCHWc -> NCHW transform.
std::function<void(const NDArray&, float*)> unblocking_reader(const std::vector<int64_t>& blocked_shape) {
  Tensor blocked = placeholder(blocked_shape, DataType::float32(), "out_nchwc");
  Tensor plain = ops::nchwc_to_nchw(blocked, "out_nchw");
  std::shared_ptr<CompiledFunction> kernel = ops::build_default(plain, {blocked}, "unblock_output");
  return [kernel, plain](const NDArray& result, float* out) {
    NDArray canonical = NDArray::empty(plain.shape(), DataType::float32());
    ops::call_checked(*kernel, {result, canonical});
    copy_out(canonical, out);
  };
}

// The canonical inputs of a convolution as placeholders, their blocked layouts, and placeholders
// of the blocked layouts for the operator itself to read.
struct BlockedInputs {
  Tensor x, w, x_blocked, w_blocked, data, kernel;
  BlockedInputs(std::vector<int64_t> x_shape, std::vector<int64_t> w_shape, int64_t x_block, int64_t w_i_block,
                int64_t w_o_block)
      : x(placeholder(std::move(x_shape), DataType::float32(), "x")),
        w(placeholder(std::move(w_shape), DataType::float32(), "w")),
        x_blocked(ops::nchw_to_nchwc(x, x_block)),
        w_blocked(ops::oihw_to_oihwio(w, w_i_block, w_o_block)),
        data(placeholder(x_blocked.shape(), DataType::float32(), "data")),
        kernel(placeholder(w_blocked.shape(), DataType::float32(), "kernel")) {}
};

// `conv` of in.data and in.kernel, with x and w converted into its layouts ahead of time.
PreparedKernel prepare_blocked_conv(const BlockedInputs& in, const Tensor& conv, const float* x, const float* w) {
  NDArray xb = convert(in.x_blocked, in.x, copy_in(x, in.x.shape()));
  NDArray wb = convert(in.w_blocked, in.w, copy_in(w, in.w.shape()));
  std::shared_ptr<CompiledFunction> compiled = ops::build_default(conv, {in.data, in.kernel}, conv.name());
  NDArray y = NDArray::empty(conv.shape(), DataType::float32());
  return bind(compiled, {xb, wb, y}, unblocking_reader(conv.shape()));
}

}  // namespace

PreparedKernel prepare_tessel_gemm(const GemmShape& s, const float* a, const float* b, int threads) {
  set_num_threads(threads);
  Tensor ta = placeholder({s.m, s.k}, DataType::float32(), "A");
  Tensor tb = placeholder({s.k, s.n}, DataType::float32(), "B");
  Tensor tc = ops::gemm(ta, tb);
  std::shared_ptr<CompiledFunction> kernel = ops::build_default(tc, {ta, tb}, "gemm");
  NDArray c = NDArray::empty({s.m, s.n}, DataType::float32());
  return bind(kernel, {copy_in(a, {s.m, s.k}), copy_in(b, {s.k, s.n}), c}, copy_out);
}

PreparedKernel prepare_tessel_conv2d(const Conv2dShape& s, const float* x_nchw, const float* w_oihw, int threads) {
  set_num_threads(threads);
  ops::Conv2dBlocks blocks = ops::choose_conv2d_blocks(s.c, s.oc, s.groups);
  BlockedInputs in({s.n, s.c, s.h, s.w}, {s.oc, s.c / s.groups, s.kh, s.kw}, blocks.ib, blocks.ib, blocks.ob);
  ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {s.dilation, s.dilation}, s.groups};
  return prepare_blocked_conv(in, ops::conv2d_nchwc(in.data, in.kernel, params), x_nchw, w_oihw);
}

PreparedKernel prepare_tessel_depthwise(const DepthwiseShape& s, const float* x_nchw, const float* w_c1kk,
                                        int threads) {
  set_num_threads(threads);
  int64_t block = ops::choose_depthwise_block(s.c);
  BlockedInputs in({s.n, s.c, s.h, s.w}, {s.c, 1, s.k, s.k}, block, 1, block);
  ops::Conv2dParams params{{s.stride, s.stride}, {s.pad, s.pad}, {1, 1}, 1};
  return prepare_blocked_conv(in, ops::depthwise_conv2d_nchwc(in.data, in.kernel, params), x_nchw, w_c1kk);
}

}  // namespace tessel
