// Building and sandboxed measurement of configurations (search/measure/measurer.h).
#include "search/measure/measurer.h"

#include <cfloat>

#include "backends/backend.h"
#include "runtime/thread_pool.h"
#include "search/measure/sandbox_runner.h"
#include "support/error.h"
#include "support/registry.h"
#include "support/timing.h"

namespace tessel::search {

namespace {

void check_options(const MeasureOptions& o) {
  if (o.repeats < 1) user_error("measure: repeats must be >= 1, got ", o.repeats);
  if (o.warmup < 0) user_error("measure: warmup must be >= 0, got ", o.warmup);
  if (!(o.timeout_s > 0)) user_error("measure: timeout must be > 0 s, got ", o.timeout_s);
  if (o.threads < 1) user_error("measure: threads must be >= 1, got ", o.threads);
  if (o.compile_threads < 1) user_error("measure: compile threads must be >= 1, got ", o.compile_threads);
  if (o.flush_cache && !can_evict_from_caches())
    user_error("measure: flushing the caches between samples needs x86's clflush, which this machine lacks; "
               "measure without it");
}

// The back end the options name, for their target if they give one, else for the task's target
// when the back end is of its kind (the target's ISA ceiling applies).
std::unique_ptr<Backend> make_backend(const MeasureOptions& o, const Task& task) {
  if (!o.target && task.target().kind() == o.backend) return create_backend(task.target(), o.backend_params);
  if (!o.target) return Registry<Backend>::instance().create(o.backend, o.backend_params);
  if (o.target->kind() != o.backend)
    user_error("measure: the target '", o.target->str(), "' is for the back end '", o.target->kind(),
               "', not '", o.backend, "'");
  return create_backend(*o.target, o.backend_params);
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
  builder_ = std::make_unique<Builder>(task_, make_backend(options_, task_), options_.compile_threads);
  Program program = task_.space_template().default_program();
  uint64_t seed = options_.input_seed;
  for (const Tensor& input : program.inputs)
    inputs_.push_back(NDArray::random_uniform(input.shape(), input.dtype(), seed++));
  set_num_threads(options_.threads);
  auto kernel = make_backend(options_, task_)->compile(task_.lower_default_program());
  reference_ = NDArray::empty(program.output.shape(), program.output.dtype());
  std::vector<void*> args;
  for (NDArray& in : inputs_) args.push_back(in.data());
  args.push_back(reference_.data());
  kernel->call(args.data());
  RunOptions run{options_.warmup, options_.repeats, options_.timeout_s, options_.threads,
                 result_tolerance(task_.workload().reduction_size()), options_.flush_cache};
  runner_ = std::make_unique<SandboxRunner>(inputs_, reference_, run);
}

Measurer::~Measurer() = default;

std::vector<MeasureResult> Measurer::measure(const std::vector<Candidate>& candidates) const {
  std::vector<BuildResult> built = builder_->build(candidates);
  std::vector<runner::KernelRef> kernels;
  for (const BuildResult& b : built)
    if (b.ok()) kernels.push_back(b.artifact);
  std::vector<MeasureResult> measured = runner_->run(kernels);
  builder_->discard(built);
  std::vector<MeasureResult> results(candidates.size());
  for (size_t i = 0, k = 0; i < built.size(); ++i) {
    if (built[i].ok()) {
      results[i] = std::move(measured[k++]);
    } else {
      results[i].status = TrialStatus::CompileError;
      results[i].error = built[i].error;
    }
    results[i].compile_s = built[i].compile_s;
  }
  return results;
}

}  // namespace tessel::search
