// Depthwise conv2d and its CPU schedule (ops/depthwise_conv2d.h).
#include "ops/depthwise_conv2d.h"

#include <algorithm>

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/tiling.h"
#include "ops/window_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

// The padded input, with padding on the two spatial dimensions (2 and 3) only.
Tensor pad_spatial(const Tensor& data, const Conv2dParams& p, const std::string& name) {
  if (p.padding[0] == 0 && p.padding[1] == 0) return data;
  std::vector<int64_t> amount(data.ndim(), 0);
  amount[2] = p.padding[0];
  amount[3] = p.padding[1];
  return pad(data, amount, amount, make_zero(data.dtype()), name + ".pad");
}

std::array<int64_t, 2> output_extents(const Tensor& data, const Tensor& kernel, const Conv2dParams& p,
                                      const char* op) {
  check_params(p, op);
  return {conv_output_extent(data.shape()[2], kernel.shape()[2], p.stride[0], p.padding[0], p.dilation[0], op),
          conv_output_extent(data.shape()[3], kernel.shape()[3], p.stride[1], p.padding[1], p.dilation[1], op)};
}

}  // namespace

Tensor depthwise_conv2d_nchw(const Tensor& data, const Tensor& kernel, const Conv2dParams& p,
                             const std::string& name) {
  const char* op = "depthwise_conv2d_nchw";
  if (data.ndim() != 4 || kernel.ndim() != 4 || kernel.shape()[1] != 1 || kernel.shape()[0] % data.shape()[1] != 0)
    user_error(op, ": data must be [N, C, H, W] and kernel [C*multiplier, 1, KH, KW]");
  auto [oh, ow] = output_extents(data, kernel, p, op);
  Tensor padded = pad_spatial(data, p, name);
  int64_t multiplier = kernel.shape()[0] / data.shape()[1];
  IterVar ry = reduce_axis(kernel.shape()[2], "ry"), rx = reduce_axis(kernel.shape()[3], "rx");
  return compute({data.shape()[0], kernel.shape()[0], oh, ow}, [&](Var n, Var c, Var y, Var x) {
    Expr iy = y * Expr(p.stride[0]) + ry.var() * Expr(p.dilation[0]);
    Expr ix = x * Expr(p.stride[1]) + rx.var() * Expr(p.dilation[1]);
    Expr channel = multiplier == 1 ? Expr(c) : c / Expr(multiplier);
    return sum(padded(n, channel, iy, ix) * kernel(c, 0, ry, rx), {ry, rx});
  }, name, op);
}

Tensor depthwise_conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& p,
                              const std::string& name) {
  const char* op = "depthwise_conv2d_nchwc";
  if (data.ndim() != 5 || kernel.ndim() != 6)
    user_error(op, ": data must be [N, C/b, H, W, b] and kernel [C/b, 1, KH, KW, 1, b]; convert with "
               "nchw_to_nchwc and oihw_to_oihwio(kernel, 1, b)");
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  if (k[0] != d[1] || k[1] != 1 || k[4] != 1 || k[5] != d[4])
    user_error(op, ": kernel [", k[0], ", ", k[1], ", KH, KW, ", k[4], ", ", k[5], "] does not match data with ",
               d[1], " channel blocks of ", d[4], "; expected [", d[1], ", 1, KH, KW, 1, ", d[4], "]");
  auto [oh, ow] = output_extents(data, kernel, p, op);
  Tensor padded = pad_spatial(data, p, name);
  IterVar ry = reduce_axis(k[2], "ry"), rx = reduce_axis(k[3], "rx");
  return compute({d[0], d[1], oh, ow, d[4]}, [&](Var n, Var c, Var y, Var x, Var b) {
    Expr iy = y * Expr(p.stride[0]) + ry.var() * Expr(p.dilation[0]);
    Expr ix = x * Expr(p.stride[1]) + rx.var() * Expr(p.dilation[1]);
    return sum(padded(n, c, iy, ix, b) * kernel(c, 0, ry, rx, 0, b), {ry, rx});
  }, name, op);
}

int64_t choose_depthwise_block(int64_t channels, const Target& target) {
  return largest_divisor_at_most(channels, float_lanes(target.cpu()));
}

WindowConfig depthwise_fallback_config(const Tensor& output, const Target& target) {
  // reduction axes: ry 0, rx 1
  WindowConfig config{1, pick_reg_n(output.shape()[3], kRowTileColumns), {0, 1}, {1}, PadPlacement::Inline};
  if (output.ndim() == 5) {
    const CpuDescription& cpu = target.cpu();
    int64_t block = output.shape()[4], lanes = float_lanes(cpu);
    // With the kernel width unrolled, LLVM keeps the kernel vectors of every kernel column live
    // beside the accumulators (the input vectors it reads as the FMAs' memory operands). Counting
    // one kernel vector gave AVX2 14-column tiles of 8-channel blocks that spilled about every other
    // FMA (D1-D7 ran 18-37% slower than with 7-8 columns, Zen 3).
    int64_t kernel_width = window_operands(output, "depthwise_conv2d_nchwc").kernel.shape()[3];
    int64_t operands = float_vectors(cpu, block) * kernel_width;
    int64_t accumulators = accumulator_budget(cpu, operands, kWindowAccumulatorCap);
    config.columns = pick_reg_n(output.shape()[3], accumulators * lanes / std::max(block, lanes));
    // A block of several vectors one vector at a time where that tile holds more accumulators.
    if (int64_t vector_lanes = depthwise_vector_lanes(output, cpu)) {
      int64_t columns = pick_reg_n(output.shape()[3], accumulator_budget(cpu, kernel_width, kWindowAccumulatorCap));
      if (columns > config.columns * (block / vector_lanes)) {
        config.columns = columns;
        config.block_lanes = vector_lanes;
      }
    }
    config.threads = cpu.threads;
    config.row_shares = depthwise_row_shares_pay(output, cpu);
  }
  return config;
}

int64_t depthwise_vector_lanes(const Tensor& output, const CpuDescription& cpu) {
  if (output.ndim() != 5) return 0;
  int64_t block = output.shape()[4], lanes = float_lanes(cpu);
  return block > lanes && block % lanes == 0 ? lanes : 0;
}

bool depthwise_row_shares_pay(const Tensor& output, const CpuDescription& cpu) {
  return output.ndim() == 5 && cpu.threads > 1 && output.shape()[2] % cpu.threads == 0;
}

Schedule schedule_depthwise_conv2d(const Tensor& output, const WindowConfig& config) {
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  schedule_window(s, output, acc, config);
  return s;
}

namespace {

std::unique_ptr<OpSchedule> make_depthwise_schedule(const PluginParams& p) {
  int64_t limit = p.get_int("reg_n_limit");
  std::string where = p.get_string("pad");
  PadPlacement pad = where == "root"  ? PadPlacement::Root
                     : where == "row" ? PadPlacement::PerRow
                                      : PadPlacement::Inline;
  return std::make_unique<FunctionSchedule>([limit, pad](const Tensor& out, const Target& target) {
    WindowConfig config = depthwise_fallback_config(out, target);
    if (limit > 0 && out.ndim() == 5) config.columns = pick_reg_n(out.shape()[3], limit);
    config.pad = pad;
    return schedule_depthwise_conv2d(out, config);
  });
}

const std::vector<ParamSpec> kDepthwiseParams = {
    {"reg_n_limit", ParamType::Int, 0,
     "most output columns per register tile, blocked layout (0: from the target's registers)", Allowed::at_least(0)},
    {"pad", ParamType::String, "inline",
     "where padding runs: root (whole input first), row (per output row), inline (bounds tests, partitioned out of "
     "interior tiles)",
     Allowed::one_of({"inline", "root", "row"})}};

}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(depthwise_conv2d_nchw, cpu, "depthwise conv2d NCHW on CPU: vectorized row tiles",
                            kDepthwiseParams, make_depthwise_schedule);
TESSEL_REGISTER_OP_SCHEDULE(depthwise_conv2d_nchwc, cpu,
                            "depthwise conv2d NCHWc on CPU: columns x channel-block register tile sized for the target",
                            kDepthwiseParams, make_depthwise_schedule);

}  // namespace tessel::ops
