// tune-model's check of its choices in the model (compiler/model_check.h).
#include "compiler/model_check.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "compiler/compile_model.h"
#include "search/measure/model_sandbox.h"
#include "search/tuned_config.h"
#include "support/error.h"
#include "support/timing.h"

namespace tessel {

namespace {

// A temporary folder for the modules compared, removed with them.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tessel-model-check-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      user_error("cannot create a folder for the model check in ", std::filesystem::temp_directory_path().string(),
                 ": ", std::strerror(errno), "; set TMPDIR to a writable folder");
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  std::string folder(size_t i) const { return path_ + "/model-" + std::to_string(i); }

 private:
  std::string path_;
};

// The model's inputs, uniform in [-1, 1) from a fixed seed, named as its graph names them.
std::vector<NamedArray> model_inputs(const graph::Graph& g) {
  std::vector<NamedArray> inputs;
  for (graph::ValueId v : g.inputs())
    inputs.push_back({g.value(v).name, NDArray::random_uniform(g.value(v).type.shape, g.value(v).type.dtype, 7)});
  return inputs;
}

struct Choice {
  std::string workload;
  search::TunedConfig tuned;
};

// The tasks whose records apply a final selection's searched configuration for this target.
std::vector<Choice> searched_choices(const std::vector<search::WeightedTask>& tasks,
                                     const search::TunedRecords& records) {
  std::vector<Choice> choices;
  for (const search::WeightedTask& t : tasks) {
    std::optional<search::TunedConfig> tuned = records.find(t.task);
    if (tuned && tuned->source == "selection" && tuned->origin == "search" && tuned->same_target)
      choices.push_back({t.task.workload().name, *tuned});
  }
  return choices;
}

// Whether some group of `model` runs `workload`'s record (it may not apply: compile says why).
bool runs_record_of(const CompiledModel& model, const std::string& workload) {
  for (const auto& node : model.graph["nodes"]) {
    const auto& tuning = node["tuning"];
    if (tuning.value("workload", "") == workload && tuning.value("status", "") == "tuned") return true;
  }
  return false;
}

std::string why_unmeasured(const search::ModelTimings& t) {
  const char* names[] = {"the model with the choice", "the model with the default"};
  for (size_t i = 0; i < t.checks.size(); ++i)
    if (!t.checks[i].ok())
      return detail::concat(names[i], ": ", search::status_name(t.checks[i].status), ": ", t.checks[i].error);
  return t.failure;
}

// Times the model with the choice (`with`) against the model with its default (`without`).
ChoiceCheck measure_choice(const std::string& with, const std::string& without, const std::vector<NamedArray>& inputs,
                           const ModelCheckOptions& options) {
  ChoiceCheck check;
  search::ModelTimings t = search::time_models({with, without}, inputs, options.run, options.rounds);
  if (!t.ok(options.rounds)) {
    check.note = why_unmeasured(t);
    return check;
  }
  std::vector<double> ratios, with_us, without_us;
  for (const std::vector<double>& round : t.round_us) {
    ratios.push_back(round[0] / round[1]);
    with_us.push_back(round[0]);
    without_us.push_back(round[1]);
  }
  TimingStats r = summarize(ratios);  // median, min and max of the ratios (summarize takes any samples)
  check.ratio = r.median_us;
  check.low = r.min_us;
  check.high = r.max_us;
  check.with_ms = summarize(with_us).median_us / 1e3;
  check.without_ms = summarize(without_us).median_us / 1e3;
  check.kept = check.ratio <= 1 - options.margin;
  return check;
}

// Records the default as the choice's run's choice.
void record_default(search::RecordsDb& db, const search::TunedConfig& tuned, ChoiceCheck& check) {
  std::optional<search::SelectionRecord> fallback = db.latest_default_candidate(tuned.run);
  if (!fallback || fallback->median_us <= 0) {
    check.note += std::string(check.note.empty() ? "" : "; ") +
                  "not recorded: the run's selection has no measured default candidate to choose instead";
    return;
  }
  fallback->chosen = true;
  db.append_selection({*fallback});
}

}  // namespace

std::vector<ChoiceCheck> check_choices_in_model(const graph::OptimizedGraph& opt, const Target& target,
                                                const std::vector<search::WeightedTask>& tasks, search::RecordsDb& db,
                                                const ModelCheckOptions& options,
                                                const std::function<void(const ChoiceCheck&)>& on_check) {
  search::TunedRecords records(db);
  std::vector<Choice> choices = searched_choices(tasks, records);
  std::vector<ChoiceCheck> checks;
  if (choices.empty()) return checks;
  ScratchFolder scratch;
  std::vector<NamedArray> inputs = model_inputs(opt.graph);
  CompileOptions current{&records};
  CompiledModel model = compile_model(opt, target, current);
  std::string folder = scratch.folder(0);
  export_model(model, folder);
  for (size_t i = 0; i < choices.size(); ++i) {
    const Choice& choice = choices[i];
    if (!runs_record_of(model, choice.workload)) continue;
    CompileOptions without = current;
    without.default_workloads.push_back(choice.workload);
    CompiledModel candidate = compile_model(opt, target, without);
    std::string candidate_folder = scratch.folder(i + 1);
    export_model(candidate, candidate_folder);
    ChoiceCheck check = measure_choice(folder, candidate_folder, inputs, options);
    check.workload = choice.workload;
    check.record = choice.tuned.record_candidate.str();
    if (!check.kept) {
      record_default(db, choice.tuned, check);
      current = without;
      model = std::move(candidate);
      folder = candidate_folder;
    }
    if (on_check) on_check(check);
    checks.push_back(check);
  }
  return checks;
}

}  // namespace tessel
