// `tessel bench-model model.onnx [--torchscript model.pt] [--threads N] [--repeats R] [--passes ...]
// [--records DB] [--target T] [--profile] [--json]`: the compiled model (default schedules or, with
// --records, the tuned ones; the graph passes of --passes; for --target, with libtorch held to its
// ISA) against libtorch running the model's TorchScript
// file, on the same input in one process, samples alternating between the two; median and spread
// of each, the speedup, and the largest differences of the outputs. --profile adds the time of each
// kernel call (its GFLOP/s where its anchor has a workload, and what reading its weights from
// memory takes), per schedule, and above each kernel's roofline; with --json, the calls are the
// result's "profile" too. The measurement (tools/model_bench.h) is also a model experiment's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "benchmarks/baselines/onednn.h"
#include "benchmarks/baselines/torchscript_model.h"
#include "benchmarks/bench_environment.h"
#include "benchmarks/fma_peak.h"
#include "benchmarks/memory_bandwidth.h"
#include "compiler/compile_model.h"
#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/statistics.h"
#include "support/timing.h"
#include "tools/commands.h"
#include "tools/model_bench.h"
#include "tools/target_option.h"

namespace tessel::tools {

namespace {

// `model` with its extension replaced ("m.onnx" -> "m.input.npy").
std::string beside(const std::string& model, const std::string& suffix) {
  return std::filesystem::path(model).replace_extension(suffix).string();
}

// The largest absolute and relative differences of ours from theirs, and whether every element is
// within 1e-4 relative, 1e-5 absolute.
void compare_outputs(const NDArray& ours, const NDArray& theirs, nlohmann::json& result) {
  ours.check_matches(theirs.shape(), theirs.dtype(), "Tessel's output against libtorch's");
  double max_abs = 0, max_rel = 0;
  bool correct = true;
  for (int64_t i = 0; i < ours.numel(); ++i) {
    double o = ours.get_double(i), e = theirs.get_double(i), diff = std::abs(o - e);
    correct = correct && diff <= 1e-5 + 1e-4 * std::abs(e);
    max_abs = std::max(max_abs, diff);
    if (e != 0) max_rel = std::max(max_rel, diff / std::abs(e));
  }
  result["max_abs_diff"] = max_abs;
  result["max_rel_diff"] = max_rel;
  result["correct"] = correct;
}

// A pause of 20 ms, so worker threads the other side left spinning are asleep when the timing
// starts; then untimed calls of `run` for at least 40 ms, because the pause idles the cores: on
// this project's VMs the first 1-3 ms after it ran at about half speed on one thread, and 1 ms
// samples of a small model (conv_bn_relu_C11: 0.21 ms a call) measured 0.43 ms, both sides
// inflated alike. Two threads take longer to come back: on Zen 5 (stop 65), MobileNet-V2 on two
// threads measured 3.46-4.50 ms (spreads of 87-116%) after 5 ms of calls and 2.09-2.53 ms (spreads
// of 14-149%, 14-15% in two of three runs) after 40, libtorch 8.5-12.2 and 7.0-8.0 ms.
void settle(const std::function<void()>& run) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto start = std::chrono::steady_clock::now();
  do run();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(40));
}

bool runs_winograd(const nlohmann::json& node) {
  const auto& ops = node["ops"];
  return std::find(ops.begin(), ops.end(), "conv2d_winograd_nchwc") != ops.end();
}

// The model's nominal operations: those of its kernel calls' anchors (graph.json's "flops").
// `performed_only`: those of the calls that perform all of theirs, every call but the Winograd
// convolutions, whose nominal operations are the direct convolution's; at the FMA peak these take
// a time no schedule of the model goes below.
double nominal_flops(const nlohmann::json& graph, bool performed_only = false) {
  double flops = 0;
  for (const auto& node : graph["nodes"])
    if (!performed_only || !runs_winograd(node)) flops += node.value("flops", 0.0);
  return flops;
}

// The machine's two ceilings for a profile: the FMA peak measured between the samples (GFLOP/s)
// and the read bandwidth from memory (GB/s, benchmarks/memory_bandwidth.h).
struct Roofline {
  double peak_gflops = 0;
  double bandwidth_gbs = 0;
};

// Each kernel call's time (median of `runs`), kernel, operators and schedule, and its rate in
// GFLOP/s where its anchor has a workload (the anchor's nominal operations: graph.json's "flops").
// A call that performs its nominal operations (all but Winograd's) also gets the time it spends
// above what they take at the FMA peak; a call with weights, what reading them from memory takes
// (graph.json's "param_bytes" at the bandwidth), with those it prefetches for a later call
// ("prefetch_bytes": a carrier reads them too, so without them a carrier looked slow and the call
// it serves faster than memory). The larger of the two is the call's roofline (not Winograd's),
// and the time above it is where a faster schedule could still gain. The roofline is an estimate,
// not a bound: weights that a model's other calls left in the L3, or prefetched, read faster than
// from memory.
nlohmann::json profile_calls(GraphExecutor& exec, const nlohmann::json& graph, int runs, const Roofline& roof) {
  // The comparison of outputs has just run libtorch: as before each timed sample, let its idle
  // threads fall asleep first. Without the pause, MobileNet-V2's calls on 2 threads summed to
  // 9.6 ms against 4.5 ms for a run, every kernel as slow as on one thread.
  settle([&] { exec.run(); });
  std::vector<double> us = exec.profile_calls(runs);
  nlohmann::json calls = nlohmann::json::array();
  for (size_t i = 0; i < us.size(); ++i) {
    const nlohmann::json& node = graph["nodes"][i];
    std::string ops;
    for (const auto& op : node["ops"]) ops += (ops.empty() ? "" : "+") + op.get<std::string>();
    nlohmann::json call = {{"kernel", node["kernel"]}, {"ops", ops}, {"schedule", node["schedule"]}, {"us", us[i]}};
    double roofline_us = 0;
    bool winograd = runs_winograd(node);  // performs fewer operations than its nominal ones: no roofline
    if (node.contains("flops")) call["gflops"] = node["flops"].get<double>() / us[i] * 1e-3;
    if (node.contains("flops") && !winograd) {
      roofline_us = node["flops"].get<double>() / roof.peak_gflops * 1e-3;
      call["us_above_peak"] = us[i] - roofline_us;
    }
    double bytes = 0;  // the weights it reads, and those it prefetches for a later call
    for (const char* key : {"param_bytes", "prefetch_bytes"})
      if (node.contains(key)) {
        call[key] = node[key];
        bytes += node[key].get<double>();
      }
    if (bytes > 0) {
      double reading_us = bytes / roof.bandwidth_gbs * 1e-3;
      call["us_reading_params"] = reading_us;
      if (!winograd) roofline_us = std::max(roofline_us, reading_us);
    }
    if (roofline_us > 0) {
      call["us_roofline"] = roofline_us;
      call["us_above_roofline"] = us[i] - roofline_us;
    }
    calls.push_back(call);
  }
  return calls;
}

// Sums `value` of each call per `key`, largest sum first, with the number of calls.
std::vector<std::pair<std::string, std::pair<double, int>>> totals_by(const nlohmann::json& calls, const char* key,
                                                                      const char* value) {
  std::map<std::string, std::pair<double, int>> by_key;
  for (const auto& c : calls)
    if (c.contains(value)) {
      auto& [sum, count] = by_key[c[key].get<std::string>()];
      sum += c[value].get<double>();
      ++count;
    }
  std::vector<std::pair<std::string, std::pair<double, int>>> sorted(by_key.begin(), by_key.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
  return sorted;
}

// The calls with their share of the time, their rate against the FMA peak and what reading their
// weights from memory takes against their time; then the time per schedule, largest first: where a
// model's time goes; then the time above each kernel's roofline (the larger of the two), largest
// first: what a faster schedule could still gain where.
void print_profile(const nlohmann::json& calls, int runs, const Roofline& roof) {
  double total = 0, at_roofline = 0;
  for (const auto& c : calls) total += c["us"].get<double>(), at_roofline += c.value("us_roofline", 0.0);
  std::printf("profile: %zu kernel calls, %.3f ms in all (median of %d runs per call); GFLOP/s of the anchor's "
              "nominal operations and their share of the FMA peak (%.1f GFLOP/s); the time reading the call's "
              "weights from memory takes (at %.1f GB/s, tessel bench bandwidth; with those it prefetches for a later "
              "call) as a share of its own\n",
              calls.size(), total / 1e3, runs, roof.peak_gflops, roof.bandwidth_gbs);
  for (const auto& c : calls) {
    double us = c["us"];
    char rate[32] = "", share[32] = "", memory[32] = "";
    if (c.contains("gflops")) {
      std::snprintf(rate, sizeof rate, "%.1f", c["gflops"].get<double>());
      std::snprintf(share, sizeof share, "%.0f%%", 100 * c["gflops"].get<double>() / roof.peak_gflops);
    }
    if (c.contains("us_reading_params"))
      std::snprintf(memory, sizeof memory, "%.0f%%", 100 * c["us_reading_params"].get<double>() / us);
    char prefetched[48] = "";
    if (c.contains("prefetch_bytes"))
      std::snprintf(prefetched, sizeof prefetched, "  prefetching %.2f MiB",
                    c["prefetch_bytes"].get<double>() / (1 << 20));
    std::printf("  %9.1f us %5.1f%% %7s %5s %5s  %-9s %s  [%s]%s\n", us, 100 * us / total, rate, share, memory,
                c["kernel"].get<std::string>().c_str(), c["ops"].get<std::string>().c_str(),
                c["schedule"].get<std::string>().c_str(), prefetched);
  }
  std::printf("per schedule:\n");
  for (const auto& [schedule, t] : totals_by(calls, "schedule", "us"))
    std::printf("  %9.1f us %5.1f%%  %3d calls  %s\n", t.first, 100 * t.first / total, t.second, schedule.c_str());
  auto above = totals_by(calls, "kernel", "us_above_roofline");
  double sum = 0;
  for (const auto& [kernel, t] : above) sum += std::max(t.first, 0.0);
  std::printf("above the roofline: the calls with one take %.1f ms at it (the longer of their nominal operations at "
              "the FMA peak and their weights' read from memory), %.1f us (%.1f%% of all calls' time) more in all; "
              "the kernels with most:\n",
              at_roofline / 1e3, sum, 100 * sum / total);
  constexpr size_t kListed = 8;
  for (size_t i = 0; i < std::min(above.size(), kListed); ++i)
    std::printf("  %9.1f us  %3d calls  %s\n", above[i].second.first, above[i].second.second, above[i].first.c_str());
}

// The speedup of each alternating pair of samples (libtorch's over Tessel's, taken back to back, so
// under the same load) and the 95% interval of their median: how far the machine's noise leaves the
// speedup in doubt.
void add_paired_speedup(const std::vector<double>& tessel_us, const std::vector<double>& torch_us,
                        nlohmann::json& result) {
  std::vector<double> speedups;
  for (size_t i = 0; i < tessel_us.size(); ++i) speedups.push_back(torch_us[i] / tessel_us[i]);
  MedianInterval interval = median_interval(speedups, 0.95);
  result["speedup_low"] = interval.low;
  result["speedup_high"] = interval.high;
  result["speedup_confidence"] = interval.coverage;
}

void print_bench(const nlohmann::json& r, int repeats) {
  std::cout << r["model"].get<std::string>() << ": tessel " << r["tessel_ms"].get<double>() << " ms (spread "
            << r["tessel_spread_pct"].get<double>() << "%), libtorch (" << r["baseline_mode"].get<std::string>()
            << ") " << r["baseline_ms"].get<double>()
            << " ms (spread " << r["baseline_spread_pct"].get<double>() << "%), speedup " << r["speedup"].get<double>()
            << "x (the pairs' median " << r["speedup_low"].get<double>() << "-" << r["speedup_high"].get<double>()
            << " at " << std::lround(100 * r["speedup_confidence"].get<double>()) << "% confidence); "
            << r["threads"].get<int>() << " threads (" << r["slices_per_thread"].get<int>() << " slices a share), "
            << repeats
            << " samples each, alternating; target " << r["target"].get<std::string>() << ", libtorch's oneDNN "
            << r["baseline_isa"].get<std::string>() << "; max abs diff " << r["max_abs_diff"].get<double>() << ", max rel diff "
            << r["max_rel_diff"].get<double>()
            << (r["correct"].get<bool>() ? "" : " (NOT within 1e-4 relative, 1e-5 absolute)") << std::endl;
  std::printf("  tessel at %.1f GFLOP/s (the anchors' nominal %.1f MFLOP); the machine's FMA peak between the "
              "samples: %.1f GFLOP/s (median)\n",
              r["tessel_gflops"].get<double>(), r["flops"].get<double>() * 1e-6, r["peak_gflops"].get<double>());
  if (r.contains("speedup_at_peak"))
    std::printf("  at that peak the nominal operations%s alone take %.3f ms: %.2fx libtorch, the most any "
                "schedule can reach in this run\n",
                r["peak_excludes_winograd"].get<bool>() ? " of the direct kernels (Winograd's not counted)" : "",
                r["peak_ms"].get<double>(), r["speedup_at_peak"].get<double>());
}

// What --libtorch takes: "fastest", then each LibtorchMode's name.
std::vector<std::string> libtorch_mode_choices() {
  std::vector<std::string> choices = {"fastest"};
  for (LibtorchMode mode : kLibtorchModes) choices.push_back(libtorch_mode_name(mode));
  return choices;
}

// libtorch's module in the mode `options` names, or in the fastest on `input`.
FastestTorchScript load_baseline(const std::string& pt, const ModelBenchOptions& options, const NDArray& input) {
  if (options.libtorch_mode == "fastest") return load_fastest_torchscript(pt, options.threads, input);
  for (LibtorchMode mode : kLibtorchModes)
    if (options.libtorch_mode == libtorch_mode_name(mode))
      return {load_torchscript(pt, options.threads, mode), mode, {}};
  user_error("unknown libtorch mode '", options.libtorch_mode, "'; the modes are ", join_list(libtorch_mode_choices()));
}

}  // namespace

nlohmann::json bench_compiled_model(const ModelBenchOptions& a, const AfterBench& after) {
  if (a.threads < 1 || a.repeats < 1) user_error("--threads and --repeats must be at least 1");
  std::string pt = a.torchscript.empty() ? beside(a.model, ".pt") : a.torchscript;
  Target target = resolve_target(a.target, a.threads);
  target.check_runs_here("bench-model");
  graph::OptimizedGraph opt =
      graph::optimize_graph(frontend::import_onnx(a.model), graph::parse_pipeline(a.passes), target);
  if (opt.graph.inputs().size() != 1)
    user_error("bench-model takes single-input models; '", a.model, "' has ", opt.graph.inputs().size());
  const graph::Value& input = opt.graph.value(opt.graph.inputs()[0]);
  std::string npy = beside(a.model, ".input.npy");
  NDArray x = std::filesystem::exists(npy) ? frontend::read_npy(npy)
                                           : NDArray::random_uniform(input.type.shape, input.type.dtype, 1, -1, 1);
  FastestTorchScript baseline;
  if (a.require_torchscript || std::filesystem::exists(pt)) baseline = load_baseline(pt, a, x);
  std::unique_ptr<TorchScriptModel>& torch = baseline.model;
  std::optional<search::TunedRecords> records;
  if (!a.records.empty()) records = search::TunedRecords::read(a.records);
  set_num_threads(a.threads);
  CompiledModel model = compile_model(opt, target, {records ? &*records : nullptr});
  GraphExecutor exec = model.executor();
  exec.set_input(input.name, x);
  auto run_tessel = [&] { exec.run(); };
  auto run_torch = [&] { torch->forward(x); };
  int tessel_calls = calls_per_sample(run_tessel), torch_calls = torch ? calls_per_sample(run_torch) : 0;
  std::vector<double> tessel_us, torch_us;
  // Alternating, so both see the same machine load, each sample settled first. The worst spinner,
  // OpenBLAS's, the benchmark environment stops (see the command's callback); without the pause,
  // ResNet-18 on 2 threads measured the same in 2 of 3 runs and 4% slower in one.
  auto sample = [](const std::function<void()>& run, int calls) {
    settle(run);
    return time_sample_us(run, calls);
  };
  // The FMA peak between the samples: on a shared VM, 2 threads sometimes deliver one core's.
  std::vector<double> peak_gflops;
  for (int r = 0; r < a.repeats; ++r) {
    tessel_us.push_back(sample(run_tessel, tessel_calls));
    if (torch) torch_us.push_back(sample(run_torch, torch_calls));
    peak_gflops.push_back(sample_fma_peak_gflops(target));
  }
  TimingStats t = summarize(tessel_us);
  double flops = nominal_flops(model.graph), performed = nominal_flops(model.graph, true);
  double peak = summarize(peak_gflops).median_us, peak_ms = performed / peak * 1e-6;
  nlohmann::json result = {{"model", a.model},         {"tessel_ms", t.median_us / 1e3},
                           {"tessel_spread_pct", t.spread_pct}, {"threads", a.threads},
                           {"slices_per_thread", slices_per_thread()},
                           {"target", target.key()},
                           {"passes", opt.passes_run}, {"records", a.records},
                           {"flops", flops},           {"tessel_gflops", flops / t.median_us * 1e-3},
                           {"peak_gflops", peak},
                           // a target reads as reachable or not only beside the operations
                           // performed at the FMA peak
                           {"peak_ms", peak_ms},       {"peak_excludes_winograd", performed < flops}};
  if (torch) {
    TimingStats b = summarize(torch_us);
    result["baseline"] = "libtorch";
    result["baseline_isa"] = onednn_isa_name();
    result["baseline_mode"] = libtorch_mode_name(baseline.mode);
    for (const auto& [mode, us] : baseline.trial_us) result["baseline_mode_trials_ms"][libtorch_mode_name(mode)] = us / 1e3;
    result["baseline_ms"] = b.median_us / 1e3;
    result["baseline_spread_pct"] = b.spread_pct;
    result["speedup"] = b.median_us / t.median_us;
    add_paired_speedup(tessel_us, torch_us, result);
    result["speedup_at_peak"] = b.median_us / 1e3 / peak_ms;
    compare_outputs(exec.output(0), torch->forward(x), result);
  }
  if (after) after(result, exec, model.graph);
  return result;
}

namespace {

// The read bandwidth from memory on the benchmark's threads (median of 5 samples, each a stream
// of 4x the L3 once).
double read_bandwidth_gbs(const ModelBenchOptions& o) {
  return measure_read_bandwidth(resolve_target(o.target, o.threads), 5).gbs();
}

struct BenchModelArgs {
  ModelBenchOptions options;
  bool json = false, profile = false;
};

}  // namespace

void add_bench_model_command(CLI::App& app, char** argv) {
  auto args = std::make_shared<BenchModelArgs>();
  ModelBenchOptions& o = args->options;
  auto* cmd = app.add_subcommand("bench-model", "a compiled ONNX model against libtorch on its TorchScript file");
  cmd->add_option("model", o.model, "the ONNX model")->required();
  cmd->add_option("--torchscript", o.torchscript, "the TorchScript file (default: the .pt beside the model)");
  cmd->add_option("--threads", o.threads, "threads of both sides")->capture_default_str();
  cmd->add_option("--repeats", o.repeats, "timed samples of each side")->capture_default_str();
  cmd->add_option("--passes", o.passes, "graph passes, as for tessel compile");
  cmd->add_option("--records", o.records, "records database whose tuned configurations the groups run");
  cmd->add_option("--libtorch", o.libtorch_mode,
                  "how libtorch prepares its module: fastest (each of the others tried on the input, the fastest "
                  "kept), as_loaded, frozen (torch.jit.freeze) or optimized (torch.jit.optimize_for_inference)")
      ->check(CLI::IsMember(libtorch_mode_choices()))
      ->capture_default_str();
  add_target_option(cmd, o.target);
  cmd->add_flag("--profile", args->profile,
                "also print the time (and GFLOP/s) of each kernel call, the time of each schedule and the time above "
                "each kernel's roofline (FMA peak, weights read from memory); with --json, also as \"profile\"");
  cmd->add_flag("--json", args->json, "end with one JSON line");
  cmd->callback([args, argv] {
    // libtorch multiplies matrices with OpenBLAS, whose idle workers otherwise spin for ~0.1 s after
    // each call: with samples 20 ms apart they never stopped, and took a core from Tessel's samples
    // on 2 threads (ResNet-18: medians of 45 instead of 24 ms in some runs). A target below the
    // host's ISA holds libtorch (its oneDNN, OpenBLAS and ATen kernels) to that ISA too.
    reexec_with_benchmark_environment(argv, resolve_target(args->options.target, args->options.threads));
    int repeats = args->options.repeats;
    bool profile = args->profile;
    nlohmann::json calls;
    Roofline roof;
    nlohmann::json r = bench_compiled_model(
        args->options, [&](const nlohmann::json& result, GraphExecutor& exec, const nlohmann::json& graph) {
          print_bench(result, repeats);
          if (!profile) return;
          roof.peak_gflops = result["peak_gflops"];
          roof.bandwidth_gbs = read_bandwidth_gbs(args->options);
          calls = profile_calls(exec, graph, repeats, roof);
          print_profile(calls, repeats, roof);
        });
    if (profile) r["profile"] = calls, r["bandwidth_gbs"] = roof.bandwidth_gbs;
    if (args->json) std::cout << r.dump() << "\n";
  });
}

}  // namespace tessel::tools
