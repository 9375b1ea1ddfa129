// Compiled models compared and timed in a tessel-runner process (search/measure/model_sandbox.h).
#include "search/measure/model_sandbox.h"

#include <unistd.h>

#include <algorithm>

#include "search/measure/runner_process.h"
#include "support/error.h"

namespace tessel::search {

namespace {

// Reads the checks into timings.checks; whether every model passed.
bool read_checks(RunnerProcess& child, size_t models, const RunOptions& options, ModelTimings& timings) {
  for (size_t i = 0; i < models; ++i) {
    runner::ResultRecord record;
    if (std::optional<MeasureResult> failed = child.read(record, options.timeout_s, "the models' check")) {
      timings.failure = failed->error;
      timings.checks.resize(models, *failed);
      return false;
    }
    TESSEL_CHECK(record.position == i, "model sandbox: check ", record.position, " arrived while expecting ", i);
    timings.checks.push_back(measure_result_of(record));
  }
  return timings.checks_ok();
}

// Reads round `round`'s timings (one per model, in the order timed) into timings.round_us.
bool read_round(RunnerProcess& child, size_t models, size_t round, const RunOptions& options, ModelTimings& timings) {
  std::vector<double> us(models, 0);
  size_t first = models + round * models;
  for (size_t j = 0; j < models; ++j) {
    runner::ResultRecord record;
    if (std::optional<MeasureResult> failed = child.read(record, options.timeout_s, "the models' timing")) {
      timings.failure = failed->error;
      return false;
    }
    TESSEL_CHECK(record.position >= first && record.position < first + models && us[record.position - first] == 0,
                 "model sandbox: timing ", record.position, " arrived in round ", round);
    us[record.position - first] = record.median_us;
  }
  timings.round_us.push_back(us);
  return true;
}

}  // namespace

bool ModelTimings::checks_ok() const {
  return std::all_of(checks.begin(), checks.end(), [](const MeasureResult& r) { return r.ok(); });
}

bool ModelTimings::ok(int rounds) const {
  return failure.empty() && round_us.size() == static_cast<size_t>(rounds) && checks_ok();
}

ModelTimings time_models(const std::vector<std::string>& folders, const std::vector<NamedArray>& inputs,
                         const RunOptions& options, int rounds) {
  TESSEL_CHECK(!folders.empty() && rounds >= 1 && options.repeats >= 1 && options.warmup >= 0 &&
                   options.timeout_s > 0 && options.threads >= 1,
               "bad model timing options");
  int tensors_fd = tensors_memfd(inputs, "the models' inputs");
  ModelTimings timings;
  try {
    runner::Request request = runner_request(options);
    request.models = folders;
    request.rounds = rounds;
    RunnerProcess child(request, tensors_fd);
    if (read_checks(child, folders.size(), options, timings)) {
      bool completed = true;
      for (size_t r = 0; completed && r < static_cast<size_t>(rounds); ++r)
        completed = read_round(child, folders.size(), r, options, timings);
      if (completed) child.finish();
    } else if (timings.failure.empty()) {
      child.finish();
    }
  } catch (...) {
    close(tensors_fd);
    throw;
  }
  close(tensors_fd);
  return timings;
}

}  // namespace tessel::search
