// knn: a cost model written outside Tessel's source tree, loaded with `tessel --plugin
// libknn_cost_model.so` and used by the model_based strategy (`--cost-model knn`); the short
// cost-model part of docs/plugins.md shows it, and tests/tools/plugin_install.sh tunes with it.
//
// It predicts by k-nearest-neighbour regression: a candidate's score is the mean normalized
// throughput of the k measured programs whose flat features (costmodels/features.h) are nearest in
// Euclidean distance. It needs no training beyond remembering the data, which makes it a baseline
// to compare learned models against.
#include <algorithm>
#include <numeric>

#include "tessel/plugin.h"

namespace {

using namespace tessel::plugin;

class KnnModel : public CostModel {
 public:
  explicit KnnModel(int64_t k) : k_(k) {}  // k >= 1, checked by the registry (the "k" ParamSpec)

  std::string name() const override { return "knn"; }
  bool trained() const override { return !targets_.empty(); }

  // The base's fit() has checked the input (as many throughputs as programs, none negative).
  void do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) override {
    points_.clear();
    for (const ProgramFeatures& f : x) points_.push_back(f.flat);
    targets_ = normalized_throughput(throughput);
  }

  // Called by the base's predict() only once trained; it checks there is one finite score per program.
  std::vector<double> do_predict(const std::vector<ProgramFeatures>& x) const override {
    std::vector<double> scores;
    for (const ProgramFeatures& f : x) scores.push_back(mean_of_nearest(f.flat));
    return scores;
  }

 private:
  double mean_of_nearest(const std::vector<float>& query) const {
    std::vector<std::pair<double, double>> by_distance;  // (squared distance, target)
    for (size_t i = 0; i < points_.size(); ++i) {
      double d = 0;
      for (size_t j = 0; j < query.size(); ++j) d += (query[j] - points_[i][j]) * (query[j] - points_[i][j]);
      by_distance.emplace_back(d, targets_[i]);
    }
    size_t k = std::min(static_cast<size_t>(k_), by_distance.size());
    std::partial_sort(by_distance.begin(), by_distance.begin() + k, by_distance.end());
    double sum = std::accumulate(by_distance.begin(), by_distance.begin() + k, 0.0,
                                 [](double s, const auto& p) { return s + p.second; });
    return sum / k;
  }

  int64_t k_;
  std::vector<std::vector<float>> points_;
  std::vector<double> targets_;
};

}  // namespace

TESSEL_REGISTER_PLUGIN(CostModel, knn, "k-nearest-neighbour regression on program features",
                       (std::vector<ParamSpec>{{"k", ParamType::Int, 5, "neighbours averaged", Allowed::at_least(1)}}),
                       [](const PluginParams& p) { return std::make_unique<KnnModel>(p.get_int("k")); });
