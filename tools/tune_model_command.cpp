// `tessel tune-model model.onnx --db runs.db --trials N [--scheduler round_robin|gradient]`: the
// model's tuning tasks (compiler/model_tasks.h: one per distinct anchor workload of its fused
// groups, after the same graph passes as `tessel compile`) tuned with one trial budget, a round at
// a time, the task of each round chosen by a task_scheduler plugin (search/task_tuning.h). One line
// per round for the task tuned and one for the model; re-running resumes (the budget counts the
// trials already recorded). Each task ends with tessel tune's final selection (--select, on by
// default), and each searched choice is then timed in the compiled model against its default
// (--model-rounds, on each of --model-threads; compiler/model_check.h); the choices that stay are
// what `tessel compile model.onnx --records runs.db` then runs.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "compiler/model_check.h"
#include "compiler/model_tasks.h"
#include "frontends/onnx/onnx_importer.h"
#include "runtime/thread_pool.h"
#include "search/task_tuning.h"
#include "support/error.h"
#include "support/registry.h"
#include "tools/commands.h"
#include "tools/number_option.h"
#include "tools/search_options.h"
#include "tools/target_option.h"

namespace tessel::tools {

namespace {

struct TuneModelArgs : SearchArgs {
  std::string model, passes, scheduler = "gradient";
  std::vector<std::string> scheduler_params;
  int64_t round = 16;
  int64_t model_rounds = 30;
  double model_margin_pct = 0;
  std::vector<int> model_threads;  // empty: --threads
  bool json = false;
  bool any_split = false;  // --any-thread-split
};

// Sum over tasks of weight × best latency: the part of the model's time its tuned groups take, as
// far as the measurements of each operator alone tell.
double estimated_us(const std::vector<search::TaskProgress>& tasks, int* untuned) {
  double total = 0;
  *untuned = 0;
  for (const search::TaskProgress& t : tasks) {
    if (t.best_us() > 0) total += t.weight * t.best_us();
    else ++*untuned;
  }
  return total;
}

void print_task(size_t i, const std::vector<search::TaskProgress>& tasks) {
  const search::TaskProgress& t = tasks[i];
  std::cout << "task " << i + 1 << "/" << tasks.size() << " " << t.name << " (x" << t.weight << "): ";
  if (t.trials() == 0) std::cout << "not tuned yet\n";
  else if (t.best_us() <= 0) std::cout << t.trials() << " trials, none correct yet\n";
  else std::cout << t.trials() << " trials, best " << std::fixed << std::setprecision(1) << t.best_us() << " us\n"
                 << std::defaultfloat;
}

int64_t total_trials(const std::vector<search::TaskProgress>& tasks) {
  int64_t trials = 0;
  for (const search::TaskProgress& t : tasks) trials += t.trials();
  return trials;
}

// The time this process has tuned, from the state it resumed, and at that pace the time the rest of
// the budget takes: a long tune's progress in minutes, not only in trials.
class TuningPace {
 public:
  void start(int64_t trials) {
    start_ = std::chrono::steady_clock::now();
    first_ = trials;
  }
  // "; 3.2 min for 48 trials here, about 9.8 min left at that pace"; empty before a trial ran here.
  std::string describe(int64_t trials, int64_t budget) const {
    int64_t measured = trials - first_;
    if (measured <= 0) return "";
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string text = "; " + duration(seconds) + " for " + std::to_string(measured) +
                       (measured == 1 ? " trial here" : " trials here");
    if (trials < budget) text += ", about " + duration(seconds / measured * (budget - trials)) + " left at that pace";
    return text;
  }

 private:
  static std::string duration(double seconds) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(seconds < 60 ? 0 : 1);
    if (seconds < 60) out << seconds << " s";
    else out << seconds / 60 << " min";
    return out.str();
  }

  std::chrono::steady_clock::time_point start_;
  int64_t first_ = 0;
};

void print_model(const std::vector<search::TaskProgress>& tasks, int64_t budget, const TuningPace& pace) {
  int64_t trials = total_trials(tasks);
  int untuned = 0;
  double us = estimated_us(tasks, &untuned);
  std::cout << "model: " << trials << "/" << budget << " trials over " << tasks.size() << " tasks; tuned groups "
            << std::fixed << std::setprecision(3) << us / 1e3 << std::defaultfloat << " ms (weight x best)";
  if (untuned > 0) std::cout << ", " << untuned << " of them without a correct trial yet";
  std::cout << pace.describe(trials, budget) << "\n";
}

// One line per task: the selection's choice, and the default's time beside it.
void print_selection(size_t i, const std::vector<search::WeightedTask>& tasks,
                     const std::vector<search::SelectionRecord>& candidates) {
  const search::SelectionRecord* chosen = search::chosen_candidate(candidates);
  std::cout << "selected " << i + 1 << "/" << tasks.size() << " " << tasks[i].task.workload().name << ": ";
  if (!chosen) {
    std::cout << "no candidate ran correctly in every round\n";
    return;
  }
  std::cout << std::fixed << std::setprecision(1) << chosen->median_us << " us (" << chosen->origin << ")";
  for (const search::SelectionRecord& c : candidates)
    if (c.origin == "default" && !c.chosen && c.median_us > 0) std::cout << ", default " << c.median_us << " us";
  std::cout << std::defaultfloat << "\n";
}

// One line per choice checked in the model.
void print_check(const ChoiceCheck& c) {
  std::cout << "in the model on " << c.threads << (c.threads == 1 ? " thread: " : " threads: ") << c.workload
            << " (record " << c.record << "): ";
  if (c.ratio > 0)
    std::cout << std::fixed << std::setprecision(3) << c.ratio << " of the model's time with the default (median "
              << c.median_low << "-" << c.median_high << " at " << std::setprecision(0) << 100 * c.confidence
              << "% confidence; " << std::setprecision(3) << c.low << "-" << c.high << " over the rounds; "
              << c.with_ms << " vs " << c.without_ms << " ms)" << std::defaultfloat;
  else
    std::cout << "not measured: " << c.note;
  std::cout << (c.kept ? ": kept" : ": set aside, the default runs") << "\n";
}

// The task's check in the model ("model_check": the last, which decided what runs) and, where a
// database of several runs of the task offered more than one choice, the earlier ones.
void add_model_checks(nlohmann::json& task, const std::string& workload, const std::vector<ChoiceCheck>& checks) {
  std::vector<nlohmann::json> of_task;
  for (const ChoiceCheck& c : checks)
    if (c.workload == workload)
      of_task.push_back({{"record", c.record},
                         {"threads", c.threads},
                         {"ratio", c.ratio},
                         {"low", c.low},
                         {"high", c.high},
                         {"median_low", c.median_low},
                         {"median_high", c.median_high},
                         {"confidence", c.confidence},
                         {"kept", c.kept},
                         {"note", c.note}});
  if (of_task.empty()) return;
  task["model_check"] = of_task.back();
  if (of_task.size() > 1) task["earlier_model_checks"] = std::vector<nlohmann::json>(of_task.begin(), of_task.end() - 1);
}

void print_json(const TuneModelArgs& a, const std::vector<search::WeightedTask>& tasks,
                const std::vector<search::TaskProgress>& done,
                const std::vector<std::vector<search::SelectionRecord>>& selected,
                const std::vector<ChoiceCheck>& checks) {
  nlohmann::json line = {{"model", a.model}, {"db", a.db}, {"budget", a.trials}, {"scheduler", a.scheduler}};
  int64_t trials = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    trials += done[i].trials();
    line["tasks"].push_back({{"workload", done[i].name},
                             {"workload_key", tasks[i].task.workload().key()},
                             {"weight", done[i].weight},
                             {"trials", done[i].trials()},
                             {"best_us", done[i].best_us()}});
    if (const search::SelectionRecord* c = search::chosen_candidate(selected[i])) {
      line["tasks"].back()["chosen_us"] = c->median_us;
      line["tasks"].back()["chosen_origin"] = c->origin;
    }
    add_model_checks(line["tasks"].back(), done[i].name, checks);
  }
  int untuned = 0;
  line["trials"] = trials;
  line["estimated_us"] = estimated_us(done, &untuned);
  std::cout << line.dump() << "\n";
}

// The thread counts the model's modules are checked at (--model-threads, else --threads).
std::vector<int> checked_thread_counts(const TuneModelArgs& a) {
  return a.model_threads.empty() ? std::vector<int>{a.threads} : a.model_threads;
}

// The selections' searched choices timed in the model (--model-rounds; none with 0), on each of
// --model-threads.
std::vector<ChoiceCheck> check_in_model(const TuneModelArgs& a, const graph::Graph& g, const Target& target,
                                        search::RecordsDb& db) {
  if (a.model_rounds == 0) return {};
  ModelCheckOptions check;
  check.run.repeats = a.repeats;
  check.run.timeout_s = a.timeout_s;
  check.rounds = static_cast<int>(a.model_rounds);
  check.margin = a.model_margin_pct / 100;
  return check_choices_at_thread_counts(g, graph::parse_pipeline(a.passes), target, checked_thread_counts(a), db, check,
                                        [](const ChoiceCheck& c) {
                                          print_check(c);
                                          std::cout.flush();
                                        });
}

void tune_model(const TuneModelArgs& a) {
  auto scheduler = Registry<search::TaskScheduler>::instance().create(
      a.scheduler, parse_param_assignments(a.scheduler_params, "--scheduler-param"));
  search::TaskTuningOptions options;
  options.trials = a.trials;
  options.round = a.round;
  options.strategy = strategy_choice(a);
  options.tune = tune_options(a);
  options.tune.progress = false;
  options.select.candidates = a.select;
  options.select.default_margin = a.default_margin_pct / 100;
  options.select.default_split = a.threads > 1 && !a.any_split;
  options.run_label = run_label(options.strategy, "template", options.tune.measure);
  Target target = resolve_target(a.target, a.threads);
  target.check_runs_here("tune-model");
  graph::Graph g = frontend::import_onnx(a.model);
  // The modules of every thread count the choices are checked at, whose groups may differ.
  std::vector<search::WeightedTask> tasks =
      model_tasks_at_thread_counts(g, graph::parse_pipeline(a.passes), target, checked_thread_counts(a));
  if (tasks.empty())
    user_error("tune-model: '", a.model, "' has no group whose anchor operator has a schedule template ",
               "(conv2d, depthwise conv2d or dense); there is nothing to tune");
  search::RecordsDb db = search::RecordsDb::open(a.db);
  set_num_threads(a.threads);
  std::cout << a.model << ": " << tasks.size() << " tasks, " << a.trials << " trials in all, rounds of " << a.round
            << ", scheduler " << a.scheduler << "\n";
  TuningPace pace;
  std::vector<search::TaskProgress> done =
      search::tune_tasks(tasks, *scheduler, db, options, [&](int i, const std::vector<search::TaskProgress>& p) {
        if (i < 0) {
          pace.start(total_trials(p));
          for (size_t t = 0; t < p.size(); ++t) print_task(t, p);
        } else {
          print_task(static_cast<size_t>(i), p);
        }
        print_model(p, a.trials, pace);
        std::cout.flush();  // progress, also when stdout is a file or a pipe
      });
  std::vector<std::vector<search::SelectionRecord>> selected =
      search::select_tasks(tasks, db, options, [&](size_t i, const std::vector<search::SelectionRecord>& c) {
        print_selection(i, tasks, c);
        std::cout.flush();
      });
  std::vector<ChoiceCheck> checks = check_in_model(a, g, target, db);
  std::cout << "compile with the results: tessel compile " << a.model << " -o OUT --records " << a.db
            << (a.passes.empty() ? "" : " --passes " + a.passes) << "\n";
  if (a.json) print_json(a, tasks, done, selected, checks);
}

}  // namespace

void add_tune_model_command(CLI::App& app) {
  auto args = std::make_shared<TuneModelArgs>();
  args->trials = 200;
  auto* cmd =
      app.add_subcommand("tune-model", "tune the operators of an ONNX model's fused groups with one trial budget");
  cmd->add_option("model", args->model, "the ONNX model")->required();
  cmd->add_option("--db", args->db, "records database (SQLite); re-running resumes, tessel compile --records reads it")
      ->required();
  add_search_options(cmd, *args, "trials in all, over every task (those already recorded count)");
  cmd->add_option("--scheduler", args->scheduler, "task_scheduler plugin: round_robin, gradient (tessel plugins)")
      ->capture_default_str();
  cmd->add_option("--scheduler-param", args->scheduler_params, "task scheduler parameter name=value (repeatable)");
  add_number_option(cmd, "--round", args->round, "trials a round gives the task the scheduler names", limits::trials());
  add_number_option(cmd, "--model-rounds", args->model_rounds,
                    "after the final selection, time the model with each searched choice against the model with its "
                    "default over this many rounds (--repeats samples of each, interleaved), in the sandbox, and keep the "
                    "choice only if the model is faster with it (0: no check)",
                    Allowed::at_least(0).at_most(1000));
  add_number_option(cmd, "--model-margin", args->model_margin_pct,
                    "keep a choice only if the model takes at most 100 - this many percent of its time with the "
                    "default, at 95% confidence (the median over the rounds of the ratio of the two, by the sign test; "
                    "0: faster beyond the noise)",
                    Allowed::at_least(0).at_most(50));
  cmd->add_option("--model-threads", args->model_threads,
                  "check the choices in the model on each of these thread counts in turn (a comma list; default: "
                  "--threads): a choice stays only if the model gains from it on every count; the tasks are those "
                  "of the model compiled for each count")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  cmd->add_option("--passes", args->passes, "graph passes, as for tessel compile");
  cmd->add_flag("--json", args->json, "end with one JSON line: the tasks, their trials and best latencies");
  cmd->add_flag("--any-thread-split", args->any_split,
                "in the final selection, also choose configurations that split a layer between the threads unlike "
                "its default (on several threads they are left out: alone they cannot show what the split costs the "
                "layer's neighbours)");
  cmd->callback([args] { tune_model(*args); });
}

}  // namespace tessel::tools
