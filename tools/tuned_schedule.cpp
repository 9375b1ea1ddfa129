// Tuned schedules for the benchmark (tools/tuned_schedule.h).
#include "tools/tuned_schedule.h"

#include <iostream>
#include <memory>

#include "ops/build.h"
#include "search/task/task.h"
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

TesselSchedule schedule_of(const std::string& workload, const nlohmann::json& knobs, const std::string& suffix) {
  auto task = std::make_shared<search::Task>(search::Task::create(workload, "template"));
  search::Config config = task->space().from_json(knobs);
  return {[task, config](const ops::OpInstance& op) { return compile_tuned(*task, config, op); },
          "tuned#" + std::to_string(config.index()) + suffix};
}

}  // namespace

TunedChoices TunedChoices::read(const std::string& db_path) {
  search::RecordsDb db = search::RecordsDb::open(db_path);
  return {db_path, db.chosen_per_task(), db.best_per_task()};
}

TesselSchedule tuned_schedule(const TunedChoices& choices, const std::string& workload) {
  auto ours = [&](const search::RunKey& run) { return run.workload == workload && run.space == "template"; };
  for (const search::SelectionRecord& c : choices.chosen)
    if (ours(c.run)) return schedule_of(workload, c.config, c.origin == "default" ? ":default" : "");
  for (const search::TrialRecord& record : choices.best)
    if (ours(record.run)) return schedule_of(workload, record.config, "");
  std::cerr << "note: " << choices.db_path << " has no correct trial of " << workload
            << " in the template space; it runs its default schedule\n";
  return {};
}

}  // namespace tessel::tools
