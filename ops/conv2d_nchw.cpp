// Canonical-layout conv2d and its CPU schedule (ops/conv2d_nchw.h).
#include "ops/conv2d_nchw.h"

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/window_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

Tensor conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dParams& p, const std::string& name) {
  check_params(p, "conv2d_nchw");
  if (data.ndim() != 4 || kernel.ndim() != 4)
    user_error("conv2d_nchw: data (NCHW) and kernel (OIHW) must be 4-D; got ", data.ndim(), "-D and ",
               kernel.ndim(), "-D");
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  if (d[1] % p.groups != 0 || k[0] % p.groups != 0 || k[1] * p.groups != d[1])
    user_error("conv2d_nchw: ", d[1], " input channels, ", k[0], " output channels and a kernel with ", k[1],
               " input channels do not form ", p.groups, " groups; the kernel needs C/groups input channels");
  int64_t oh = conv_output_extent(d[2], k[2], p.stride[0], p.padding[0], p.dilation[0], "conv2d_nchw");
  int64_t ow = conv_output_extent(d[3], k[3], p.stride[1], p.padding[1], p.dilation[1], "conv2d_nchw");
  Tensor padded = p.padding[0] == 0 && p.padding[1] == 0
                      ? data
                      : pad(data, {0, 0, p.padding[0], p.padding[1]}, {0, 0, p.padding[0], p.padding[1]},
                            make_zero(data.dtype()), name + ".pad");
  int64_t out_per_group = k[0] / p.groups;
  IterVar rc = reduce_axis(k[1], "rc"), ry = reduce_axis(k[2], "ry"), rx = reduce_axis(k[3], "rx");
  return compute({d[0], k[0], oh, ow}, [&](Var n, Var f, Var y, Var x) {
    Expr channel = p.groups == 1 ? Expr(rc.var()) : f / Expr(out_per_group) * Expr(k[1]) + rc.var();
    Expr iy = y * Expr(p.stride[0]) + ry.var() * Expr(p.dilation[0]);
    Expr ix = x * Expr(p.stride[1]) + rx.var() * Expr(p.dilation[1]);
    return sum(padded(n, channel, iy, ix) * kernel(f, rc, ry, rx), {rc, ry, rx});
  }, name, "conv2d_nchw");
}

Schedule schedule_conv2d_nchw_cpu(const Tensor& output) {
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  schedule_window(s, output, acc, WindowConfig{1, pick_reg_n(output.shape()[3], kRowTileColumns), {0, 1, 2}, {2}});
  return s;
}

TESSEL_REGISTER_OP_SCHEDULE(conv2d_nchw, cpu, "conv2d NCHW on CPU: vectorized row tiles (simple default)", {},
                            [](const PluginParams&) {
                              return std::make_unique<FunctionSchedule>(
                                  [](const Tensor& out, const Target&) { return schedule_conv2d_nchw_cpu(out); });
                            });

}  // namespace tessel::ops
