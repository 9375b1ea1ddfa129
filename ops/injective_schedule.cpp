// Default schedule of element-wise and data-movement ops (ops/injective_schedule.h).
#include "ops/injective_schedule.h"

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/tiling.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

bool is_injective_tag(const std::string& tag) {
  return tag == "injective" || tag == "pad" || tag == "layout_transform";
}

// The channel block of the NCHWc tensor that `output` unblocks into NCHW, or 0 if it is not such a
// layout transform.
int64_t unblocked_block(const Tensor& output) {
  if (output->tag != "layout_transform" || output.ndim() != 4) return 0;
  std::vector<Tensor> in = input_tensors(output);
  return in.size() == 1 && in[0].ndim() == 5 ? in[0].shape()[4] : 0;
}

// NCHWc -> NCHW. Each output vector of a channel's row reads one float from each of its pixels'
// blocks, so with the channels outermost the line holding a pixel's block is fetched once per
// channel of the block (32 times for a 32-float block): a 112x112x64 output took 3.1 ms on one
// Cascade Lake core. Here the channels of one block run inside the column tiles, and the lines of
// a tile's pixels stay in L1 while all its channels are read.
void schedule_unblocking(Stage st, int64_t block) {
  int64_t width = st->op.shape()[3];
  auto [channel_blocks, channels] = st.split(st.axis(1), block);
  IterVar rows = st.axis(2);
  auto [column_tiles, lanes] = st.split(st.axis(3), largest_divisor_at_most(width, kRowTileColumns));
  st.reorder({channel_blocks, rows, column_tiles, channels, lanes});
  st.vectorize(lanes);
  st.parallel(st.fuse(st.fuse(st.axis(0), channel_blocks), rows));
}

}  // namespace

Schedule schedule_injective_cpu(const Tensor& output) {
  Schedule s = create_schedule({output});
  for (const Tensor& t : topological_order({output}))
    if (!t.same_as(output) && !t->is_placeholder() && is_injective_tag(t->tag)) s[t].compute_inline();
  Stage st = s[output];
  if (int64_t block = unblocked_block(output)) {
    schedule_unblocking(st, block);
    return s;
  }
  int last = output.ndim() - 1;
  auto [outer, lanes] = st.split(st.axis(last), largest_divisor_at_most(output.shape()[last], kRowTileColumns));
  st.vectorize(lanes);
  IterVar fused = outer;
  for (int d = last - 1; d >= 0; --d) fused = st.fuse(st.axis(d), fused);
  st.parallel(fused);
  return s;
}

namespace {
std::unique_ptr<OpSchedule> make_injective_schedule(const PluginParams&) {
  return std::make_unique<FunctionSchedule>([](const Tensor& out, const Target&) { return schedule_injective_cpu(out); });
}
}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(injective, cpu, "element-wise ops on CPU: fused parallel rows, vectorized inner dim", {},
                            make_injective_schedule);
TESSEL_REGISTER_OP_SCHEDULE(pad, cpu, "padding on CPU (as injective)", {}, make_injective_schedule);
TESSEL_REGISTER_OP_SCHEDULE(layout_transform, cpu, "layout transforms on CPU (as injective)", {},
                            make_injective_schedule);

}  // namespace tessel::ops
