// The experiment runner (experiments/runner.h).
#include "experiments/runner.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "experiments/provenance.h"
#include "experiments/report.h"
#include "search/measure/measurer.h"
#include "search/replay/replay_measurer.h"
#include "search/strategy_factory.h"
#include "support/error.h"
#include "support/install_paths.h"
#include "support/output_file.h"
#include "support/registry.h"
#include "support/timing.h"

#ifndef TESSEL_SOURCE_TREE
#define TESSEL_SOURCE_TREE "."
#endif

namespace tessel::experiments {

namespace {

namespace fs = std::filesystem;

void write_json(const fs::path& path, const nlohmann::json& json) { write_file_atomically(path, json.dump(2) + "\n"); }

// A folder that already holds another experiment's results is refused, so that resuming never
// mixes two experiments' runs in one records database.
void check_resumable(const fs::path& out, const ExperimentConfig& config) {
  std::ifstream in(out / "manifest.json");
  if (!in) return;
  nlohmann::json earlier = nlohmann::json::parse(in, nullptr, false);
  std::string name = earlier.is_object() ? earlier.value("name", "") : "";
  if (name != config.name)
    user_error("output folder '", out.string(), "' holds the results of experiment '", name, "', not '", config.name,
               "'; choose another --out");
}

// A configuration's target with the experiment's thread count, unless its target string sets one.
Target resolved_target(const Configuration& c, const ExperimentConfig& config) {
  Target target = Target::parse(c.target);
  bool sets_threads = c.target.find("-threads=") != std::string::npos;
  return target.is_cpu() && !sets_threads ? target.with_threads(config.measure.threads) : target;
}

// The libraries loaded with --plugin, with the hash of each (their runs' keys carry it too).
nlohmann::json plugin_libraries_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const PluginLibrary& library : loaded_plugin_libraries()) out.push_back(library.to_json());
  return out;
}

nlohmann::json manifest(const ExperimentConfig& config, const RunnerOptions& options) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunSpec& r : config.runs()) {
    const Configuration& c = config.configurations[r.configuration];
    nlohmann::json run = c.to_json();
    run["seed"] = r.seed;
    run["target_resolved"] = resolved_target(c, config).str();
    runs.push_back(run);
  }
  nlohmann::json libraries = library_versions();
  libraries.update(options.extra_libraries);
  return {{"name", config.name},        {"config_file", config.path},  {"config", config.source},
          {"seeds", config.seeds},       {"runs", runs},                {"git", git_state()},
          {"libraries", libraries},      {"cpu", cpu_info()},           {"started_at", utc_now()},
          {"host_target", Target::host().str()},  {"environment", options.environment},
          {"plugin_libraries", plugin_libraries_json()},
          {"command", options.command_line},
          {"measure_options", {{"repeats", config.measure.repeats}, {"threads", config.measure.threads},
                               {"timeout_s", config.measure.timeout_s}, {"select", config.measure.select},
                               {"plugin_timeout_s", config.measure.plugin_timeout_s}}}};
}

// The tasks, measure sources and baselines of an experiment, each made once and shared by runs.
class Workbench {
 public:
  Workbench(const ExperimentConfig& config, const RunnerOptions& options) : config_(config), options_(options) {}

  const search::Task& task(const Configuration& c) {
    Target target = target_of(c);
    std::string key = c.workload + "|" + c.space.label() + "|" + target.key();
    if (!tasks_.count(key))
      tasks_.emplace(key, std::make_unique<search::Task>(
                              search::Task::create(c.workload, c.space.name, c.space.params, target)));
    return *tasks_.at(key);
  }

  const search::MeasureSource& source(const Configuration& c) {
    std::string key = c.workload + "|" + c.space.label() + "|" + c.measure + "|" + c.backend.label() + "|" + c.target +
                      (c.cache_flush ? "|cache_flush" : "");
    if (!sources_.count(key)) sources_.emplace(key, make_source(c));
    return *sources_.at(key);
  }

  const WorkloadBaseline& baseline(const Configuration& c) {
    std::string key = baseline_key(c);
    if (!baselines_.count(key)) baselines_.emplace(key, make_baseline(c));
    return baselines_.at(key);
  }

  const std::map<std::string, WorkloadBaseline>& baselines() const { return baselines_; }

 private:
  std::unique_ptr<search::MeasureSource> make_source(const Configuration& c) {
    if (c.measure == "hardware") {
      search::MeasureOptions m;
      m.repeats = config_.measure.repeats;
      m.threads = m.compile_threads = config_.measure.threads;
      m.timeout_s = config_.measure.timeout_s;
      m.flush_cache = c.cache_flush;
      m.backend = c.backend.name;
      m.backend_params = c.backend.params;
      return std::make_unique<search::Measurer>(task(c), m);
    }
    std::string set = c.measure.substr(7);
    const search::RecordedSet& recorded = recorded_set(set);
    return std::make_unique<search::ReplayMeasurer>(task(c), recorded.workload(c.workload, c.space.name), set);
  }

  WorkloadBaseline make_baseline(const Configuration& c) {
    const search::WorkloadSpec& w = task(c).workload();
    WorkloadBaseline b;
    if (c.measure == "hardware") {
      if (options_.measure_baseline) b.baseline = options_.measure_baseline(w, config_.measure.threads, c.cache_flush);
    } else {
      const search::RecordedWorkload& r = recorded_set(c.measure.substr(7)).workload(c.workload, c.space.name);
      b.baseline = {r.baseline_name, r.baseline_us, ""};
    }
    if (b.baseline.median_us > 0) b.gflops = w.flops() / b.baseline.median_us * 1e-3;
    return b;
  }

  // A replayed task is built for the target its set was recorded for (its space and programs
  // depend on it); a measured one for the host.
  Target target_of(const Configuration& c) {
    if (c.measure == "hardware") return resolved_target(c, config_);
    return recorded_set(c.measure.substr(7)).workload(c.workload, c.space.name).replay_target();
  }

  const search::RecordedSet& recorded_set(const std::string& set) {
    std::string path = search::resolve_recorded_set(set);
    if (!sets_.count(path)) sets_.emplace(path, search::RecordedSet::load(path));
    return sets_.at(path);
  }

  const ExperimentConfig& config_;
  const RunnerOptions& options_;
  std::map<std::string, std::unique_ptr<search::Task>> tasks_;
  std::map<std::string, std::unique_ptr<search::MeasureSource>> sources_;
  std::map<std::string, WorkloadBaseline> baselines_;
  std::map<std::string, search::RecordedSet> sets_;
};

RunResult run_one(const ExperimentConfig& config, const RunSpec& spec, size_t number, size_t total,
                  Workbench& bench, search::RecordsDb& db, const RunnerOptions& options) {
  const Configuration& c = config.configurations[spec.configuration];
  const search::Task& task = bench.task(c);
  const WorkloadBaseline& baseline = bench.baseline(c);
  search::StrategyChoice choice{c.strategy.name,    c.strategy.params, c.cost_model.name,
                                c.cost_model.params, spec.seed,         c.transfer_from};
  auto strategy = search::create_strategy(choice);
  search::TuneOptions tune;
  tune.trials = c.trials;
  tune.batch = static_cast<size_t>(c.batch);
  tune.progress = false;
  tune.select.candidates = config.measure.select;
  tune.plugin_time_limit_s = config.measure.plugin_timeout_s;
  search::RunKey key =
      search::make_run_key(task, c.label + search::run_plugins_key(choice, c.space.name, c.backend.name), spec.seed);
  key.space = c.space.label();  // its parameters too: runs in differently set spaces never resume each other
  auto show = [&](const search::TuneReport& r) {
    if (options.progress)
      *options.progress << "[run " << number << "/" << total << "] " << c.workload << " " << c.label << " seed "
                        << spec.seed << ": trial " << r.trials << "/" << c.trials << ", best " << r.best_gflops()
                        << " GFLOP/s, " << r.errors << " errors" << std::endl;
  };
  search::Tuner tuner(task, *strategy, key, &db, tune);
  search::TuneReport report = tuner.run(baseline.baseline, &bench.source(c), show);
  const search::SelectionRecord* chosen = report.chosen();
  return {spec, report.curve, report.errors, chosen ? chosen->gflops : 0, chosen && chosen->origin == "default"};
}

// Runs a shell command, collecting what it prints; returns its exit status (-1: did not run or
// was killed by a signal).
int run_capturing(const std::string& command, std::string& output) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  int status = ::pclose(pipe);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.empty() ? "no output" : text.substr(text.rfind('\n') + 1);  // npos + 1 == 0
}

void plot(const fs::path& out, std::ostream* progress) {
  // An installed Tessel runs its installed copy; a build tree the source tree's.
  fs::path installed = installed_data_dir();
  fs::path script = installed.empty() ? fs::path(TESSEL_SOURCE_TREE) / "experiments/plot_curves.py"
                                      : installed / "plot_curves.py";
  std::string command = "/usr/bin/python3 '" + script.string() + "' '" + out.string() + "'";
  std::string output;
  int status = run_capturing(command + " 2>&1", output);
  if (status == 0) return;
  if (status == 3) {  // matplotlib missing: the results are complete without plots
    if (progress)
      *progress << "warning: no plots (" << last_line(output)
                << "); install python3-matplotlib (scripts/install-deps.sh) and run: " << command << "\n";
    return;
  }
  user_error("plotting into '", (out / "plots").string(), "' failed: ", last_line(output),
             "; the other results are complete; fix the cause and run: ", command);
}

// summary.md of a model experiment: one row per configuration, with its speedup over the first
// configuration of the same model and thread count (the ablation's reference: "unfused" in the
// fusion ablation, "no graph optimizations" end to end): over several rounds, the median of the
// rounds' own ratios and their range.
void write_models_md(const fs::path& path, const ExperimentConfig& config, const nlohmann::json& models) {
  write_file_atomically(path.string(), [&](std::ostream& o) {
    o << "# " << config.name << "\n\n" << config.description << "\n\n";
    if (config.measure.rounds > 1)
      o << "Medians of " << config.measure.rounds << " rounds (each configuration once a round, the order "
        << "reversed every other round); the speedup over the first configuration is the median of the rounds' "
        << "ratios, with their range.\n\n";
    o << "| model | configuration | Tessel ms | vs first configuration | libtorch ms | speedup | correct |\n"
      << "|---|---|---|---|---|---|---|\n";
    for (const nlohmann::json& m : models) {
      bool torch = m.value("baseline_ms", 0.0) > 0;
      bool reference = m.value("reference", false);
      std::string relative = reference ? "1x (reference)" : std::to_string(m["vs_reference"].get<double>()) + "x";
      if (!reference && config.measure.rounds > 1)
        relative += " (" + std::to_string(m["vs_reference_low"].get<double>()) + "–" +
                    std::to_string(m["vs_reference_high"].get<double>()) + ")";
      o << "| " << m["model"].get<std::string>() << " | " << m["label"].get<std::string>() << " | "
        << m["tessel_ms"].get<double>() << " | " << relative
        << " | " << (torch ? std::to_string(m["baseline_ms"].get<double>()) + " (" + m.value("baseline_mode", "") + ")" : "–")
        << " | " << (torch ? std::to_string(m["speedup"].get<double>()) + "x" : "–") << " | "
        << (m.contains("correct") ? (m["correct"].get<bool>() ? "yes" : "NO") : "–") << " |\n";
    }
  });
}

double median_of(std::vector<double> values) { return tessel::summarize(std::move(values)).median_us; }

// One configuration's result over its rounds: the measurement of the round closest to the median,
// with the medians of Tessel's and libtorch's times and of the speedup, each round's time, and
// correct only if every round's outputs were.
nlohmann::json over_rounds(const std::vector<nlohmann::json>& rounds) {
  std::vector<double> tessel, baseline, speedup;
  bool correct = true;
  for (const nlohmann::json& r : rounds) {
    tessel.push_back(r.value("tessel_ms", 0.0));
    if (r.contains("baseline_ms")) baseline.push_back(r["baseline_ms"].get<double>());
    if (r.contains("speedup")) speedup.push_back(r["speedup"].get<double>());
    correct = correct && r.value("correct", true);
  }
  double median = median_of(tessel);
  auto closest = std::min_element(tessel.begin(), tessel.end(),
                                  [&](double a, double b) { return std::abs(a - median) < std::abs(b - median); });
  nlohmann::json result = rounds[closest - tessel.begin()];
  result["tessel_ms"] = median;
  result["round_tessel_ms"] = tessel;
  if (!baseline.empty()) result["baseline_ms"] = median_of(baseline);
  if (!speedup.empty()) result["speedup"] = median_of(speedup);
  if (rounds.front().contains("correct")) result["correct"] = correct;
  return result;
}

// Each result's speedup over the first configuration of its model and thread count, round by
// round (a round's two measurements were taken close together): "vs_reference" the median of
// those ratios, "_low" and "_high" their range; "reference" marks the first configurations.
void add_speedups_over_reference(const ExperimentConfig& config, nlohmann::json& models) {
  std::map<std::pair<std::string, int>, size_t> first;
  for (size_t i = 0; i < config.models.size(); ++i)
    first.emplace(std::make_pair(config.models[i].model, config.models[i].threads), i);
  for (size_t i = 0; i < config.models.size(); ++i) {
    size_t ref = first.at({config.models[i].model, config.models[i].threads});
    std::vector<double> ratios;
    for (size_t r = 0; r < models[i]["round_tessel_ms"].size(); ++r)
      ratios.push_back(models[ref]["round_tessel_ms"][r].get<double>() / models[i]["round_tessel_ms"][r].get<double>());
    TimingStats stats = tessel::summarize(ratios);
    models[i]["reference"] = ref == i;
    models[i]["vs_reference"] = stats.median_us;
    models[i]["vs_reference_low"] = stats.min_us;
    models[i]["vs_reference_high"] = stats.max_us;
  }
}

nlohmann::json run_models(const ExperimentConfig& config, const RunnerOptions& options, const fs::path& out) {
  if (!options.measure_model) user_error("this runner cannot measure models (no model measurement given)");
  nlohmann::json m = {{"name", config.name}, {"config_file", config.path}, {"config", config.source},
                      {"runs", nlohmann::json::array()}, {"git", git_state()}, {"libraries", library_versions()},
                      {"cpu", cpu_info()}, {"started_at", utc_now()}, {"host_target", Target::host().str()},
                      {"environment", options.environment},
                      {"command", options.command_line}, {"repeats", config.measure.repeats},
                      {"rounds", config.measure.rounds}};
  for (const ModelConfiguration& c : config.models) m["runs"].push_back(c.to_json());
  write_json(out / "manifest.json", m);
  // Each configuration once a round, the order reversed every other round, so that the machine's
  // slow and fast phases fall on every configuration alike and a configuration's ratio to its
  // reference is taken from measurements close in time.
  const size_t n = config.models.size();
  const int rounds = config.measure.rounds;
  std::vector<std::vector<nlohmann::json>> measured(n);
  for (int round = 0; round < rounds; ++round)
    for (size_t k = 0; k < n; ++k) {
      size_t i = round % 2 == 0 ? k : n - 1 - k;
      const ModelConfiguration& c = config.models[i];
      nlohmann::json result = options.measure_model(c, config.measure.repeats);
      result["label"] = c.label;
      result["model"] = c.model;
      if (options.progress) {
        std::string of_rounds = rounds > 1 ? detail::concat(", round ", round + 1, "/", rounds) : "";
        *options.progress << "[model " << i + 1 << "/" << n << of_rounds << "] " << c.model << " " << c.label << ": "
                          << result.value("tessel_ms", 0.0) << " ms" << std::endl;
      }
      measured[i].push_back(result);
    }
  nlohmann::json models = nlohmann::json::array();
  for (const std::vector<nlohmann::json>& results : measured) models.push_back(over_rounds(results));
  add_speedups_over_reference(config, models);
  nlohmann::json summary = {{"models", models}};
  write_json(out / "summary.json", summary);
  write_models_md(out / "summary.md", config, models);
  if (options.plots) plot(out, options.progress);
  return summary;
}

}  // namespace

nlohmann::json run_experiment(const ExperimentConfig& config, const RunnerOptions& options) {
  fs::path out(options.out_dir);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) user_error("cannot create output folder '", out.string(), "': ", ec.message());
  check_resumable(out, config);
  if (config.is_model_experiment()) return run_models(config, options, out);
  search::RecordsDb db = search::RecordsDb::open((out / "records.db").string());
  write_json(out / "manifest.json", manifest(config, options));
  Workbench bench(config, options);
  std::vector<RunSpec> specs = config.runs();
  // Every baseline is measured before any tuning run: once candidates have been measured, oneDNN's
  // times in this process came out up to 10x slower (D6 after C3: 13.5 against 137 GFLOP/s), which
  // `tessel bench` and `tessel tune`, measuring the baseline first, never showed.
  for (const RunSpec& spec : specs) bench.baseline(config.configurations[spec.configuration]);
  std::vector<RunResult> results;
  for (size_t i = 0; i < specs.size(); ++i)
    results.push_back(run_one(config, specs[i], i + 1, specs.size(), bench, db, options));
  nlohmann::json summary = summarize(config, results, bench.baselines());
  write_json(out / "summary.json", summary);
  write_curves_csv((out / "curves.csv").string(), config, results);
  write_summary_md((out / "summary.md").string(), config, summary);
  if (options.plots) plot(out, options.progress);
  return summary;
}

}  // namespace tessel::experiments
