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

// The candidate's program compiled for the benchmark's operator instance, whose arguments it must
// take: same shapes in the same order.
std::unique_ptr<CompiledFunction> compile_tuned(const search::Task& task, const search::Candidate& candidate,
                                                const ops::OpInstance& op) {
  search::Program program = task.program(candidate);
  std::string tuned = shapes_of(program.args()), expected = shapes_of(op.args());
  if (tuned != expected)
    user_error("the tuned schedule of ", task.workload().name, " takes arguments ", tuned, " but the benchmark's ",
               "operator takes ", expected, "; the template changed since the database was written: tune again");
  return ops::build(program.schedule, program.args(), "tuned_" + task.workload().op(), task.target());
}

}  // namespace

TesselSchedule tuned_schedule(const TunedChoices& choices, const std::string& workload, const Target& target) {
  auto task = std::make_shared<search::Task>(search::Task::create(workload, "template", nullptr, target));
  std::optional<search::TunedConfig> tuned = choices.find(*task);
  if (!tuned) {
    std::cerr << "note: " << choices.path() << " has no correct trial of " << workload << " for the template space "
              << (choices.has_records_of(*task) ? "as it is now (its records are of an older version: tune it again)"
                                                : "that fits it")
              << "; it runs its default schedule\n";
    return {};
  }
  if (!tuned->same_target) std::cerr << tuned->fallback_note(*task, choices.path()) << "\n";
  search::Candidate candidate = tuned->candidate;
  return {[task, candidate](const ops::OpInstance& op) { return compile_tuned(*task, candidate, op); }, tuned->label()};
}

}  // namespace tessel::tools
