// tune-model's check of its choices in the model (compiler/model_check.h).
#include "compiler/model_check.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "compiler/compile_model.h"
#include "compiler/model_tasks.h"
#include "search/measure/model_sandbox.h"
#include "search/tuned_config.h"
#include "support/error.h"
#include "support/statistics.h"
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

// The searched configuration a final selection chose for `task`, when its records apply one.
std::optional<search::TunedConfig> searched_choice(const search::WeightedTask& task,
                                                   const search::TunedRecords& records) {
  std::optional<search::TunedConfig> tuned = records.find(task.task);
  if (tuned && tuned->source == "selection" && tuned->origin == "search" && tuned->same_target) return tuned;
  return std::nullopt;
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
  check.threads = options.run.threads;
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
  MedianInterval interval = median_interval(ratios, 0.95);
  check.median_low = interval.low;
  check.median_high = interval.high;
  check.confidence = interval.coverage;
  check.with_ms = summarize(with_us).median_us / 1e3;
  check.without_ms = summarize(without_us).median_us / 1e3;
  check.kept = check.median_high <= 1 - options.margin;
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

// The state of the checks: the database, the records read from it, and the model as the checks
// so far left it, exported.
class ModelChecker {
 public:
  // `records` are those read from `db`.
  ModelChecker(const graph::OptimizedGraph& opt, const Target& target, search::RecordsDb& db,
               search::TunedRecords records, const ModelCheckOptions& options)
      : opt_(opt), target_(target), db_(db), options_(options), inputs_(model_inputs(opt.graph)),
        records_(std::make_unique<search::TunedRecords>(std::move(records))), current_(records_.get()) {
    folder_ = export_next(compile_model(opt_, target_, current_), model_);
  }

  // Checks the task's choice; when it is set aside and the database then offers another run's
  // choice for the task (compile takes the fastest alone over runs), checks that one too, until a
  // choice is kept or the default runs. Appends the checks to `checks`.
  void check_task(const search::WeightedTask& task, std::vector<ChoiceCheck>& checks,
                  const std::function<void(const ChoiceCheck&)>& on_check) {
    const std::string& workload = task.task.workload().name;
    std::vector<search::RunKey> runs_set_aside;
    auto unchecked = [&](const std::optional<search::TunedConfig>& c) {
      return c && std::none_of(runs_set_aside.begin(), runs_set_aside.end(),
                               [&](const search::RunKey& r) { return r.same_run(c->run); });
    };
    std::optional<search::TunedConfig> choice = searched_choice(task, *records_);
    while (unchecked(choice) && runs_record_of(model_, workload)) {
      CompileOptions without = current_;
      without.default_workloads.push_back(workload);
      CompiledModel candidate;
      std::string candidate_folder = export_next(compile_model(opt_, target_, without), candidate);
      ChoiceCheck check = measure_choice(folder_, candidate_folder, inputs_, options_);
      check.workload = workload;
      check.record = choice->record_candidate.str();
      if (!check.kept) record_default(db_, *choice, check);
      if (on_check) on_check(check);
      checks.push_back(check);
      if (check.kept) break;
      runs_set_aside.push_back(choice->run);
      reread_records();
      choice = searched_choice(task, *records_);
      if (unchecked(choice)) {
        folder_ = export_next(compile_model(opt_, target_, current_), model_);  // the model with the next choice
      } else {
        current_.default_workloads.push_back(workload);
        model_ = std::move(candidate);
        folder_ = candidate_folder;
      }
    }
  }

 private:
  void reread_records() {
    records_ = std::make_unique<search::TunedRecords>(db_);
    current_.records = records_.get();
  }

  // Exports `compiled` to a new folder of the scratch and keeps it in `into`; returns the folder.
  std::string export_next(CompiledModel compiled, CompiledModel& into) {
    std::string folder = scratch_.folder(exported_++);
    export_model(compiled, folder);
    into = std::move(compiled);
    return folder;
  }

  const graph::OptimizedGraph& opt_;
  const Target& target_;
  search::RecordsDb& db_;
  const ModelCheckOptions& options_;
  ScratchFolder scratch_;
  size_t exported_ = 0;
  std::vector<NamedArray> inputs_;
  std::unique_ptr<search::TunedRecords> records_;
  CompileOptions current_;  // the records, and the workloads set aside (in case a run had no default to record)
  CompiledModel model_;
  std::string folder_;
};

}  // namespace

std::vector<ChoiceCheck> check_choices_in_model(const graph::OptimizedGraph& opt, const Target& target,
                                                const std::vector<search::WeightedTask>& tasks, search::RecordsDb& db,
                                                const ModelCheckOptions& options,
                                                const std::function<void(const ChoiceCheck&)>& on_check) {
  std::vector<ChoiceCheck> checks;
  search::TunedRecords records(db);
  if (std::none_of(tasks.begin(), tasks.end(), [&](const search::WeightedTask& t) {
        return searched_choice(t, records).has_value();
      }))
    return checks;
  ModelChecker checker(opt, target, db, std::move(records), options);
  for (const search::WeightedTask& task : tasks) checker.check_task(task, checks, on_check);
  return checks;
}

std::vector<ChoiceCheck> check_choices_at_thread_counts(const graph::Graph& g, const std::vector<std::string>& pipeline,
                                                        const Target& target, const std::vector<int>& thread_counts,
                                                        search::RecordsDb& db, const ModelCheckOptions& options,
                                                        const std::function<void(const ChoiceCheck&)>& on_check) {
  std::vector<graph::OptimizedGraph> graphs = optimize_at_thread_counts(g, pipeline, target, thread_counts);
  std::vector<ChoiceCheck> checks;
  for (const graph::OptimizedGraph& opt : graphs) {
    const Target& at_count = opt.target;
    ModelCheckOptions at_options = options;
    at_options.run.threads = at_count.cpu().threads;
    std::vector<std::string> untunable;  // no record of theirs can apply, so nothing to check or to note again
    std::vector<search::WeightedTask> tasks = model_tasks(opt, at_count, &untunable);
    std::vector<ChoiceCheck> at = check_choices_in_model(opt, at_count, tasks, db, at_options, on_check);
    checks.insert(checks.end(), at.begin(), at.end());
  }
  return checks;
}

}  // namespace tessel
