// `tessel tune`: auto-tunes one operator on this machine (search/tuner.h) and prints the best
// schedule found; with --json the last line is the run's summary as one JSON object. The vendor
// baseline (OpenBLAS for GEMM, oneDNN for convolutions) is measured first, in the same process,
// after re-executing without the machine's OpenBLAS presets (benchmarks/bench_environment.h).
//   tessel tune --workload C6 --space template --strategy random --trials 64 --db runs.db
#include <iostream>
#include <memory>
#include <sstream>

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/openblas.h"
#include "benchmarks/bench_environment.h"
#include "benchmarks/bench_runner.h"
#include "ir/printer.h"
#include "runtime/thread_pool.h"
#include "search/tuner.h"
#include "support/error.h"
#include "support/registry.h"
#include "tools/commands.h"

namespace tessel::tools {

namespace {

struct TuneArgs {
  std::string workload, space = "template", strategy = "random", db;
  std::vector<std::string> params;  // key=value for the strategy
  int64_t trials = 64, batch = 8, seed = 0;
  int threads = 2, repeats = 5;
  double timeout_s = 10;
  bool json = false;
  int first_lines = 24;
};

// "key=value" → {key: value}, the value read as JSON when it parses (numbers, booleans), else a string.
nlohmann::json strategy_params(const TuneArgs& args) {
  nlohmann::json params = nlohmann::json::object();
  for (const std::string& kv : args.params) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) user_error("--param \"", kv, "\" must look like name=value");
    nlohmann::json value = nlohmann::json::parse(kv.substr(eq + 1), nullptr, false);
    params[kv.substr(0, eq)] = value.is_discarded() ? nlohmann::json(kv.substr(eq + 1)) : value;
  }
  params["seed"] = args.seed;
  return params;
}

search::TuneOptions tune_options(const TuneArgs& args) {
  if (args.trials < 1) user_error("--trials must be >= 1, got ", args.trials);
  if (args.batch < 1) user_error("--batch must be >= 1, got ", args.batch);
  if (args.threads < 1) user_error("--threads must be >= 1, got ", args.threads);
  if (args.repeats < 1) user_error("--repeats must be >= 1, got ", args.repeats);
  if (!(args.timeout_s > 0)) user_error("--timeout must be > 0 seconds, got ", args.timeout_s);
  search::TuneOptions options;
  options.trials = args.trials;
  options.batch = static_cast<size_t>(args.batch);
  options.measure.threads = args.threads;
  options.measure.compile_threads = args.threads;
  options.measure.repeats = args.repeats;
  options.measure.timeout_s = args.timeout_s;
  return options;
}

// The vendor library on the workload, on random inputs, timed like a candidate.
search::Baseline measure_baseline(const search::WorkloadSpec& workload, int threads) {
  constexpr uint32_t kSeed = 2018;
  struct Prepare {
    int threads;
    PreparedKernel operator()(const GemmShape& s) const {
      return prepare_openblas_gemm(s, random_tensor(s.m * s.k, kSeed).data(), random_tensor(s.k * s.n, kSeed + 1).data(),
                                   threads);
    }
    PreparedKernel operator()(const Conv2dShape& s) const {
      return prepare_onednn_conv2d(s, random_tensor(s.n * s.c * s.h * s.w, kSeed).data(),
                                   random_tensor(s.oc * s.reduction_size(), kSeed + 1).data(), threads);
    }
    PreparedKernel operator()(const DepthwiseShape& s) const {
      return prepare_onednn_depthwise(s, random_tensor(s.n * s.c * s.h * s.w, kSeed).data(),
                                      random_tensor(s.c * s.k * s.k, kSeed + 1).data(), threads);
    }
  };
  PreparedKernel kernel = std::visit(Prepare{threads}, workload.shape);
  return {kernel.name, measure(kernel.run, 3, 7).median_us};
}

void print_best(const search::Task& task, const search::TuneReport& report, int first_lines) {
  if (!report.best) {
    std::cout << "no configuration ran correctly in " << report.trials << " trials (" << report.errors << " errors)\n";
    return;
  }
  const search::TrialRecord& best = *report.best;
  search::Config config = task.space().from_json(best.config);
  std::cout << "best of " << report.trials << " trials on " << task.workload().name << ": " << best.gflops
            << " GFLOP/s, " << best.result.timing.median_us << " us (spread " << best.result.timing.spread_pct
            << "%), " << report.errors << " errors\n";
  if (report.baseline.median_us > 0)
    std::cout << "baseline " << report.baseline.name << ": " << report.baseline.median_us << " us; speedup "
              << report.speedup() << "x\n";
  std::cout << "config #" << config.index() << ": " << config.describe() << "\n";
  std::istringstream program(to_string(task.lower(config)));
  std::string line;
  for (int n = 0; n < first_lines && std::getline(program, line); ++n) std::cout << "  " << line << "\n";
}

void print_json(const TuneArgs& args, const search::TuneReport& report) {
  nlohmann::ordered_json line = {{"workload", args.workload},         {"space", args.space},
                                 {"strategy", args.strategy},         {"cost_model", "none"},
                                 {"trials", report.trials},           {"errors", report.errors},
                                 {"best_us", report.best_us()},       {"best_gflops", report.best_gflops()},
                                 {"baseline", report.baseline.name},  {"baseline_us", report.baseline.median_us},
                                 {"speedup", report.speedup()}};
  std::cout << line.dump() << "\n";
}

void run_tune(const TuneArgs& args, char** argv) {
  search::TuneOptions options = tune_options(args);
  search::Task task = search::Task::create(args.workload, args.space);
  auto strategy = Registry<search::SearchStrategy>::instance().create(args.strategy, strategy_params(args));
  reexec_with_benchmark_environment(argv);
  std::unique_ptr<search::RecordsDb> db;
  if (!args.db.empty()) db = std::make_unique<search::RecordsDb>(search::RecordsDb::open(args.db));
  set_num_threads(args.threads);
  search::Baseline baseline = measure_baseline(task.workload(), args.threads);
  search::RunKey run{args.workload, args.space, args.strategy, args.seed};
  search::TuneReport report = search::Tuner(task, *strategy, run, db.get(), options).run(baseline);
  print_best(task, report, args.first_lines);
  if (args.json) print_json(args, report);
}

}  // namespace

void add_tune_command(CLI::App& app, int argc, char** argv) {
  TESSEL_CHECK(argc >= 1 && argv[argc] == nullptr, "tune needs main's argv to re-execute itself");
  auto args = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand("tune", "auto-tune one operator on this machine against its vendor baseline");
  cmd->add_option("--workload", args->workload, "C1..C12, D1..D9, gemm:N, gemm:M,N,K, conv2d:..., depthwise:...")
      ->required();
  cmd->add_option("--space", args->space, "schedule space plugin")->capture_default_str();
  cmd->add_option("--strategy", args->strategy, "search strategy plugin")->capture_default_str();
  cmd->add_option("--param", args->params, "strategy parameter name=value (repeatable)");
  cmd->add_option("--trials", args->trials, "trials of this run (resumed ones count)")->capture_default_str();
  cmd->add_option("--db", args->db, "records database (SQLite); re-running the same command resumes");
  cmd->add_option("--batch", args->batch, "configurations measured per batch")->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the strategy")->capture_default_str();
  cmd->add_option("--threads", args->threads, "threads of the kernels and of compilation")->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed samples per candidate")->capture_default_str();
  cmd->add_option("--timeout", args->timeout_s, "seconds a candidate may run")->capture_default_str();
  cmd->add_flag("--json", args->json, "end with one JSON line summarizing the run");
  cmd->callback([args, argv] { run_tune(*args, argv); });
}

}  // namespace tessel::tools
