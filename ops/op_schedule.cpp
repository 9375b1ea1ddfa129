// Lookup of operator schedules in the plugin registry, by tag and device kind.
#include "ops/op_schedule.h"

#include "support/error.h"

namespace tessel::ops {

std::string op_schedule_name(const std::string& tag, DeviceKind device) {
  return tag + "@" + device_kind_name(device);
}

Schedule default_schedule(const Tensor& output, const Target& target, const nlohmann::json& params) {
  if (!output.defined() || output->is_placeholder())
    user_error("default_schedule: the output must be a computed tensor, not an input placeholder");
  return Registry<OpSchedule>::instance()
      .create(op_schedule_name(output->tag, target.device()), params)
      ->apply(output, target);
}

Tensor find_by_tag(const Tensor& output, const std::string& tag) {
  for (const Tensor& t : topological_order({output}))
    if (t->tag == tag) return t;
  TESSEL_CHECK(false, "no stage tagged '", tag, "' feeds '", output.name(), "'");
  return Tensor();
}

}  // namespace tessel::ops
