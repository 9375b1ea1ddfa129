// The default CPU schedules of the graph operators that no tuned family of ops/ covers: batched
// matrix products, reductions and softmax, all scheduled by schedule_simple_cpu
// (ops/graph/graph_op_util.h) under the tags their expressions carry.
#include "ops/graph/graph_op_util.h"
#include "ops/op_schedule.h"

namespace tessel::ops {

namespace {
std::unique_ptr<OpSchedule> simple_schedule(const PluginParams&) {
  return std::make_unique<FunctionSchedule>(schedule_simple_cpu);
}
}  // namespace

TESSEL_REGISTER_PLUGIN(OpSchedule, batch_matmul, "batched matrix product on CPU: parallel over batch and rows", {},
                       simple_schedule);
TESSEL_REGISTER_PLUGIN(OpSchedule, reduce, "reductions on CPU: parallel over the kept dimensions", {}, simple_schedule);
TESSEL_REGISTER_PLUGIN(OpSchedule, softmax,
                       "softmax on CPU: each stage parallel over rows, element-wise ones vectorized", {},
                       simple_schedule);
TESSEL_REGISTER_PLUGIN(OpSchedule, gather, "gathers on CPU: parallel over rows, not vectorized (indices are data)", {},
                       simple_schedule);

}  // namespace tessel::ops
