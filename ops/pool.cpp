// 2-D pooling and its CPU schedule (ops/pool.h).
#include "ops/pool.h"

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/window_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

struct PoolWindow {
  Tensor padded;
  IterVar ry, rx;
  std::array<int64_t, 2> out;
};

PoolWindow make_window(const Tensor& data, std::array<int64_t, 2> window, const Conv2dParams& p, Expr pad_value,
                       const char* op, const std::string& name) {
  check_params(p, op);
  if (data.ndim() != 4) user_error(op, ": data '", data.name(), "' must be 4-D (NCHW); it is ", data.ndim(), "-D");
  if (window[0] <= 0 || window[1] <= 0) user_error(op, ": the window ", window[0], "x", window[1], " must be positive");
  std::array<int64_t, 2> out;
  for (int d = 0; d < 2; ++d)
    out[d] = conv_output_extent(data.shape()[2 + d], window[d], p.stride[d], p.padding[d], p.dilation[d], op);
  Tensor padded = p.padding[0] == 0 && p.padding[1] == 0
                      ? data
                      : pad(data, {0, 0, p.padding[0], p.padding[1]}, {0, 0, p.padding[0], p.padding[1]},
                            pad_value, name + ".pad");
  return {padded, reduce_axis(window[0], "ry"), reduce_axis(window[1], "rx"), out};
}

// The padded input at output point (n, c, y, x) and window offset (ry, rx).
Expr window_read(const PoolWindow& w, const Conv2dParams& p, Var n, Var c, Var y, Var x) {
  return w.padded(n, c, y * Expr(p.stride[0]) + w.ry.var() * Expr(p.dilation[0]),
                  x * Expr(p.stride[1]) + w.rx.var() * Expr(p.dilation[1]));
}

// How many of the window's points along one dimension fall inside [0, extent).
Expr points_inside(Var o, int64_t stride, int64_t padding, int64_t window, int64_t extent) {
  Expr start = o * Expr(stride) - Expr(padding);
  return min(start + Expr(window), Expr(extent)) - max(start, Expr(0));
}

}  // namespace

Tensor max_pool2d(const Tensor& data, std::array<int64_t, 2> window, const Conv2dParams& p, const std::string& name) {
  PoolWindow w = make_window(data, window, p, reduce_identity(ReduceOp::Max, data.dtype()), "max_pool2d", name);
  return compute({data.shape()[0], data.shape()[1], w.out[0], w.out[1]}, [&](Var n, Var c, Var y, Var x) {
    return max_reduce(window_read(w, p, n, c, y, x), {w.ry, w.rx});
  }, name, "max_pool2d");
}

Tensor avg_pool2d(const Tensor& data, std::array<int64_t, 2> window, const Conv2dParams& p, bool count_include_pad,
                  const std::string& name) {
  if (p.dilation[0] != 1 || p.dilation[1] != 1)
    user_error("avg_pool2d: dilation ", p.dilation[0], "x", p.dilation[1], " is not supported; use 1");
  PoolWindow w = make_window(data, window, p, make_zero(data.dtype()), "avg_pool2d", name);
  std::vector<int64_t> shape{data.shape()[0], data.shape()[1], w.out[0], w.out[1]};
  Tensor total = compute(shape, [&](Var n, Var c, Var y, Var x) {
    return sum(window_read(w, p, n, c, y, x), {w.ry, w.rx});
  }, name + ".sum", "pool_sum");
  return compute(shape, [&](Var n, Var c, Var y, Var x) {
    Expr count = count_include_pad
                     ? Expr(window[0] * window[1])
                     : points_inside(y, p.stride[0], p.padding[0], window[0], data.shape()[2]) *
                           points_inside(x, p.stride[1], p.padding[1], window[1], data.shape()[3]);
    return total(n, c, y, x) / cast(data.dtype(), count);
  }, name, "avg_pool2d");
}

Schedule schedule_pool2d_cpu(const Tensor& output) {
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);  // an average's pool_sum stage, a maximum's cache_write
  // The window reads the input through the pad's bounds test: a pool reads each input element a
  // few times only, so a padded copy costs as much as the pool. ResNet-18's 3x3 stride-2 max pool
  // (64 channels, 112x112) took 258-279 us with the copy and 118-135 us without, on AVX2, 2 threads.
  WindowConfig config{1, pick_reg_n(output.shape()[3], kRowTileColumns), {0, 1}, {1}, PadPlacement::Inline};
  schedule_window(s, output, acc, config);
  return s;
}

namespace {
std::unique_ptr<OpSchedule> make_pool_schedule(const PluginParams&) {
  return std::make_unique<FunctionSchedule>([](const Tensor& out, const Target&) { return schedule_pool2d_cpu(out); });
}
}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(max_pool2d, cpu, "max pooling NCHW on CPU: vectorized row tiles", {}, make_pool_schedule);
TESSEL_REGISTER_OP_SCHEDULE(avg_pool2d, cpu, "average pooling NCHW on CPU: vectorized row tiles", {},
                            make_pool_schedule);

}  // namespace tessel::ops
