// Gradient-boosted trees over the flat program features, through XGBoost's C API: AutoTVM's default
// cost model. The pairwise ranking objective learns only the order of the candidates, which is
// what the search needs; the squared-error objective regresses the normalized throughput.
#pragma once
#include <memory>
#include <string>

#include "costmodels/cost_model.h"

namespace tessel {

struct XGBoostOptions {
  std::string objective = "rank:pairwise";  // or "reg:squarederror"
  int rounds = 100;                          // boosting rounds (trees)
  int max_depth = 6;
  double eta = 0.3;  // learning rate
  double min_child_weight = 1;
  int nthread = 1;
  int seed = 0;
  std::string drop_features;  // ablation: flat features hidden from the trees (select_flat_features)
};

class XGBoostModel : public CostModel {
 public:
  // Takes the options as given: their valid ranges are declared by the "xgboost" plugin's
  // parameters, which the registry checks when the model is created by name.
  explicit XGBoostModel(XGBoostOptions options);
  std::string name() const override { return "xgboost"; }
  bool trained() const override { return booster_ != nullptr; }

 protected:
  void do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) override;
  std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const override;

 private:
  XGBoostOptions options_;
  std::vector<int> dropped_;  // positions of options_.drop_features
  std::shared_ptr<void> booster_;  // a BoosterHandle, freed with XGBoosterFree
};

}  // namespace tessel
