// `tessel bench-model model.onnx [--torchscript model.pt] [--threads N] [--repeats R] [--passes ...]
// [--records DB] [--json]`: the compiled model (default schedules or, with --records, the tuned
// ones; the graph passes of --passes) against libtorch
// running the model's TorchScript file, on the same input in one process, samples alternating
// between the two; median and spread of each, the speedup, and the largest differences of the outputs.
#include <filesystem>
#include <iostream>
#include <optional>

#include "benchmarks/baselines/torchscript_model.h"
#include "compiler/compile_model.h"
#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
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

void print_bench(const nlohmann::json& r, int repeats, bool json) {
  std::cout << r["model"].get<std::string>() << ": tessel " << r["tessel_ms"].get<double>() << " ms (spread "
            << r["tessel_spread_pct"].get<double>() << "%), libtorch " << r["baseline_ms"].get<double>()
            << " ms (spread " << r["baseline_spread_pct"].get<double>() << "%), speedup " << r["speedup"].get<double>()
            << "x; " << r["threads"].get<int>() << " threads, " << repeats
            << " samples each, alternating; max abs diff " << r["max_abs_diff"].get<double>() << ", max rel diff "
            << r["max_rel_diff"].get<double>()
            << (r["correct"].get<bool>() ? "" : " (NOT within 1e-4 relative, 1e-5 absolute)") << "\n";
  if (json) std::cout << r.dump() << "\n";
}

}  // namespace

nlohmann::json bench_compiled_model(const ModelBenchOptions& a) {
  if (a.threads < 1 || a.repeats < 1) user_error("--threads and --repeats must be at least 1");
  std::string pt = a.torchscript.empty() ? beside(a.model, ".pt") : a.torchscript;
  graph::OptimizedGraph opt = graph::optimize_graph(frontend::import_onnx(a.model), graph::parse_pipeline(a.passes));
  if (opt.graph.inputs().size() != 1)
    user_error("bench-model takes single-input models; '", a.model, "' has ", opt.graph.inputs().size());
  const graph::Value& input = opt.graph.value(opt.graph.inputs()[0]);
  std::string npy = beside(a.model, ".input.npy");
  NDArray x = std::filesystem::exists(npy) ? frontend::read_npy(npy)
                                           : NDArray::random_uniform(input.type.shape, input.type.dtype, 1, -1, 1);
  std::unique_ptr<TorchScriptModel> torch;
  if (a.require_torchscript || std::filesystem::exists(pt)) torch = load_torchscript(pt, a.threads);
  std::optional<search::TunedRecords> records;
  if (!a.records.empty()) records = search::TunedRecords::read(a.records);
  set_num_threads(a.threads);
  CompiledModel model = compile_model(opt, resolve_target("llvm_cpu", a.threads), {records ? &*records : nullptr});
  GraphExecutor exec = model.executor();
  exec.set_input(input.name, x);
  auto run_tessel = [&] { exec.run(); };
  auto run_torch = [&] { torch->forward(x); };
  int tessel_calls = calls_per_sample(run_tessel), torch_calls = torch ? calls_per_sample(run_torch) : 0;
  std::vector<double> tessel_us, torch_us;
  for (int r = 0; r < a.repeats; ++r) {  // alternating, so both see the same machine load
    tessel_us.push_back(time_sample_us(run_tessel, tessel_calls));
    if (torch) torch_us.push_back(time_sample_us(run_torch, torch_calls));
  }
  TimingStats t = summarize(tessel_us);
  nlohmann::json result = {{"model", a.model},         {"tessel_ms", t.median_us / 1e3},
                           {"tessel_spread_pct", t.spread_pct}, {"threads", a.threads},
                           {"passes", opt.passes_run}, {"records", a.records}};
  if (!torch) return result;
  TimingStats b = summarize(torch_us);
  result["baseline"] = "libtorch";
  result["baseline_ms"] = b.median_us / 1e3;
  result["baseline_spread_pct"] = b.spread_pct;
  result["speedup"] = b.median_us / t.median_us;
  compare_outputs(exec.output(0), torch->forward(x), result);
  return result;
}

namespace {

struct BenchModelArgs {
  ModelBenchOptions options;
  bool json = false;
};

}  // namespace

void add_bench_model_command(CLI::App& app) {
  auto args = std::make_shared<BenchModelArgs>();
  ModelBenchOptions& o = args->options;
  auto* cmd = app.add_subcommand("bench-model", "a compiled ONNX model against libtorch on its TorchScript file");
  cmd->add_option("model", o.model, "the ONNX model")->required();
  cmd->add_option("--torchscript", o.torchscript, "the TorchScript file (default: the .pt beside the model)");
  cmd->add_option("--threads", o.threads, "threads of both sides")->capture_default_str();
  cmd->add_option("--repeats", o.repeats, "timed samples of each side")->capture_default_str();
  cmd->add_option("--passes", o.passes, "graph passes, as for tessel compile");
  cmd->add_option("--records", o.records, "records database whose tuned configurations the groups run");
  cmd->add_flag("--json", args->json, "end with one JSON line");
  cmd->callback([args] { print_bench(bench_compiled_model(args->options), args->options.repeats, args->json); });
}

}  // namespace tessel::tools
