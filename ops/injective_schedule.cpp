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

}  // namespace

Schedule schedule_injective_cpu(const Tensor& output) {
  Schedule s = create_schedule({output});
  for (const Tensor& t : topological_order({output}))
    if (!t.same_as(output) && !t->is_placeholder() && is_injective_tag(t->tag)) s[t].compute_inline();
  Stage st = s[output];
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
