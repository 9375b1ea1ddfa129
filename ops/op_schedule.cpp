// Lookup of operator schedules in the plugin registry.
#include "ops/op_schedule.h"

#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

Schedule default_schedule(const Tensor& output, const nlohmann::json& params) {
  if (!output.defined() || output->is_placeholder())
    user_error("default_schedule: the output must be a computed tensor, not an input placeholder");
  return Registry<OpSchedule>::instance().create(output->tag, params)->apply(output);
}

Tensor find_by_tag(const Tensor& output, const std::string& tag) {
  for (const Tensor& t : topological_order({output}))
    if (t->tag == tag) return t;
  TESSEL_CHECK(false, "no stage tagged '", tag, "' feeds '", output.name(), "'");
  return Tensor();
}

}  // namespace tessel::ops
