// `tessel tune`: auto-tunes one operator on this machine (search/tuner.h) and prints the best
// schedule found; with --json the last line is the run's summary as one JSON object. The vendor
// baseline (OpenBLAS for GEMM, oneDNN for convolutions) is measured first, in the same process,
// after re-executing without the machine's OpenBLAS presets (benchmarks/bench_environment.h).
// The run ends with a final selection (search/selection.h) unless --select 0; best_us and speedup
// are then the chosen configuration's, re-measured.
// The strategy, its cost model and transfer source are made by search/strategy_factory.h.
// The code is generated for --target (default: the host); a target this machine cannot run is
// refused. Runs are keyed by what they compute: --workload C6 and --workload
// conv2d:1,128,28,28,128,3,1,1 continue the same run.
//   tessel tune --workload C6 --space template --strategy random --trials 64 --db runs.db
//   tessel tune --workload C6 --strategy model_based --cost-model xgboost --transfer-from old.db
//   tessel tune --workload gemm:1024 --target "llvm_cpu -isa=avx2" --db runs.db
#include <iostream>
#include <memory>
#include <sstream>

#include "backends/backend.h"
#include "benchmarks/bench_environment.h"
#include "ir/printer.h"
#include "runtime/thread_pool.h"
#include "search/strategy_factory.h"
#include "search/tuner.h"
#include "support/error.h"
#include "support/registry.h"
#include "tools/commands.h"
#include "tools/target_option.h"
#include "tools/number_option.h"
#include "tools/search_options.h"
#include "tools/vendor_baseline.h"

namespace tessel::tools {

namespace {

struct TuneArgs : SearchArgs {
  std::string workload, space = "template";
  bool json = false;
  int first_lines = 24;
};

// The final selection's candidates, one line each, the chosen one marked.
void print_selection(const search::TuneReport& report) {
  if (report.selection.empty()) return;
  std::cout << "final selection (" << report.selection.front().rounds << " alternating rounds):\n";
  for (const search::SelectionRecord& c : report.selection) {
    std::cout << (c.chosen ? "  * " : "    ") << c.candidate.str() << " (" << c.origin << "): ";
    if (c.median_us > 0) std::cout << c.median_us << " us, " << c.gflops << " GFLOP/s\n";
    else std::cout << "failed in a round\n";
  }
}

void print_best(const search::Task& task, const search::TuneReport& report, const TuneArgs& args) {
  if (!report.best) {
    std::cout << "no configuration ran correctly in " << report.trials << " trials (" << report.errors << " errors)\n";
    return;
  }
  const search::TrialRecord& best = *report.best;
  std::cout << "best of " << report.trials << " trials on " << task.workload().name << ": " << best.gflops
            << " GFLOP/s, " << best.result.timing.median_us << " us (spread " << best.result.timing.spread_pct
            << "%), " << report.errors << " errors\n";
  print_selection(report);
  const search::SelectionRecord* chosen = report.chosen();
  const char* which = chosen ? "chosen" : "best";
  search::Candidate candidate = chosen ? chosen->candidate : best.candidate;
  if (report.baseline.median_us > 0)
    std::cout << "baseline " << report.baseline.name << ": " << report.baseline.median_us << " us; speedup "
              << report.speedup() << "x (" << which << " configuration"
              << (args.cache_flush ? "; both timed with their weights flushed from the caches" : "") << ")\n";
  std::cout << which << " config " << candidate.str() << ": " << task.space().describe(candidate) << "\n";
  std::istringstream program(to_string(task.lower(candidate)));
  std::string line;
  for (int n = 0; n < args.first_lines && std::getline(program, line); ++n) std::cout << "  " << line << "\n";
}

void print_json(const TuneArgs& args, const search::Task& task, const std::string& cost_model,
                const search::TuneReport& report) {
  nlohmann::ordered_json line = {{"workload", args.workload},         {"workload_key", task.workload().key()},
                                 {"target", task.target().key()},     {"space", args.space},
                                 {"strategy", args.strategy},         {"cost_model", cost_model},
                                 {"trials", report.trials},           {"errors", report.errors},
                                 {"best_us", report.chosen_us()},     {"best_gflops", report.chosen_gflops()},
                                 {"baseline", report.baseline.name},  {"baseline_us", report.baseline.median_us},
                                 {"baseline_isa", report.baseline.isa},
                                 {"speedup", report.speedup()},       {"search_best_us", report.best_us()},
                                 {"target_resolved", task.target().str()},
                                 {"cache_flush", args.cache_flush}};
  const search::SelectionRecord* chosen = report.chosen();
  line["chosen"] = chosen ? nlohmann::ordered_json{{"config_index", chosen->config_index()},
                                                   {"candidate", chosen->candidate.to_json()},
                                                   {"origin", chosen->origin}, {"rounds", chosen->rounds}}
                          : nlohmann::ordered_json(nullptr);
  std::cout << line.dump() << "\n";
}

void run_tune(const TuneArgs& args, char** argv) {
  search::TuneOptions options = tune_options(args);
  options.select.candidates = args.select;
  options.select.default_margin = args.default_margin_pct / 100;
  Target target = resolve_target(args.target, args.threads);
  target.check_runs_here("tune");
  search::Task task = search::Task::create(args.workload, args.space, nullptr, target);
  search::StrategyChoice choice = strategy_choice(args);
  auto strategy = search::create_strategy(choice);
  reexec_with_benchmark_environment(argv, target);  // the baseline held to the target's ISA too
  if (std::string ignored = search::ignored_cost_model(choice); !ignored.empty())  // (once: after re-executing)
    std::cerr << "tessel: warning: " << ignored << "\n";
  std::unique_ptr<search::RecordsDb> db;
  if (!args.db.empty()) db = std::make_unique<search::RecordsDb>(search::RecordsDb::open(args.db));
  set_num_threads(args.threads);
  search::Baseline baseline = measure_vendor_baseline(task.workload(), args.threads, args.cache_flush);
  search::RunKey run = search::make_run_key(task, run_label(choice, args.space, options.measure), args.seed);
  search::TuneReport report = search::Tuner(task, *strategy, run, db.get(), options).run(baseline);
  print_best(task, report, args);
  if (args.json) print_json(args, task, search::effective_cost_model(choice), report);
}

}  // namespace

void add_tune_command(CLI::App& app, int argc, char** argv) {
  TESSEL_CHECK(argc >= 1 && argv[argc] == nullptr, "tune needs main's argv to re-execute itself");
  auto args = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand("tune", "auto-tune one operator on this machine against its vendor baseline");
  cmd->add_option("--workload", args->workload,
                  "C1..C12, D1..D9, gemm:N, gemm:M,N,K, conv2d:..., depthwise:..., winograd:N,C,H,W,OC,P,M, "
                  "pixels:N,C,H,W,OC, block:N,C,H,W,B/cK,S,P,OC/dK,S,P/...")
      ->required();
  cmd->add_option("--space", args->space, "schedule space plugin")->capture_default_str();
  add_search_options(cmd, *args, "trials of this run (resumed ones count)");
  cmd->add_option("--db", args->db, "records database (SQLite); re-running the same command resumes");
  cmd->add_flag("--json", args->json, "end with one JSON line summarizing the run");
  cmd->callback([args, argv] { run_tune(*args, argv); });
}

}  // namespace tessel::tools
