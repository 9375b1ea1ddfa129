// `tessel bench`: see bench_command.h. Arguments are checked before anything is measured; bad ones
// end in a UserError (one line, exit status 2, from tools/main.cpp).
#include "tools/bench_command.h"

#include <filesystem>
#include <iostream>
#include <memory>

#include "benchmarks/bench_environment.h"
#include "benchmarks/bench_runner.h"
#include "benchmarks/fma_peak.h"
#include "benchmarks/memory_bandwidth.h"
#include "datasets/workloads.h"
#include "support/error.h"
#include "support/timing.h"
#include "tools/target_option.h"
#include "tools/number_option.h"
#include "tools/tuned_schedule.h"

namespace tessel::tools {

namespace {

struct BenchArgs {
  int64_t n = 0;
  std::string shape;
  std::string workload;
  std::string tuned;  // records database whose best configurations Tessel runs
  std::string target = "llvm_cpu";
  bool json = false;
  int threads = 2;
  int repeats = 15;
  bool has_n = false, has_shape = false, has_workload = false;  // given on the command line, even if empty
  bool winograd = false;
  bool cache_flush = false;
};

using ArgsPtr = std::shared_ptr<BenchArgs>;

void add_common_options(CLI::App* cmd, const ArgsPtr& args) {
  cmd->add_flag("--json", args->json, "print one JSON object per case instead of a table");
  add_number_option(cmd, "--threads", args->threads, "threads for both Tessel and the baseline", limits::threads());
  add_number_option(cmd, "--repeats", args->repeats, "timed samples per side", limits::repeats());
  cmd->add_flag("--cache-flush", args->cache_flush,
                "time each sample as one call after the side's weights are evicted from the caches, as in a model "
                "(x86 only)");
  cmd->add_option("--tuned", args->tuned,
                  "records database (tessel tune/experiment): run each workload's chosen tuned configuration");
  add_target_option(cmd, args->target);
}

bool given(const CLI::App* cmd, const std::string& name) {
  const CLI::Option* option = cmd->get_option_no_throw(name);
  return option && option->count() > 0;
}

void note_given_options(const CLI::App* cmd, BenchArgs& args) {
  args.has_n = given(cmd, "--n");
  args.has_shape = given(cmd, "--shape");
  args.has_workload = given(cmd, "--workload");
}

BenchOptions options_from(const BenchArgs& args) {
  BenchOptions options;
  options.target = resolve_target(args.target, args.threads);
  options.target.check_runs_here("bench");
  options.threads = options.target.cpu().threads;  // -threads= in the target string wins
  options.repeats = args.repeats;
  options.winograd = args.winograd;
  options.cache_flush = args.cache_flush;
  if (args.cache_flush && !can_evict_from_caches())
    user_error("--cache-flush needs x86's clflush, which this machine lacks; measure without it");
  if (!args.tuned.empty()) {
    // Checked here, before anything is measured; open() would create a missing file.
    if (!std::filesystem::is_regular_file(args.tuned))
      user_error("--tuned ", args.tuned, ": no such records database (write one with tessel tune --db)");
    // Read once: every case of the command looks up its workload in the same records.
    auto choices = std::make_shared<TunedChoices>(TunedChoices::read(args.tuned));
    options.schedule_for = [choices, target = options.target](const std::string& workload) {
      return tuned_schedule(*choices, workload, target);
    };
  }
  return options;
}

// Runs every case once the arguments are known good, in the benchmark environment (re-executing).
template <typename Case>
void run_cases(const std::vector<Case>& cases, const BenchArgs& args, char** argv,
               CaseResult (*run_case)(const Case&, const BenchOptions&)) {
  BenchOptions options = options_from(args);
  reexec_with_benchmark_environment(argv, options.target);
  ResultPrinter printer(std::cout, args.json);
  for (const Case& c : cases) printer.print(run_case(c, options));
  printer.finish();
}

struct GemmCase {
  std::string workload;
  GemmShape shape;
};

CaseResult run_gemm(const GemmCase& c, const BenchOptions& options) { return run_gemm_case(c.workload, c.shape, options); }

GemmCase gemm_case(const BenchArgs& args) {
  if (args.has_shape) return {"gemm:" + args.shape, parse_gemm_shape(args.shape)};
  if (!args.has_n) user_error("bench gemm needs --n N or --shape M,N,K");
  return {"gemm:" + std::to_string(args.n), square_gemm(args.n)};
}

// Cases named by --workload, or the one --shape describes (named as `tessel tune` names it, e.g.
// conv2d:1,64,56,56,64,3,1,1); `what` is the usage hint for neither.
template <typename Shape>
std::vector<Workload<Shape>> named_or_custom(const BenchArgs& args, const char* op, const char* what,
                                             std::vector<Workload<Shape>> (*find)(const std::string&),
                                             Shape (*parse)(const std::string&)) {
  if (args.has_shape) return {{std::string(op) + ":" + args.shape, parse(args.shape)}};
  if (!args.has_workload) user_error(what);
  return find(args.workload);
}

void add_gemm(CLI::App* bench, char** argv) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = bench->add_subcommand("gemm", "C[M,N] = A[M,K]·B[K,N] against OpenBLAS sgemm");
  auto* n = add_number_option(cmd, "--n", args->n, "square size M=N=K", Allowed::at_least(1));
  cmd->add_option("--shape", args->shape, "M,N,K")->excludes(n);
  add_common_options(cmd, args);
  cmd->callback([cmd, args, argv] {
    note_given_options(cmd, *args);
    run_cases<GemmCase>({gemm_case(*args)}, *args, argv, run_gemm);
  });
}

// The two convolution subcommands differ only in their names, shapes and baselines.
template <typename Shape>
struct WindowBench {
  const char* name;
  const char* description;
  const char* workloads;  // e.g. "C1..C12"
  const char* shape_form;  // e.g. "N,C,H,W,OC,K,S,P"
  std::vector<Workload<Shape>> (*find)(const std::string&);
  Shape (*parse)(const std::string&);
  CaseResult (*run)(const Workload<Shape>&, const BenchOptions&);
  bool winograd_flag = false;  // offers --winograd
};

template <typename Shape>
void add_window_bench(CLI::App* bench, char** argv, const WindowBench<Shape>& w) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = bench->add_subcommand(w.name, w.description);
  auto* workload = cmd->add_option("--workload", args->workload, std::string(w.workloads) + " or all");
  cmd->add_option("--shape", args->shape, w.shape_form)->excludes(workload);
  add_common_options(cmd, args);
  if (w.winograd_flag)
    cmd->add_flag("--winograd", args->winograd,
                  "3x3 stride-1 layers by Tessel's Winograd convolution (the layout pass's choice in a model; tile "
                  "from ops::winograd_tile, else 2), the others direct")
        ->excludes("--tuned");
  cmd->callback([cmd, args, argv, w] {
    note_given_options(cmd, *args);
    std::string usage = std::string("bench ") + w.name + " needs --workload " + w.workloads + "|all or --shape " +
                        w.shape_form;
    run_cases(named_or_custom<Shape>(*args, w.name, usage.c_str(), w.find, w.parse), *args, argv, w.run);
  });
}

// `bench peak`: no vendor side, so no re-execution in the benchmark environment.
void add_peak(CLI::App* bench) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = bench->add_subcommand("peak", "the measured vector FMA peak (GFLOP/s) of the target's ISA and threads");
  cmd->add_flag("--json", args->json, "print one JSON object instead of a line");
  add_number_option(cmd, "--threads", args->threads, "threads running FMA chains", limits::threads());
  add_number_option(cmd, "--repeats", args->repeats, "timed samples", limits::repeats());
  add_target_option(cmd, args->target);
  cmd->callback([args] {
    Target target = resolve_target(args->target, args->threads);
    PeakResult p = measure_fma_peak(target, args->repeats);
    TESSEL_CHECK(p.checked, "bench peak: the FMA chains did not compute what they must; the peak is void");
    if (args->json) {
      nlohmann::ordered_json j = {{"op", "peak"},           {"isa", p.isa},
                                  {"threads", p.threads},   {"gflops", p.gflops()},
                                  {"per_thread_gflops", p.gflops() / p.threads},
                                  {"spread_pct", p.time.spread_pct}, {"repeats", p.time.repeats},
                                  {"chains", p.chains}};
      std::cout << j.dump() << std::endl;
      return;
    }
    std::printf("fma peak: %s, %d threads: %.1f GFLOP/s (%.1f per thread; median of %d samples, spread %.0f%%; "
                "%d independent chains a thread)\n",
                p.isa.c_str(), p.threads, p.gflops(), p.gflops() / p.threads, p.time.repeats, p.time.spread_pct,
                p.chains);
  });
}

// `bench bandwidth`: no vendor side either.
void add_bandwidth(CLI::App* bench) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = bench->add_subcommand("bandwidth", "the measured read bandwidth from memory (GB/s) on the target's threads");
  cmd->add_flag("--json", args->json, "print one JSON object instead of a line");
  add_number_option(cmd, "--threads", args->threads, "threads reading", limits::threads());
  add_number_option(cmd, "--repeats", args->repeats, "timed samples", limits::repeats());
  add_target_option(cmd, args->target);
  cmd->callback([args] {
    BandwidthResult b = measure_read_bandwidth(resolve_target(args->target, args->threads), args->repeats);
    if (args->json) {
      nlohmann::ordered_json j = {{"op", "bandwidth"}, {"threads", b.threads},     {"gbs", b.gbs()},
                                  {"bytes", b.bytes},  {"spread_pct", b.time.spread_pct}, {"repeats", b.time.repeats}};
      std::cout << j.dump() << std::endl;
      return;
    }
    std::printf("memory read bandwidth: %d threads: %.1f GB/s (a %.0f MB buffer streamed once a sample; median of %d "
                "samples, spread %.0f%%)\n",
                b.threads, b.gbs(), b.bytes / 1e6, b.time.repeats, b.time.spread_pct);
  });
}

}  // namespace

void add_bench_command(CLI::App& app, int argc, char** argv) {
  TESSEL_CHECK(argc >= 1 && argv[argc] == nullptr, "bench needs main's argv to re-execute itself");
  auto* bench = app.add_subcommand("bench", "Tessel against vendor baselines (OpenBLAS, oneDNN), in the same process");
  bench->require_subcommand(1);
  add_gemm(bench, argv);
  add_window_bench<Conv2dShape>(bench, argv, {"conv2d", "ResNet-18 conv2d layers against oneDNN", "C1..C12",
                                              "N,C,H,W,OC,K,S,P", find_conv2d_workloads, parse_conv2d_shape,
                                              run_conv2d_case, true});
  add_window_bench<DepthwiseShape>(bench, argv, {"depthwise", "MobileNet depthwise conv2d layers against oneDNN",
                                                 "D1..D9", "N,C,H,W,K,S,P", find_depthwise_workloads,
                                                 parse_depthwise_shape, run_depthwise_case});
  add_peak(bench);
  add_bandwidth(bench);
}

}  // namespace tessel::tools
