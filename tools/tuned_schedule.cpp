// Tuned schedules for the benchmark (tools/tuned_schedule.h).
#include "tools/tuned_schedule.h"

#include <iostream>
#include <memory>

#include "ops/build.h"
#include "search/task.h"
#include "support/error.h"

namespace tessel::tools {

namespace {

std::string shapes_of(const std::vector<Tensor>& tensors) {
  std::string out;
  for (const Tensor& t : tensors) {
    out += out.empty() ? "[" : " [";
    for (size_t i = 0; i < t.shape().size(); ++i) out += (i ? "," : "") + std::to_string(t.shape()[i]);
    out += "]";
  }
  return out;
}

// The configuration's program compiled for the benchmark's operator instance, whose arguments it
// must take: same shapes in the same order.
std::unique_ptr<CompiledFunction> compile_tuned(const search::Task& task, const search::Config& config,
                                                const ops::OpInstance& op) {
  search::Program program = task.instantiate(config);
  std::string tuned = shapes_of(program.args()), expected = shapes_of(op.args());
  if (tuned != expected)
    user_error("the tuned schedule of ", task.workload().name, " takes arguments ", tuned, " but the benchmark's ",
               "operator takes ", expected, "; the template changed since the database was written: tune again");
  return ops::build(program.schedule, program.args(), "tuned_" + task.workload().op());
}

}  // namespace

TesselSchedule tuned_schedule(const std::vector<search::TrialRecord>& best, const std::string& db_path,
                              const std::string& workload) {
  for (const search::TrialRecord& record : best) {
    if (record.run.workload != workload || record.run.space != "template") continue;
    auto task = std::make_shared<search::Task>(search::Task::create(workload, "template"));
    search::Config config = task->space().from_json(record.config);
    return {[task, config](const ops::OpInstance& op) { return compile_tuned(*task, config, op); },
            "tuned#" + std::to_string(config.index())};
  }
  std::cerr << "note: " << db_path << " has no correct trial of " << workload
            << " in the template space; it runs its default schedule\n";
  return {};
}

}  // namespace tessel::tools
