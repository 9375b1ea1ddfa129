// `tessel experiment`: runs experiment configs and records the measurement sets replay uses.
//   tessel experiment run CONFIG.yaml --out DIR [--no-plots] [--target T]
//       every configuration × seed of the config (experiments/runner.h); re-running resumes;
//       --target is the target of configurations whose config names none (default: the host);
//       a model experiment (workloads model:PATH.onnx) measures compiled models against libtorch
//   tessel experiment record --workload W [--space S] --set FILE.json [--db SCRATCH.db]
//       measures the WHOLE space of W on this machine (grid order, resumable through the scratch
//       records database) with the vendor baseline, and stores it in the recorded set FILE
//       (search/replay/recorded_set.h), replacing an earlier recording of the same workload
#include <iostream>
#include <map>
#include <memory>

#include "benchmarks/bench_environment.h"
#include "experiments/experiment_config.h"
#include "experiments/recorder.h"
#include "experiments/runner.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "tools/commands.h"
#include "tools/model_bench.h"
#include "tools/target_option.h"
#include "tools/number_option.h"
#include "tools/vendor_baseline.h"

namespace tessel::tools {

namespace {

struct ExperimentArgs {
  std::string config, out, target = "llvm_cpu";
  bool no_plots = false;
  std::string workload, space = "template", set, db;
  int threads = 2, repeats = 5;
  double timeout_s = 10;
};

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

// The targets of the runs measured on this machine, one per ISA. The vendor baselines read their
// ISA cap once, when they load, so all of a process's baselines share one: the runs' ISA when they
// agree on one, else the host's (the summary names each baseline's ISA).
std::map<CpuIsa, Target> measured_targets(const experiments::ExperimentConfig& config) {
  std::map<CpuIsa, Target> targets;
  for (const auto& c : config.configurations) {
    Target t = Target::parse(c.target);
    if (c.measure == "hardware" && t.is_cpu()) targets.emplace(t.cpu().isa, t);
  }
  return targets;
}

void run(const ExperimentArgs& a, int argc, char** argv) {
  experiments::ExperimentConfig config = experiments::ExperimentConfig::load(a.config, a.target);  // all checks first
  // Models are measured on this machine against libtorch, whose OpenBLAS workers must not spin
  // between samples (as in bench-model).
  bool hardware = config.is_model_experiment();
  for (const auto& c : config.configurations) hardware |= c.measure == "hardware";
  std::map<CpuIsa, Target> targets = measured_targets(config);
  if (hardware) reexec_with_benchmark_environment(argv, targets.size() == 1 ? targets.begin()->second : Target::host());
  if (targets.size() > 1)
    std::cerr << "tessel: warning: the runs' targets have " << targets.size() << " ISAs, and every vendor baseline "
              << "runs at the host's (" << isa_name(host_cpu().isa) << "): for like-with-like ratios put one ISA "
              << "in each experiment, or re-measure with `tessel bench --tuned --target`\n";
  experiments::RunnerOptions options;
  options.out_dir = a.out;
  options.measure_baseline = measure_vendor_baseline;
  options.measure_model = [](const experiments::ModelConfiguration& c, int repeats) {
    return bench_compiled_model({c.model, "", c.graph_passes, c.records, c.threads, repeats, false});
  };
  options.command_line = command_line(argc, argv);
  options.environment = benchmark_environment();
  options.plots = !a.no_plots;
  options.progress = &std::cerr;
  experiments::run_experiment(config, options);
  std::cerr << "results in " << a.out << " (summary.md, summary.json" << (config.is_model_experiment() ? "" : ", curves.csv")
            << ", plots/)\n";
}

void record(const ExperimentArgs& a, int argc, char** argv) {
  search::Task::create(a.workload, a.space);  // bad names fail before the re-execution
  reexec_with_benchmark_environment(argv);
  experiments::RecordRequest r;
  r.workload = a.workload;
  r.space = a.space;
  r.set_path = a.set;
  r.db_path = a.db;
  r.measure.threads = r.measure.compile_threads = a.threads;
  r.measure.repeats = a.repeats;
  r.measure.timeout_s = a.timeout_s;
  r.measure_baseline = measure_vendor_baseline;
  r.command_line = command_line(argc, argv);
  set_num_threads(a.threads);
  search::RecordedWorkload w = experiments::record_workload(r);
  std::cerr << "recorded " << w.results.size() << " configurations of " << a.workload << " into " << a.set << "\n";
}

}  // namespace

void add_experiment_command(CLI::App& app, int argc, char** argv) {
  auto a = std::make_shared<ExperimentArgs>();
  auto* cmd = app.add_subcommand("experiment", "run experiment configs; record measurement sets for replay");
  cmd->require_subcommand(1);
  auto* r = cmd->add_subcommand("run", "run every configuration x seed of a YAML config (resumes)");
  r->add_option("config", a->config, "experiment config (YAML)")->required();
  r->add_option("--out", a->out, "output folder")->required();
  r->add_flag("--no-plots", a->no_plots, "skip the matplotlib plots");
  add_target_option(r, a->target);
  r->callback([a, argc, argv] { run(*a, argc, argv); });
  auto* rec = cmd->add_subcommand("record", "measure a workload's whole space into a recorded set");
  rec->add_option("--workload", a->workload, "workload (C9, D7, gemm:256, ...)")->required();
  rec->add_option("--space", a->space, "schedule space plugin")->capture_default_str();
  rec->add_option("--set", a->set, "recorded set file (JSON) to add the workload to")->required();
  rec->add_option("--db", a->db, "scratch records database (default: SET.records.db); re-running resumes");
  add_number_option(rec, "--threads", a->threads, "kernel and compile threads", limits::threads());
  add_number_option(rec, "--repeats", a->repeats, "timed samples per candidate", limits::repeats());
  add_number_option(rec, "--timeout", a->timeout_s, "seconds a candidate may run", limits::timeout_s());
  rec->callback([a, argc, argv] { record(*a, argc, argv); });
}

}  // namespace tessel::tools
