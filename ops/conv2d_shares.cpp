// A 1x1 conv2d_nchwc summed in shares of its input channels, and its CPU schedule (ops/conv2d_shares.h).
#include "ops/conv2d_shares.h"

#include <algorithm>

#include "ops/conv2d_nchwc.h"
#include "ops/op_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

const char* kSharesTag = "conv2d_nchwc_shares";

void check_shares_operands(const Tensor& data, const Tensor& kernel, int64_t shares) {
  check_pointwise_operands(kSharesTag, data, kernel);
  if (shares < 1 || data.shape()[1] % shares != 0)
    user_error(kSharesTag, ": ", shares, " shares do not divide the ", data.shape()[1],
               " input channel blocks; use a divisor of them");
}

}  // namespace

Tensor conv2d_nchwc_shares(const Tensor& data, const Tensor& kernel, int64_t shares, const std::string& name) {
  check_shares_operands(data, kernel, shares);
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  int64_t share_blocks = d[1] / shares, out_blocks = k[0];
  // conv2d_nchwc's reduction axes, the window's of extent 1, so that its register tiles apply.
  IterVar icc = reduce_axis(share_blocks, "icc"), icb = reduce_axis(k[4], "icb");
  IterVar kh = reduce_axis(1, "kh"), kw = reduce_axis(1, "kw");
  Tensor partial = compute({d[0], shares * out_blocks, d[2], d[3], k[5]}, [&](Var n, Var c, Var y, Var x, Var ocb) {
    Expr in_block = c / Expr(out_blocks) * Expr(share_blocks) + icc.var();
    return sum(data(n, in_block, y + kh.var(), x + kw.var(), icb) *
                   kernel(c % Expr(out_blocks), in_block, kh, kw, icb, ocb),
               {icc, icb, kh, kw});
  }, name + ".partial", "conv2d_nchwc");
  return compute({d[0], out_blocks, d[2], d[3], k[5]}, [&](Var n, Var occ, Var y, Var x, Var ocb) {
    Expr total = partial(n, occ, y, x, ocb);
    for (int64_t t = 1; t < shares; ++t) total = total + partial(n, occ + Expr(t * out_blocks), y, x, ocb);
    return total;
  }, name, kSharesTag);
}

bool reads_channel_shares(const Tensor& output) {
  std::vector<Tensor> stages = topological_order({output});
  return std::any_of(stages.begin(), stages.end(), [](const Tensor& t) { return t->tag == kSharesTag; });
}

Tensor channel_shares_partial(const Tensor& output) { return input_tensors(find_by_tag(output, kSharesTag)).at(0); }

IterVar schedule_channel_shares(Schedule& s, const Tensor& output, const WindowConfig& config) {
  TESSEL_CHECK(output.ndim() == 5, "conv2d_nchwc_shares output '", output.name(), "' must be 5-D");
  Tensor total = find_by_tag(output, kSharesTag);
  Tensor partial = channel_shares_partial(output);
  if (!total.same_as(output)) s[total].compute_inline();
  // The total reads both shares of each output block: a short pass over the partial sums (a sixth
  // of the input in MobileNet-V2's 7x7 projections), half of them from the other core.
  Stage c = s[output];
  c.parallel(c.fuse(c.axis(0), c.axis(1)));
  c.vectorize(c.axis(4));
  Tensor acc = s.cache_write(partial);
  IterVar shares = schedule_window_shares(s, partial, acc, config, partial.shape()[1] / total.shape()[1]);
  prefetch_conv2d_kernel(s[acc], window_operands(partial, "conv2d_nchwc").kernel, config);
  return shares;
}

Schedule schedule_conv2d_nchwc_shares(const Tensor& output, const Target& target) {
  Schedule s = create_schedule({output});
  schedule_channel_shares(s, output, conv2d_fallback_config(channel_shares_partial(output), target));
  return s;
}

TESSEL_REGISTER_OP_SCHEDULE(conv2d_nchwc_shares, cpu,
                            "1x1 conv2d NCHWc summed in one share of the input channels per thread: "
                            "conv2d_nchwc's register tiles, each thread its share's partial sums",
                            {}, [](const PluginParams&) -> std::unique_ptr<OpSchedule> {
                              return std::make_unique<FunctionSchedule>([](const Tensor& out, const Target& target) {
                                return schedule_conv2d_nchwc_shares(out, target);
                              });
                            });

}  // namespace tessel::ops
