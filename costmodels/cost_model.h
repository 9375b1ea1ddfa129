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
//
// A model implements do_fit() and do_predict(); the public fit() and predict() check what goes in
// and what comes out (as the strategy base does for proposals), so a faulty model fails with its
// name and what it did wrong instead of corrupting the search that called it.
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
  void fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput);

  // One score per program, higher meaning predicted faster. Throws UserError before the first fit,
  // and, naming the model, if the model returns another number of scores or a score that is not
  // finite.
  std::vector<double> predict(const std::vector<ProgramFeatures>& x) const;

  virtual bool trained() const = 0;

 protected:
  // fit() and predict() without the checks: called with valid input (predict only when trained()).
  virtual void do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) = 0;
  virtual std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const = 0;
};

// Throughputs divided by their maximum, so that targets lie in [0, 1] whatever the workload's scale
// (as AutoTVM does); all zeros stay zeros.
std::vector<double> normalized_throughput(const std::vector<double>& throughput);

// Throws a UserError listing `valid` unless `value` (of parameter `param` of `model`) is one of them.
void check_choice(const std::string& model, const std::string& param, const std::string& value,
                  const std::vector<std::string>& valid);

}  // namespace tessel
