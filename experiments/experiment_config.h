// An experiment config (YAML): what `tessel experiment run` tunes. Every key but name, description
// and seeds may be a list; the runner expands the lists into their cartesian product (the grid of
// configurations) and runs each configuration once per seed. Keys (docs/experiments.md):
//
//   name: smoke                       # required; names the outputs
//   workloads: [gemm:256, C6]         # required; docs/workloads.md names or shapes
//   space: template                   # schedule space plugin            (default template)
//   strategy: [random, model_based]   # search strategy plugin           (default random)
//   cost_model: xgboost               # cost model plugin or none        (default none)
//   trials: 32                        # trials per run                   (default 64)
//   seeds: [0, 1]                     # one run per seed                 (default [0])
//   backend: llvm_cpu                 # code generator plugin            (default: the target's kind)
//   target: "llvm_cpu -isa=avx2"      # target string (target/target.h)  (default llvm_cpu: the host)
//   measure: hardware                 # or replay:<recorded set>         (default hardware)
//   cache_flush: false                # weights evicted before each timed call (default false)
//   batch: 8                          # configurations measured per batch (default 8)
//   transfer_from: none               # records db for transfer learning  (default none)
//   repeats: 5, threads: 2, timeout: 10   # hardware measurement options (not grid keys)
//   select: 0                         # final selection: candidates re-measured after each run
//                                     # with the default configuration (search/selection.h)
//   plugin_timeout: 600               # seconds a strategy may take per batch (not a grid key)
//
// A model experiment measures compiled models instead of tuning operators:
//
//   name: end_to_end
//   workloads: [model:build/models/resnet18.onnx]   # every workload a model
//   graph_passes: [none, ""]          # pipelines (tessel compile --passes); "" all, none: no graph optimization
//   records: [none, results/resnet18.db]   # tuned records (tessel tune-model) or none
//   threads: [1, 2]
//   repeats: 10
//   rounds: 5                         # each configuration measured 5 times, in alternating order
//
// A plugin is a name or {name: ..., params: {...}}. Everything is checked on load, before any
// work: unknown keys, unknown plugins or parameters (with the valid names), wrong types and
// malformed YAML all throw UserError starting with "file:line:column:".
//
//   ExperimentConfig config = ExperimentConfig::load("experiments/smoke.yaml");
//   for (const RunSpec& run : config.runs()) ...
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessel::experiments {

struct PluginChoice {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  std::string label() const;  // "genetic" or "genetic{pop_size=16}"
  nlohmann::json to_json() const;
};

// One point of the grid: everything but the seed.
struct Configuration {
  std::string workload;
  PluginChoice space, strategy, cost_model, backend;
  int64_t trials = 64, batch = 8;
  std::string measure = "hardware";  // "hardware" | "replay:<set>"
  bool cache_flush = false;          // search::MeasureOptions::flush_cache (hardware only)
  std::string transfer_from;         // empty: none
  std::string target = "llvm_cpu";   // as written; the runner resolves it with the thread count
  std::string cost_model_used;       // cost_model.name, or "none" when the strategy takes no model
  // Names the configuration among those of its workload: strategy, the model it uses, and every
  // other grid key the config varies, e.g. "model_based+xgboost" or "random trials=64".
  std::string label;
  nlohmann::json to_json() const;
};

struct RunSpec {
  size_t configuration = 0;  // index into ExperimentConfig::configurations
  int64_t seed = 0;
};

struct MeasureSettings {
  int repeats = 5, threads = 2, select = 0;
  // Model experiments: how many times each configuration is measured, one configuration after
  // another within a round and the order reversed every other round (experiments/runner.cpp).
  int rounds = 1;
  double timeout_s = 10;
  double plugin_timeout_s = 600;  // per strategy call (search/tuner.h TuneOptions::plugin_time_limit_s)
};

// One measurement of a model experiment: a model compiled with a graph pass pipeline (and tuned
// records) run on a thread count, against libtorch when its TorchScript file lies beside it.
struct ModelConfiguration {
  std::string model;          // the ONNX file (the workload without "model:")
  std::string graph_passes;   // a pipeline as --passes takes it; "" the default (all passes)
  std::string records;        // a records database whose tuned configurations the groups run; "": none
  int threads = 2;
  std::string label;          // "passes=default threads=2", the keys the config varies
  nlohmann::json to_json() const;
};

struct ExperimentConfig {
  std::string path, name, description;
  nlohmann::json source;  // the config as read, for the manifest
  std::vector<int64_t> seeds = {0};
  std::vector<Configuration> configurations;
  MeasureSettings measure;
  // A model experiment (its workloads are all "model:PATH.onnx"; see docs/experiments.md) has
  // these instead of configurations: workloads × graph_passes × records × threads, each list
  // optional (graph_passes default [""]: every pass; "none": memory planning alone; records default
  // none; threads default 2), repeats and rounds.
  std::vector<ModelConfiguration> models;
  bool is_model_experiment() const { return !models.empty(); }

  // Parses and validates; throws UserError "path:line:column: what is wrong; what is valid".
  // `default_target` is the target of configurations whose config names none (`--target`).
  static ExperimentConfig load(const std::string& path, const std::string& default_target = "llvm_cpu");
  // The same from text (path names it in messages).
  static ExperimentConfig parse(const std::string& text, const std::string& path,
                                const std::string& default_target = "llvm_cpu");

  // Configurations × seeds, configuration-major.
  std::vector<RunSpec> runs() const;
};

}  // namespace tessel::experiments
