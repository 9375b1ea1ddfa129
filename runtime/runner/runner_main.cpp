// tessel-runner: measures a batch of exported kernels for a tuner, in a process of its own that
// links only libtessel_runtime.so (protocol: runtime/runner/protocol.h). Each kernel is loaded
// from its library, run once into an output filled with NaN and checked against the reference;
// only a correct kernel is timed (warm-up calls, then `repeats` samples: support/timing.h). Or it
// compares compiled models (module folders) and times them in alternation, for tune-model's check
// of its choices in the model. A crash or hang here costs only this process; the parent classifies it.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "runtime/graph_executor.h"
#include "runtime/module.h"
#include "runtime/runner/protocol.h"
#include "runtime/tensor_file.h"
#include "runtime/thread_pool.h"
#include "support/timing.h"

using namespace tessel;
using namespace tessel::runner;

namespace {

struct TaskData {
  std::vector<NDArray> inputs;
  NDArray reference;
};

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = pread(fd, buffer, sizeof(buffer), static_cast<off_t>(text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) user_error("cannot read the runner request: ", std::strerror(errno));
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

TaskData kernel_task_data(const std::vector<NamedArray>& arrays) {
  if (arrays.empty() || arrays.back().name != kReferenceName)
    user_error("the runner's task data does not end with the '", kReferenceName, "' array");
  TaskData data;
  for (size_t i = 0; i + 1 < arrays.size(); ++i) data.inputs.push_back(arrays[i].array);
  data.reference = arrays.back().array;
  return data;
}

// Throws UserError unless the function takes the task's inputs followed by one output.
void check_signature(const FunctionInfo& f, const TaskData& data) {
  if (f.args.size() != data.inputs.size() + 1)
    user_error("function '", f.name, "' takes ", f.args.size(), " arguments; the task has ", data.inputs.size(),
               " inputs and one output");
  for (size_t i = 0; i < f.args.size(); ++i) {
    const NDArray& array = i < data.inputs.size() ? data.inputs[i] : data.reference;
    array.check_matches(f.args[i].shape, f.args[i].dtype, "argument '" + f.args[i].name + "' of '" + f.name + "'");
  }
}

// Back-to-back samples, or with Request::flush_cache each call after the inputs but the first
// left the caches.
TimingStats time_kernel(const std::function<void()>& call, const TaskData& data, const Request& request) {
  if (!request.flush_cache) return measure(call, request.warmup, request.repeats);
  auto flush = [&] {
    for (size_t i = 1; i < data.inputs.size(); ++i) evict_from_caches(data.inputs[i].data(), data.inputs[i].nbytes());
  };
  return measure_each_after(call, flush, request.warmup, request.repeats);
}

void set_timing(ResultRecord& r, const TimingStats& t) {
  r.outcome = static_cast<int32_t>(Outcome::Ok);
  r.median_us = t.median_us;
  r.min_us = t.min_us;
  r.max_us = t.max_us;
  r.spread_pct = t.spread_pct;
  r.repeats = t.repeats;
}

ResultRecord measure_kernel(const KernelRef& ref, const TaskData& data, const Request& request) {
  ResultRecord r;
  try {
    Module module = load_module(ref.library);
    Kernel kernel = module.function(ref.function);
    check_signature(kernel.info(), data);
    NDArray out = NDArray::empty(data.reference.shape(), data.reference.dtype());
    for (int64_t i = 0; i < out.numel(); ++i) out.set_double(i, std::numeric_limits<double>::quiet_NaN());
    std::vector<void*> args;
    for (const NDArray& in : data.inputs) args.push_back(const_cast<void*>(in.data()));
    args.push_back(out.data());
    kernel.call(args.data());
    r.max_abs_err = max_abs_diff(out, data.reference);
    if (!(r.max_abs_err <= request.tolerance)) {
      r.outcome = static_cast<int32_t>(Outcome::WrongResult);
      r.set_error(detail::concat("max |output - reference| = ", r.max_abs_err, " exceeds the tolerance ",
                                 request.tolerance));
      return r;
    }
    set_timing(r, time_kernel([&] { kernel.call(args.data()); }, data, request));
  } catch (const std::exception& e) {
    r.outcome = static_cast<int32_t>(Outcome::Error);
    r.set_error(e.what());
  }
  return r;
}

void measure_kernels(const Request& request, const TaskData& data) {
  for (size_t i = 0; i < request.kernels.size(); ++i) {
    ResultRecord r = measure_kernel(request.kernels[i], data, request);
    r.position = static_cast<uint32_t>(i);
    if (!write_record(kResultFd, r)) _exit(3);  // the parent is gone: nobody to report to
  }
}

double largest_magnitude(const NDArray& a) {
  double largest = 0;
  for (int64_t i = 0; i < a.numel(); ++i) largest = std::max(largest, std::abs(a.get_double(i)));
  return largest;
}

// Loads model i into `model`, runs it once on `inputs` and compares its outputs with `first`
// (model 0's, which it fills when i is 0): each within the tolerance times its largest magnitude
// (at least 1), as models compute outputs of any scale and configurations sum in other orders.
ResultRecord check_model(const Request& request, const std::vector<NamedArray>& inputs, size_t i,
                         std::optional<GraphExecutor>& model, std::vector<NDArray>& first) {
  ResultRecord r;
  try {
    model.emplace(GraphExecutor::load(request.models[i]));
    for (const NamedArray& in : inputs) model->set_input(in.name, in.array);
    model->run();
    if (i > 0 && model->num_outputs() != first.size())
      user_error("the model has ", model->num_outputs(), " outputs, the first model ", first.size());
    for (size_t k = 0; k < model->num_outputs() && i > 0; ++k) {
      double error = max_abs_diff(model->output(k), first[k]);
      double allowed = request.tolerance * std::max(1.0, largest_magnitude(first[k]));
      r.max_abs_err = std::max(r.max_abs_err, error);
      if (!(error <= allowed)) {
        r.outcome = static_cast<int32_t>(Outcome::WrongResult);
        r.set_error(detail::concat("output ", k, ": max |output - the first model's| = ", error, " exceeds ", allowed,
                                   " (the tolerance ", request.tolerance, " times its largest magnitude)"));
      }
    }
    for (size_t k = 0; k < model->num_outputs() && i == 0; ++k) first.push_back(model->output(k));
  } catch (const std::exception& e) {
    r.outcome = static_cast<int32_t>(Outcome::Error);
    r.set_error(e.what());
  }
  return r;
}

// The models' check, then their alternating timing (runtime/runner/protocol.h).
void measure_models(const Request& request, const std::vector<NamedArray>& inputs) {
  size_t count = request.models.size();
  std::vector<std::optional<GraphExecutor>> models(count);
  std::vector<NDArray> first;
  bool all_correct = true;
  for (size_t i = 0; i < count; ++i) {
    ResultRecord r = check_model(request, inputs, i, models[i], first);
    r.position = static_cast<uint32_t>(i);
    all_correct = all_correct && r.outcome == static_cast<int32_t>(Outcome::Ok);
    if (!write_record(kResultFd, r)) _exit(3);
  }
  if (!all_correct) return;
  std::vector<int> calls(count);  // per sample, so that a sample lasts about a millisecond
  for (size_t i = 0; i < count; ++i) {
    for (int w = 0; w < request.warmup; ++w) models[i]->run();
    calls[i] = calls_per_sample([&] { models[i]->run(); });
  }
  for (size_t round = 0; round < static_cast<size_t>(request.rounds); ++round) {
    // The models' samples interleaved, so that a slow moment of the machine falls on all of them.
    std::vector<std::vector<double>> samples(count);
    for (int k = 0; k < request.repeats; ++k)
      for (size_t j = 0; j < count; ++j) {
        size_t i = (round + j) % count;
        samples[i].push_back(time_sample_us([&] { models[i]->run(); }, calls[i]));
      }
    for (size_t j = 0; j < count; ++j) {
      size_t i = (round + j) % count;
      ResultRecord r;
      set_timing(r, summarize(samples[i]));
      r.position = static_cast<uint32_t>(count + round * count + i);
      if (!write_record(kResultFd, r)) _exit(3);
    }
  }
}

// Keeps the kernels' thread pool busy for a while before the first kernel is timed. The scheduler
// starts a new process's threads on one core and spreads them only after they have run busy for a
// few milliseconds; until then a kernel on T threads runs on fewer cores. Measured on 2 threads
// (Zen 5, 2 vCPUs): without this the first kernel of a batch often timed 2-3x slow. 20 warm-up
// calls (a quarter of a millisecond) or a 20 ms sleep did not help; 5 ms of busy threads mostly
// did, 20 ms fully. The bias hit whichever candidate a batch measured first, and the final
// selection's leader, re-measured first in every round.
void spread_pool_threads(int threads) {
  using Clock = std::chrono::steady_clock;
  if (threads < 2) return;
  for (Clock::time_point end = Clock::now() + std::chrono::milliseconds(20); Clock::now() < end;)
    parallel_for_range(threads, [](int64_t, int64_t, void*) {
      for (Clock::time_point stop = Clock::now() + std::chrono::microseconds(50); Clock::now() < stop;) {
      }
    }, nullptr);
}

[[noreturn]] void setup_failed(const std::string& why) {
  ResultRecord r;
  r.position = kSetupFailed;
  r.outcome = static_cast<int32_t>(Outcome::Error);
  r.set_error(why);
  write_record(kResultFd, r);
  std::fprintf(stderr, "tessel-runner: %s\n", why.c_str());
  _exit(2);
}

// --protocol N --parent PID: the parent's pid guards against outliving a parent that died
// before the death signal was armed.
void check_arguments(int argc, char** argv) {
  std::string protocol, parent;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--protocol") == 0) protocol = argv[i + 1];
    if (std::strcmp(argv[i], "--parent") == 0) parent = argv[i + 1];
  }
  if (parent.empty() || protocol.empty()) {
    std::fprintf(stderr, "tessel-runner: measures kernels for tessel's tuner; it is not meant to be run by hand\n");
    std::exit(2);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a tuner killed outright must not leave a hanging kernel spinning
  if (std::to_string(getppid()) != parent) _exit(4);
  if (protocol != std::to_string(kProtocolVersion))
    setup_failed("protocol version " + protocol + " requested, this tessel-runner speaks " +
                 std::to_string(kProtocolVersion) + ": it belongs to another Tessel build");
}

}  // namespace

int main(int argc, char** argv) {
  check_arguments(argc, argv);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing candidate must not spend seconds writing a core file
  signal(SIGPIPE, SIG_IGN);          // a parent gone away shows as a failed write instead
  Request request;
  std::vector<NamedArray> arrays;
  TaskData data;
  try {
    request = Request::from_json(read_all(kRequestFd));
    arrays = map_tensors(kTensorsFd, "the runner's task data");
    if (request.models.empty()) data = kernel_task_data(arrays);
    // Before any kernel library loads an OpenMP runtime, which reads this once.
    setenv("OMP_NUM_THREADS", std::to_string(request.threads).c_str(), 1);
    set_num_threads(request.threads);
    spread_pool_threads(request.threads);
  } catch (const std::exception& e) {
    setup_failed(e.what());
  }
  if (request.models.empty()) measure_kernels(request, data);
  else measure_models(request, arrays);
  _exit(0);  // kernels' OpenMP and pool threads need no orderly shutdown
}
