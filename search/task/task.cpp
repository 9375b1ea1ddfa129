// Tuning tasks (search/task/task.h).
#include "search/task/task.h"

#include "passes/lower/lower.h"
#include "support/registry.h"

namespace tessel::search {

Task::Task(WorkloadSpec workload, std::string space_name, std::shared_ptr<const ScheduleTemplate> schedule_template)
    : workload_(std::move(workload)), space_name_(std::move(space_name)), template_(std::move(schedule_template)) {}

Task Task::create(const std::string& workload, const std::string& space, const nlohmann::json& space_params) {
  WorkloadSpec spec = parse_workload(workload);
  auto tmpl = Registry<ScheduleSpace>::instance().create(space, space_params)->make_template(spec);
  return Task(std::move(spec), space, std::move(tmpl));
}

std::string Task::kernel_name() const {
  std::string name = "tuned_" + workload_.op();
  return name;
}

LoweredFunc Task::lower(const Config& config) const {
  Program program = template_->instantiate(config);
  return tessel::lower(program.schedule, program.args(), kernel_name());
}

LoweredFunc Task::lower_default_program() const {
  Program program = template_->default_program();
  return tessel::lower(program.schedule, program.args(), kernel_name() + "_reference");
}

}  // namespace tessel::search
