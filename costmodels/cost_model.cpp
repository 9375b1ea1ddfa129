// The checked entry points of every cost model, and target scaling (costmodels/cost_model.h).
#include "costmodels/cost_model.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace tessel {

CostModel::~CostModel() = default;

namespace {

void check_fit_input(const std::string& model, const std::vector<ProgramFeatures>& x,
                     const std::vector<double>& throughput) {
  if (x.empty()) user_error("cost model '", model, "': fit() needs at least one measured program");
  if (x.size() != throughput.size())
    user_error("cost model '", model, "': fit() got ", x.size(), " programs but ", throughput.size(),
               " throughputs; pass one throughput per program");
  for (size_t i = 0; i < throughput.size(); ++i)
    if (!std::isfinite(throughput[i]) || throughput[i] < 0)
      user_error("cost model '", model, "': throughput ", i, " is ", throughput[i],
                 "; throughputs must be finite and >= 0 (use 0 for a failed measurement)");
}

void check_scores(const std::string& model, size_t programs, const std::vector<double>& scores) {
  if (scores.size() != programs)
    user_error("cost model '", model, "' returned ", scores.size(), " scores for ", programs,
               " programs; a model must score every program it is given, in order");
  for (size_t i = 0; i < scores.size(); ++i)
    if (!std::isfinite(scores[i]))
      user_error("cost model '", model, "' returned score ", scores[i], " for program ", i,
                 "; scores must be finite numbers");
}

}  // namespace

void CostModel::fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) {
  check_fit_input(name(), x, throughput);
  do_fit(x, throughput);
}

std::vector<double> CostModel::predict(const std::vector<ProgramFeatures>& x) const {
  if (!trained())
    user_error("cost model '", name(), "': predict() called before fit(); fit it on measured programs first");
  if (x.empty()) return {};
  std::vector<double> scores = do_predict(x);
  check_scores(name(), x.size(), scores);
  return scores;
}

std::vector<double> normalized_throughput(const std::vector<double>& throughput) {
  double best = throughput.empty() ? 0.0 : *std::max_element(throughput.begin(), throughput.end());
  std::vector<double> out(throughput.size(), 0.0);
  if (best > 0)
    for (size_t i = 0; i < throughput.size(); ++i) out[i] = throughput[i] / best;
  return out;
}

void check_choice(const std::string& model, const std::string& param, const std::string& value,
                  const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return;
  user_error("cost model '", model, "': parameter '", param, "' is '", value, "'; valid values: ", join_list(valid));
}

}  // namespace tessel
