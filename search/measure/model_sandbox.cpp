// Compiled models compared and timed in a tessel-runner process (search/measure/model_sandbox.h).
#include "search/measure/model_sandbox.h"

#include <unistd.h>

#include <algorithm>

#include "search/measure/runner_process.h"
#include "support/error.h"

namespace tessel::search {

namespace {

// Reads the runner's next record; on a hang or an exit, says what happened in `timings.failure`
// and returns the status of the unsettled result (Timeout or Crash), Ok on a record.
TrialStatus next_record(RunnerProcess& child, runner::ResultRecord& record, const RunOptions& options,
                        const char* running, ModelTimings& timings) {
  switch (child.next(record, options.timeout_s)) {
    case RunnerProcess::Next::Record: return TrialStatus::Ok;
    case RunnerProcess::Next::Timeout:
      timings.failure = detail::concat("no result within ", options.timeout_s, " s while ", running,
                                       "; the runner was killed");
      return TrialStatus::Timeout;
    case RunnerProcess::Next::Ended: timings.failure = child.exit_description(running); return TrialStatus::Crash;
  }
  return TrialStatus::Crash;
}

// Reads the checks into timings.checks; whether every model passed.
bool read_checks(RunnerProcess& child, size_t models, const RunOptions& options, ModelTimings& timings) {
  for (size_t i = 0; i < models; ++i) {
    runner::ResultRecord record;
    TrialStatus status = next_record(child, record, options, "checking the models", timings);
    if (status != TrialStatus::Ok) {
      timings.checks.resize(models, runner_failure(status, timings.failure));
      return false;
    }
    TESSEL_CHECK(record.position == i, "model sandbox: check ", record.position, " arrived while expecting ", i);
    timings.checks.push_back(measure_result_of(record));
  }
  return std::all_of(timings.checks.begin(), timings.checks.end(), [](const MeasureResult& r) { return r.ok(); });
}

// Reads round `round`'s timings (one per model, in the order timed) into timings.round_us.
bool read_round(RunnerProcess& child, size_t models, size_t round, const RunOptions& options, ModelTimings& timings) {
  std::vector<double> us(models, 0);
  size_t first = models + round * models;
  for (size_t j = 0; j < models; ++j) {
    runner::ResultRecord record;
    if (next_record(child, record, options, "timing the models", timings) != TrialStatus::Ok) return false;
    TESSEL_CHECK(record.position >= first && record.position < first + models && us[record.position - first] == 0,
                 "model sandbox: timing ", record.position, " arrived in round ", round);
    us[record.position - first] = record.median_us;
  }
  timings.round_us.push_back(us);
  return true;
}

}  // namespace

bool ModelTimings::ok(int rounds) const {
  return failure.empty() && round_us.size() == static_cast<size_t>(rounds) &&
         std::all_of(checks.begin(), checks.end(), [](const MeasureResult& r) { return r.ok(); });
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
