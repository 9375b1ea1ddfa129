// The interface every cost model implements: a learned predictor of how fast a candidate program
// runs, from the features of its lowered loop program (costmodels/features.h). The model-based
// search strategy fits it on the measured candidates and ranks unmeasured ones by its predictions,
// so only the order of the scores matters, never their scale.
//
//   std::unique_ptr<CostModel> model = Registry<CostModel>::instance().create("xgboost", {{"seed", 1}});
//   model->fit(features_of_measured, gflops_of_measured);   // from scratch, on all data so far
//   std::vector<double> scores = model->predict(features_of_candidates);   // higher = faster
//
// Models register as plugins of kind "cost_model". "none" is not a model: a strategy that does not
// use one simply never creates one.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "costmodels/features.h"
#include "support/registry.h"

namespace tessel {

class CostModel {
 public:
  static constexpr const char* kPluginKind = "cost_model";
  virtual ~CostModel();

  // The registry name, e.g. "xgboost".
  virtual std::string name() const = 0;

  // Trains from scratch on x[i] with measured throughput[i] (higher is faster, e.g. GFLOP/s; a
  // failed measurement counts as 0). Throws UserError if the sizes differ, x is empty, or a
  // throughput is negative or not finite. The same data and seed give the same model.
  virtual void fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) = 0;

  // One score per program, higher meaning predicted faster. Throws UserError before the first fit.
  virtual std::vector<double> predict(const std::vector<ProgramFeatures>& x) const = 0;

  virtual bool trained() const = 0;
};

// Checks the arguments of fit() as its contract says; `model` names the caller in messages.
void check_fit_input(const std::string& model, const std::vector<ProgramFeatures>& x,
                     const std::vector<double>& throughput);

// Throws the UserError of predict() before fit().
[[noreturn]] void throw_untrained(const std::string& model);

// Throughputs divided by their maximum, so that targets lie in [0, 1] whatever the workload's scale
// (as AutoTVM does); all zeros stay zeros.
std::vector<double> normalized_throughput(const std::vector<double>& throughput);

// Throws a UserError listing `valid` unless `value` (of parameter `param` of `model`) is one of them.
void check_choice(const std::string& model, const std::string& param, const std::string& value,
                  const std::vector<std::string>& valid);

}  // namespace tessel
