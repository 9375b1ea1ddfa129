// The XGBoost cost model: training and prediction through the C API, whose error codes become
// exceptions carrying XGBGetLastError()'s message.
#include "costmodels/xgboost_model.h"

#include <xgboost/c_api.h>

#include <cmath>

#include "support/error.h"

namespace tessel {

namespace {

void check_xgb(int status, const char* call) {
  if (status != 0) user_error("xgboost cost model: ", call, " failed: ", XGBGetLastError());
}

// A DMatrix of flat features, freed when it goes out of scope. Dropped features are given as
// missing values, on which no tree can split: the model never sees them.
class FeatureMatrix {
 public:
  FeatureMatrix(const std::vector<ProgramFeatures>& x, const std::vector<int>& dropped) {
    std::vector<float> rows;
    rows.reserve(x.size() * kFlatFeatureLength);
    for (const ProgramFeatures& f : x) {
      TESSEL_CHECK(f.flat.size() == kFlatFeatureLength, "flat features of length ", f.flat.size());
      size_t row = rows.size();
      rows.insert(rows.end(), f.flat.begin(), f.flat.end());
      for (int i : dropped) rows[row + i] = std::nanf("");
    }
    check_xgb(XGDMatrixCreateFromMat(rows.data(), x.size(), kFlatFeatureLength, std::nanf(""), &handle_),
              "XGDMatrixCreateFromMat");
  }
  ~FeatureMatrix() { XGDMatrixFree(handle_); }
  FeatureMatrix(const FeatureMatrix&) = delete;
  FeatureMatrix& operator=(const FeatureMatrix&) = delete;
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

void set_params(BoosterHandle booster, const XGBoostOptions& o) {
  const std::pair<const char*, std::string> params[] = {
      {"objective", o.objective},
      {"eta", std::to_string(o.eta)},
      {"max_depth", std::to_string(o.max_depth)},
      {"min_child_weight", std::to_string(o.min_child_weight)},
      {"nthread", std::to_string(o.nthread)},
      {"seed", std::to_string(o.seed)},
      {"tree_method", "hist"},
      {"verbosity", "0"},
  };
  for (const auto& [key, value] : params) check_xgb(XGBoosterSetParam(booster, key, value.c_str()), "XGBoosterSetParam");
}

}  // namespace

XGBoostModel::XGBoostModel(XGBoostOptions options)
    : options_(std::move(options)), dropped_(select_flat_features(options_.drop_features)) {}

void XGBoostModel::do_fit(const std::vector<ProgramFeatures>& x, const std::vector<double>& throughput) {
  FeatureMatrix data(x, dropped_);
  std::vector<double> targets = normalized_throughput(throughput);
  std::vector<float> labels(targets.begin(), targets.end());
  check_xgb(XGDMatrixSetFloatInfo(data.handle(), "label", labels.data(), labels.size()), "XGDMatrixSetFloatInfo");
  // All candidates of one fit form a single ranking group.
  unsigned group = static_cast<unsigned>(x.size());
  check_xgb(XGDMatrixSetUIntInfo(data.handle(), "group", &group, 1), "XGDMatrixSetUIntInfo");
  DMatrixHandle matrices[] = {data.handle()};
  BoosterHandle raw = nullptr;
  check_xgb(XGBoosterCreate(matrices, 1, &raw), "XGBoosterCreate");
  std::shared_ptr<void> booster(raw, [](void* b) { XGBoosterFree(b); });
  set_params(raw, options_);
  for (int round = 0; round < options_.rounds; ++round)
    check_xgb(XGBoosterUpdateOneIter(raw, round, data.handle()), "XGBoosterUpdateOneIter");
  booster_ = std::move(booster);
}

std::vector<double> XGBoostModel::do_predict(const std::vector<ProgramFeatures>& x) const {
  FeatureMatrix data(x, dropped_);
  bst_ulong length = 0;
  const float* scores = nullptr;
  check_xgb(XGBoosterPredict(booster_.get(), data.handle(), 0, 0, 0, &length, &scores), "XGBoosterPredict");
  TESSEL_CHECK(length == x.size(), "xgboost returned ", length, " scores for ", x.size(), " programs");
  return std::vector<double>(scores, scores + length);
}

TESSEL_REGISTER_PLUGIN(CostModel, xgboost, "gradient-boosted trees over program features (XGBoost, AutoTVM's GBT)",
    (std::vector<ParamSpec>{
        {"objective", ParamType::String, "rank:pairwise", "training objective: ranking or regression",
         Allowed::one_of({"rank:pairwise", "reg:squarederror"})},
        {"rounds", ParamType::Int, 100, "boosting rounds", Allowed::at_least(1)},
        {"max_depth", ParamType::Int, 6, "maximum tree depth", Allowed::at_least(1)},
        {"eta", ParamType::Float, 0.3, "learning rate", Allowed::above(0).at_most(1)},
        {"min_child_weight", ParamType::Float, 1.0, "minimum hessian sum in a leaf", Allowed::at_least(0)},
        {"nthread", ParamType::Int, 1, "threads XGBoost trains with", Allowed::at_least(1)},
        {"seed", ParamType::Int, 0, "random seed"},
        {"drop_features", ParamType::String, "",
         "ablation: comma-separated feature groups to hide, e.g. level or stride,touched_bytes,reuse"},
    }),
    [](const PluginParams& p) {
      XGBoostOptions o;
      o.objective = p.get_string("objective");
      o.rounds = static_cast<int>(p.get_int("rounds"));
      o.max_depth = static_cast<int>(p.get_int("max_depth"));
      o.eta = p.get_float("eta");
      o.min_child_weight = p.get_float("min_child_weight");
      o.nthread = static_cast<int>(p.get_int("nthread"));
      o.seed = static_cast<int>(p.get_int("seed"));
      o.drop_features = p.get_string("drop_features");
      return std::make_unique<XGBoostModel>(o);
    });

}  // namespace tessel
