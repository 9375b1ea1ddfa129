// Workload names, through the operator registry (search/spaces/workload_spec.h).
#include "search/spaces/workload_spec.h"

#include <algorithm>

#include "search/spaces/workload_key.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

std::shared_ptr<const WorkloadOperator> find_operator(const std::string& op) {
  return Registry<WorkloadOperator>::instance().create(op);
}

}  // namespace

WorkloadSpec::WorkloadSpec(std::string name_, std::string op, std::any shape)
    : name(std::move(name_)), op_(std::move(op)), operator_(find_operator(op_)), shape_(std::move(shape)) {
  key_ = workload_key(op_, expression());
}

std::string valid_workload_forms() {
  std::vector<std::string> forms;
  const auto& registry = Registry<WorkloadOperator>::instance();
  for (const std::string& op : registry.names()) forms.push_back(registry.create(op)->forms());
  return "valid: " + join_list(forms);
}

WorkloadSpec parse_workload(const std::string& name) {
  const auto& registry = Registry<WorkloadOperator>::instance();
  std::vector<std::string> ops = registry.names();
  size_t colon = name.find(':');
  if (colon != std::string::npos) {
    std::string kind = name.substr(0, colon);
    if (std::find(ops.begin(), ops.end(), kind) == ops.end())
      user_error("unknown workload kind \"", kind, "\" in \"", name, "\"; ", valid_workload_forms());
    return WorkloadSpec(name, kind, registry.create(kind)->parse_shape(name.substr(colon + 1)));
  }
  for (const std::string& op : ops)
    if (std::optional<std::any> shape = registry.create(op)->named_shape(name)) return WorkloadSpec(name, op, *shape);
  user_error("unknown workload \"", name, "\"; ", valid_workload_forms());
}

}  // namespace tessel::search
