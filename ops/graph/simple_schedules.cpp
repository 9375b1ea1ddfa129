// The default CPU schedules of the graph operators that no tuned family of ops/ covers: batched
// matrix products, reductions and softmax, all scheduled by schedule_simple_cpu
// (ops/graph/graph_op_util.h) under the tags their expressions carry.
#include "ops/graph/graph_op_util.h"
#include "ops/op_schedule.h"

namespace tessel::ops {

namespace {
std::unique_ptr<OpSchedule> simple_schedule(const PluginParams&) {
  return std::make_unique<FunctionSchedule>([](const Tensor& output, const Target&) { return schedule_simple_cpu(output); });
}
}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(batch_matmul, cpu, "batched matrix product on CPU: parallel over batch and rows", {},
                            simple_schedule);
TESSEL_REGISTER_OP_SCHEDULE(reduce, cpu, "reductions on CPU: parallel over the kept dimensions", {}, simple_schedule);
TESSEL_REGISTER_OP_SCHEDULE(softmax, cpu,
                            "softmax on CPU: each stage parallel over rows, element-wise ones vectorized", {},
                            simple_schedule);
TESSEL_REGISTER_OP_SCHEDULE(gather, cpu, "gathers on CPU: parallel over rows, not vectorized (indices are data)", {},
                            simple_schedule);

}  // namespace tessel::ops
