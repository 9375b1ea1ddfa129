// Parallel compilation and sandboxed measurement of configurations (search/measure/measurer.h).
#include "search/measure/measurer.h"

#include <atomic>
#include <cfloat>
#include <chrono>
#include <thread>

#include "backends/backend.h"
#include "passes/lower/lower.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::search {

struct Measurer::Compiled {
  std::unique_ptr<CompiledFunction> kernel;
  double compile_s = 0;
  std::string error;  // why it did not compile
};

namespace {

using Clock = std::chrono::steady_clock;

void check_options(const MeasureOptions& o) {
  if (o.repeats < 1) user_error("measure: repeats must be >= 1, got ", o.repeats);
  if (o.warmup < 0) user_error("measure: warmup must be >= 0, got ", o.warmup);
  if (!(o.timeout_s > 0)) user_error("measure: timeout must be > 0 s, got ", o.timeout_s);
  if (o.threads < 1) user_error("measure: threads must be >= 1, got ", o.threads);
  if (o.compile_threads < 1) user_error("measure: compile threads must be >= 1, got ", o.compile_threads);
}

}  // namespace

std::string backend_label(const std::string& backend, const nlohmann::json& params) {
  const PluginInfo& info = Registry<Backend>::instance().info(backend);
  nlohmann::json differing = nlohmann::json::object();
  for (const ParamSpec& spec : info.params)
    if (params.is_object() && params.contains(spec.name) && params[spec.name] != spec.default_value)
      differing[spec.name] = params[spec.name];
  if (backend == MeasureOptions{}.backend && differing.empty()) return "";
  return plugin_label(backend, differing);
}

double result_tolerance(int64_t reduction_size) {
  return 8.0 * FLT_EPSILON * static_cast<double>(std::max<int64_t>(reduction_size, 16));
}

Measurer::Measurer(const Task& task, MeasureOptions options) : task_(task), options_(std::move(options)) {
  check_options(options_);
  // An unknown back end or parameter fails here, listing the valid ones.
  PluginParams(Registry<Backend>::instance().info(options_.backend), options_.backend_params);
  Program program = task_.schedule_template().default_program();
  uint64_t seed = options_.input_seed;
  for (const Tensor& input : program.inputs)
    inputs_.push_back(NDArray::random_uniform(input.shape(), input.dtype(), seed++));
  set_num_threads(options_.threads);
  auto kernel = Registry<Backend>::instance().create(options_.backend, options_.backend_params)->compile(task_.lower_default_program());
  reference_ = NDArray::empty(program.output.shape(), program.output.dtype());
  std::vector<void*> args;
  for (NDArray& in : inputs_) args.push_back(in.data());
  args.push_back(reference_.data());
  kernel->call(args.data());
}

std::vector<Measurer::Compiled> Measurer::compile_all(const std::vector<Config>& configs) const {
  std::vector<Compiled> compiled(configs.size());
  auto backend = Registry<Backend>::instance().create(options_.backend, options_.backend_params);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < configs.size();) {
      auto start = Clock::now();
      try {
        compiled[i].kernel = backend->compile(task_.lower(configs[i]));
      } catch (const std::exception& e) {
        compiled[i].error = e.what();
      }
      compiled[i].compile_s = std::chrono::duration<double>(Clock::now() - start).count();
    }
  };
  std::vector<std::thread> workers;
  size_t count = std::min<size_t>(options_.compile_threads, configs.size());
  for (size_t w = 0; w < count; ++w) workers.emplace_back(work);
  for (std::thread& t : workers) t.join();  // every compilation ends before the sandbox forks
  return compiled;
}

std::vector<MeasureResult> Measurer::measure(const std::vector<Config>& configs) const {
  std::vector<Compiled> compiled = compile_all(configs);
  std::vector<const CompiledFunction*> kernels;
  for (const Compiled& c : compiled) kernels.push_back(c.kernel.get());
  SandboxOptions sandbox_options{options_.warmup, options_.repeats, options_.timeout_s, options_.threads,
                                 result_tolerance(task_.workload().reduction_size())};
  std::vector<MeasureResult> results = Sandbox(inputs_, reference_, sandbox_options).run(kernels);
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].compile_s = compiled[i].compile_s;
    if (!compiled[i].kernel) {
      results[i].status = TrialStatus::CompileError;
      results[i].error = compiled[i].error;
    }
  }
  return results;
}

}  // namespace tessel::search
