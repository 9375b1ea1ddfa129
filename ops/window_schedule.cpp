// Register-tiled windowed-reduction schedule (ops/window_schedule.h).
#include "ops/window_schedule.h"

#include "ops/tiling.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

// The "pad" stage `consumer` reads, if any.
Tensor pad_stage_of(const Schedule& s, const Tensor& consumer) {
  for (const Tensor& in : input_tensors(s.current(consumer)))
    if (in->tag == "pad") return in;
  return Tensor();
}

// The pad loops vectorized over the channel block of blocked layouts.
Stage vectorized_pad(Schedule& s, const Tensor& pad) {
  Stage p = s[pad];
  if (pad.ndim() == 5) p.vectorize(p.axis(4));
  return p;
}

}  // namespace

void schedule_window_tiles(Schedule& s, const Tensor& out, const Tensor& acc, const WindowTile& tile) {
  bool blocked = out.ndim() == 5;
  TESSEL_CHECK(out.ndim() == 4 || blocked, "window output '", out.name(), "' must be 4-D or 5-D");
  Stage c = s[out];
  auto [owo, owi] = c.split(c.axis(3), tile.reg_n);
  IterVar rows = c.fuse(c.axis(1), c.axis(2));  // channels × rows: enough parallel work at any depth
  c.parallel(rows);
  Tensor pad = pad_stage_of(s, acc);
  if (pad.defined() && tile.pad == PadPlacement::PerRow)
    vectorized_pad(s, pad).compute_at(c, rows);
  else if (pad.defined())
    schedule_pad(s, acc, tile.pad);
  if (blocked) {
    c.unroll(owi);
    c.vectorize(c.axis(4));
  } else {
    c.vectorize(owi);
  }

  Stage cc = s[acc];
  cc.compute_at(c, owo);
  auto [cowo, cowi] = cc.split(cc.axis(3), tile.reg_n);
  std::vector<IterVar> order;
  for (int r : tile.reduce_order) order.push_back(cc.reduce_axis(r));
  order.push_back(cowi);
  if (blocked) order.push_back(cc.axis(4));
  cc.reorder(order);  // the reduction outside the register tile, the tile innermost
  if (tile.unrolled_reduce >= 0) cc.unroll(cc.reduce_axis(tile.unrolled_reduce));
  if (blocked) {
    cc.unroll(cowi);
    cc.vectorize(cc.axis(4));
  } else {
    cc.vectorize(cowi);
  }
}

void schedule_pad(Schedule& s, const Tensor& consumer, PadPlacement where) {
  TESSEL_CHECK(where != PadPlacement::PerRow, "schedule_pad cannot place a pad per row; use schedule_window_tiles");
  if (where == PadPlacement::Root) return schedule_pad_root(s, consumer);
  Tensor pad = pad_stage_of(s, consumer);
  if (pad.defined()) s[pad].compute_inline();
}

void schedule_pad_root(Schedule& s, const Tensor& consumer) {
  Tensor pad = pad_stage_of(s, consumer);
  if (!pad.defined()) return;
  Stage p = vectorized_pad(s, pad);
  p.parallel(p.axis(1));
}

int64_t pick_reg_n(int64_t ow, int64_t limit) { return largest_divisor_at_most(ow, limit); }

}  // namespace tessel::ops
