// A tuning task: one workload, the schedule space searched for it, and the template that turns a
// configuration into a schedule and a lowered loop program. Strategies and cost models see the
// task, so they can decode configurations and look at the program a configuration lowers to.
//
//   Task task = Task::create("C6", "template");
//   LoweredFunc f = task.lower(task.space().get(42));
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/stmt.h"
#include "search/spaces/schedule_template.h"
#include "search/spaces/workload_spec.h"

namespace tessel::search {

class Task {
 public:
  Task(WorkloadSpec workload, std::string space_name, std::shared_ptr<const ScheduleTemplate> schedule_template);
  // The workload parsed from its name and the template of the named space plugin; throws
  // UserError for unknown workloads or spaces.
  static Task create(const std::string& workload, const std::string& space,
                     const nlohmann::json& space_params = nullptr);

  const WorkloadSpec& workload() const { return workload_; }
  const std::string& space_name() const { return space_name_; }
  const ScheduleTemplate& schedule_template() const { return *template_; }
  const ConfigSpace& space() const { return template_->space(); }

  Program instantiate(const Config& config) const { return template_->instantiate(config); }
  LoweredFunc lower(const Config& config) const;
  LoweredFunc lower_default_program() const;  // the ops/ default schedule: the reference

 private:
  std::string kernel_name() const;
  WorkloadSpec workload_;
  std::string space_name_;
  std::shared_ptr<const ScheduleTemplate> template_;
};

}  // namespace tessel::search
