// `tessel bench-model model.onnx [--torchscript model.pt] [--threads N] [--repeats R] [--passes ...]
// [--profile] [--json]`: the compiled model (default schedules, the graph passes of --passes) against
// libtorch running the model's TorchScript file, on the same input in one process, samples
// alternating between the two; median and spread of each, the speedup, and the largest
// differences of the outputs. --profile adds the time of each kernel call, and per schedule.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <numeric>

#include "benchmarks/baselines/torchscript_model.h"
#include "compiler/compile_model.h"
#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/timing.h"
#include "tools/commands.h"
#include "tools/target_option.h"

namespace tessel::tools {

namespace {

struct BenchModelArgs {
  std::string model, torchscript, passes;
  int threads = 2, repeats = 10;
  bool json = false, profile = false;
};

// `model` with its extension replaced ("m.onnx" -> "m.input.npy").
std::string beside(const std::string& model, const std::string& suffix) {
  return std::filesystem::path(model).replace_extension(suffix).string();
}

// Each kernel call's time (median of `runs`), its share, kernel, operators and schedule; then the
// time per schedule, largest first: where a model's time goes.
void print_profile(GraphExecutor& exec, const nlohmann::json& graph, int runs) {
  std::vector<double> us = exec.profile_calls(runs);
  double total = std::accumulate(us.begin(), us.end(), 0.0);
  std::printf("profile: %zu kernel calls, %.3f ms in all (median of %d runs per call)\n", us.size(), total / 1e3, runs);
  std::map<std::string, std::pair<double, int>> by_schedule;
  for (size_t i = 0; i < us.size(); ++i) {
    const nlohmann::json& node = graph["nodes"][i];
    std::string ops;
    for (const auto& op : node["ops"]) ops += (ops.empty() ? "" : "+") + op.get<std::string>();
    std::string schedule = node["schedule"];
    std::printf("  %9.1f us %5.1f%%  %-9s %s  [%s]\n", us[i], 100 * us[i] / total,
                node["kernel"].get<std::string>().c_str(), ops.c_str(), schedule.c_str());
    by_schedule[schedule].first += us[i];
    ++by_schedule[schedule].second;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> sorted(by_schedule.begin(), by_schedule.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second.first > y.second.first; });
  std::printf("per schedule:\n");
  for (const auto& [schedule, t] : sorted)
    std::printf("  %9.1f us %5.1f%%  %3d calls  %s\n", t.first, 100 * t.first / total, t.second, schedule.c_str());
}

void bench_model(const BenchModelArgs& a) {
  if (a.threads < 1 || a.repeats < 1) user_error("--threads and --repeats must be at least 1");
  std::string pt = a.torchscript.empty() ? beside(a.model, ".pt") : a.torchscript;
  Target target = resolve_target("llvm_cpu", a.threads);
  graph::OptimizedGraph opt =
      graph::optimize_graph(frontend::import_onnx(a.model), graph::parse_pipeline(a.passes), target);
  if (opt.graph.inputs().size() != 1) user_error("bench-model takes single-input models; '", a.model, "' has ", opt.graph.inputs().size());
  const graph::Value& input = opt.graph.value(opt.graph.inputs()[0]);
  std::string npy = beside(a.model, ".input.npy");
  NDArray x = std::filesystem::exists(npy) ? frontend::read_npy(npy)
                                           : NDArray::random_uniform(input.type.shape, input.type.dtype, 1, -1, 1);
  std::unique_ptr<TorchScriptModel> torch = load_torchscript(pt, a.threads);
  set_num_threads(a.threads);
  CompiledModel model = compile_model(opt, target);
  GraphExecutor exec = model.executor();
  exec.set_input(input.name, x);
  auto run_tessel = [&] { exec.run(); };
  auto run_torch = [&] { torch->forward(x); };
  int tessel_calls = calls_per_sample(run_tessel), torch_calls = calls_per_sample(run_torch);
  std::vector<double> tessel_us, torch_us;
  for (int r = 0; r < a.repeats; ++r) {  // alternating, so both see the same machine load
    tessel_us.push_back(time_sample_us(run_tessel, tessel_calls));
    torch_us.push_back(time_sample_us(run_torch, torch_calls));
  }
  TimingStats t = summarize(tessel_us), b = summarize(torch_us);
  NDArray ours = exec.output(0), theirs = torch->forward(x);
  ours.check_matches(theirs.shape(), theirs.dtype(), "Tessel's output against libtorch's");
  double max_abs = 0, max_rel = 0;
  bool correct = true;
  for (int64_t i = 0; i < ours.numel(); ++i) {
    double o = ours.get_double(i), e = theirs.get_double(i), diff = std::abs(o - e);
    correct = correct && diff <= 1e-5 + 1e-4 * std::abs(e);
    max_abs = std::max(max_abs, diff);
    if (e != 0) max_rel = std::max(max_rel, diff / std::abs(e));
  }
  double speedup = b.median_us / t.median_us;
  std::cout << a.model << ": tessel " << t.median_us / 1e3 << " ms (spread " << t.spread_pct << "%), libtorch "
            << b.median_us / 1e3 << " ms (spread " << b.spread_pct << "%), speedup " << speedup << "x; " << a.threads
            << " threads, " << a.repeats << " samples each, alternating; max abs diff " << max_abs << ", max rel diff "
            << max_rel << (correct ? "" : " (NOT within 1e-4 relative, 1e-5 absolute)") << "\n";
  if (a.profile) print_profile(exec, model.graph, a.repeats);
  if (a.json)
    std::cout << nlohmann::json{{"model", a.model},        {"tessel_ms", t.median_us / 1e3},
                                {"baseline", "libtorch"},  {"baseline_ms", b.median_us / 1e3},
                                {"speedup", speedup},      {"max_abs_diff", max_abs},
                                {"max_rel_diff", max_rel}, {"correct", correct},
                                {"threads", a.threads},    {"passes", opt.passes_run}}
                     .dump()
              << "\n";
}

}  // namespace

void add_bench_model_command(CLI::App& app) {
  auto args = std::make_shared<BenchModelArgs>();
  auto* cmd = app.add_subcommand("bench-model", "a compiled ONNX model against libtorch on its TorchScript file");
  cmd->add_option("model", args->model, "the ONNX model")->required();
  cmd->add_option("--torchscript", args->torchscript, "the TorchScript file (default: the .pt beside the model)");
  cmd->add_option("--threads", args->threads, "threads of both sides")->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed samples of each side")->capture_default_str();
  cmd->add_option("--passes", args->passes, "graph passes, as for tessel compile");
  cmd->add_flag("--profile", args->profile, "also print the time of each kernel call and of each schedule");
  cmd->add_flag("--json", args->json, "end with one JSON line");
  cmd->callback([args] { bench_model(*args); });
}

}  // namespace tessel::tools
