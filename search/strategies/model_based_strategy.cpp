// The "model_based" strategy: AutoTVM's search ("Learning to Optimize Tensor Programs", §3–4).
// After each measured batch the cost model is refitted on every configuration measured so far
// (failures count 0 throughput) plus any transfer data (search/strategies/transfer.h); then parallel
// simulated-annealing chains walk the knob space scored by the model, and the next batch is taken
// from the best-scored unmeasured points they met, with diversity and ε-greedy exploration.
//
// Why each piece:
//  - The model sees features of the lowered loop program (costmodels/features.h). Lowering and
//    extraction are the expensive part of a round, so features are cached by candidate;
//    scores are cached within a round (the model changes between rounds).
//  - Annealing chains start from the best measured points (exploitation) and from random ones
//    (so the walk does not collapse around one basin). The temperature falls linearly from
//    `temperature` to `temperature_end` and is relative to the spread of the starting scores, so
//    it means the same whatever the model's score scale (a ranking model's scores have none).
//  - The batch is picked greedily from the top `pool` × batch candidates, maximizing
//    score + λ · (decision values not yet covered by the batch), AutoTVM's submodular diversity gain,
//    so one batch does not spend all its trials on near-copies of one program.
//  - Each slot of a batch is, with probability `epsilon`, a uniformly random configuration
//    instead, so a wrong model cannot keep the search away from a region forever.
// Until there is something to learn from (a correct measurement, or transfer data), batches are
// random. Everything random comes from the strategy's seed, so a seed repeats a run exactly when
// the cost model is deterministic for its seed too.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "costmodels/features.h"
#include "search/strategies/search_strategy.h"
#include "search/strategies/transfer.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/registry.h"

namespace tessel::search {

namespace {

constexpr double kUnlowerable = -std::numeric_limits<double>::infinity();
// Features of unmeasured configurations are dropped beyond this many, to bound memory (~3 KB each).
constexpr size_t kMaxCachedCandidates = 20000;

struct ModelBasedOptions {
  uint64_t seed = 0;
  int64_t chains = 16, steps = 32, pool = 4, threads = 1;
  double temperature = 1.0, temperature_end = 0.0, epsilon = 0.05, diversity = 0.1;
};

// A measured configuration as training data.
struct Measured {
  Candidate candidate;
  double gflops;  // 0 for failures
  ProgramFeatures features;
};

// The standard deviation of the finite values, or 1 when there is no spread to measure.
double score_scale(const std::vector<double>& scores) {
  double sum = 0, sum_sq = 0;
  size_t n = 0;
  for (double s : scores)
    if (std::isfinite(s)) sum += s, sum_sq += s * s, ++n;
  if (n < 2) return 1;
  double mean = sum / n, var = sum_sq / n - mean * mean;
  return var > 1e-12 ? std::sqrt(var) : 1;
}

class ModelBasedStrategy : public SearchStrategy {
 public:
  explicit ModelBasedStrategy(const ModelBasedOptions& o) : SearchStrategy(o.seed), o_(o) {}
  bool uses_cost_model() const override { return true; }

 protected:
  void on_bind() override {
    if (!cost_model())
      user_error("strategy model_based has no cost model: create it with create_strategy() ",
                 "(search/strategy_factory.h) naming one, e.g. xgboost");
    if (!transfer_source()) return;
    prior_ = transfer_source()->load(task());
    stale_ = prior_.size() > 0;
    std::cerr << "transfer: " << prior_.size() << " configurations of " << prior_.workloads.size()
              << " other workloads from " << transfer_source()->path() << "\n";
  }

  std::vector<Candidate> propose(size_t n) override {
    if (!refit()) return random_unvisited(n);
    size_t explore = 0;
    std::bernoulli_distribution coin(o_.epsilon);
    for (size_t i = 0; i < n; ++i) explore += coin(rng());
    if (explore == n) return random_unvisited(n);
    std::vector<Candidate> candidates = anneal(static_cast<size_t>(o_.pool) * n);
    return diverse_pick(candidates, n - explore);  // the base fills the other slots at random
  }

  void observe(const std::vector<TrialOutcome>& outcomes) override {
    std::vector<Candidate> measured;
    for (const TrialOutcome& o : outcomes) measured.push_back(o.candidate);
    cache_features(measured);
    for (const TrialOutcome& o : outcomes) record(o);
  }

 private:
  void record(const TrialOutcome& o) {
    double gflops = o.ok ? o.gflops : 0;
    auto known = measured_at_.find(o.candidate);
    if (known != measured_at_.end()) {
      Measured& m = measured_[known->second];
      stale_ |= gflops > m.gflops;
      m.gflops = std::max(m.gflops, gflops);
      return;
    }
    const ProgramFeatures* f = features(o.candidate);
    if (!f) return;  // cannot be lowered, so it taught the model nothing it could use
    measured_at_[o.candidate] = measured_.size();
    measured_.push_back({o.candidate, gflops, *f});
    stale_ = true;
  }

  // Refits the model when there is new data; false while there is nothing to learn from.
  bool refit() {
    if (!stale_) return fitted_;
    stale_ = false;
    std::vector<ProgramFeatures> x = prior_.features;
    std::vector<double> y = prior_.throughput;
    double best = 0;
    for (const Measured& m : measured_) best = std::max(best, m.gflops);
    for (const Measured& m : measured_) {
      x.push_back(m.features);
      y.push_back(best > 0 ? m.gflops / best : 0);  // [0, 1], like each prior workload
    }
    if (std::none_of(y.begin(), y.end(), [](double v) { return v > 0; })) return fitted_ = false;
    cost_model()->fit(x, y);
    round_scores_.clear();
    return fitted_ = true;
  }

  // The features of a candidate's lowered program, cached; null if it cannot be lowered.
  const ProgramFeatures* features(const Candidate& c) {
    cache_features({c});
    const std::optional<ProgramFeatures>& f = features_.at(c);
    return f ? &*f : nullptr;
  }

  // Lowers and extracts every candidate of `candidates` not in the cache yet, on `threads`
  // threads: lowering is most of a round's time, and programs lower independently. (The default
  // is one: on the shared 2-vCPU development machine two threads measured slower, not faster.)
  void cache_features(const std::vector<Candidate>& candidates) {
    std::vector<Candidate> uncached;
    std::unordered_set<Candidate, CandidateHash> seen;
    for (const Candidate& c : candidates)
      if (!features_.count(c) && seen.insert(c).second) uncached.push_back(c);
    if (uncached.empty()) return;
    if (features_.size() + uncached.size() > kMaxCachedCandidates) features_.clear();
    std::vector<std::optional<ProgramFeatures>> out(uncached.size());
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
      for (size_t k; (k = next.fetch_add(1)) < uncached.size();) {
        try {
          out[k] = lower_features(uncached[k]);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          failure = std::current_exception();
        }
      }
    };
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < std::min<size_t>(o_.threads, uncached.size()); ++t) helpers.emplace_back(work);
    work();
    for (std::thread& t : helpers) t.join();
    if (failure) std::rethrow_exception(failure);
    for (size_t k = 0; k < uncached.size(); ++k) features_.emplace(uncached[k], std::move(out[k]));
  }

  std::optional<ProgramFeatures> lower_features(const Candidate& c) const {
    try {
      return extract_features(task().lower(c));
    } catch (const UserError&) {
      return std::nullopt;  // a candidate the template cannot build: scored as the worst possible
    }
  }

  // Model scores of `candidates` under the current fit, cached for the round.
  std::vector<double> score(const std::vector<Candidate>& candidates) {
    cache_features(candidates);
    std::vector<ProgramFeatures> unscored;
    std::vector<Candidate> unscored_candidates;
    std::unordered_set<Candidate, CandidateHash> seen;
    for (const Candidate& c : candidates) {
      if (round_scores_.count(c) || !seen.insert(c).second) continue;
      const ProgramFeatures* f = features(c);
      if (!f) round_scores_[c] = kUnlowerable;
      else unscored.push_back(*f), unscored_candidates.push_back(c);
    }
    std::vector<double> predicted = unscored.empty() ? std::vector<double>{} : cost_model()->predict(unscored);
    for (size_t k = 0; k < unscored.size(); ++k) round_scores_[unscored_candidates[k]] = predicted[k];
    std::vector<double> out;
    for (const Candidate& c : candidates) out.push_back(round_scores_.at(c));
    return out;
  }

  // Starting points: the best measured configurations for half the chains, random ones for the rest.
  std::vector<Candidate> start_points() {
    std::vector<const Measured*> ok;
    for (const Measured& m : measured_)
      if (m.gflops > 0) ok.push_back(&m);
    std::sort(ok.begin(), ok.end(), [](const Measured* a, const Measured* b) {
      return a->gflops != b->gflops ? a->gflops > b->gflops : a->candidate < b->candidate;
    });
    std::vector<Candidate> points;
    size_t from_best = std::min(ok.size(), static_cast<size_t>(o_.chains + 1) / 2);
    for (size_t i = 0; i < from_best; ++i) points.push_back(ok[i]->candidate);
    while (points.size() < static_cast<size_t>(o_.chains)) points.push_back(space().random(rng()));
    return points;
  }

  bool accept(double from, double to, double temperature, double scale) {
    if (to >= from) return true;
    if (temperature <= 0 || !std::isfinite(to)) return false;
    double p = std::exp((to - from) / (temperature * scale));
    return std::uniform_real_distribution<double>(0, 1)(rng()) < p;
  }

  // Runs the chains and returns up to `keep` unvisited candidates they scored, best first.
  std::vector<Candidate> anneal(size_t keep) {
    std::vector<Candidate> points = start_points();
    std::vector<double> scores = score(points);
    double scale = score_scale(scores);
    std::unordered_set<Candidate, CandidateHash> met(points.begin(), points.end());
    for (int64_t step = 0; step < o_.steps; ++step) {
      double t = o_.steps > 1 ? static_cast<double>(step) / (o_.steps - 1) : 0;
      double temperature = o_.temperature + (o_.temperature_end - o_.temperature) * t;
      std::vector<Candidate> next;
      for (const Candidate& p : points) next.push_back(mutate(p));
      std::vector<double> next_scores = score(next);
      for (size_t c = 0; c < points.size(); ++c) {
        met.insert(next[c]);
        if (accept(scores[c], next_scores[c], temperature, scale)) points[c] = next[c], scores[c] = next_scores[c];
      }
    }
    return best_unvisited(met, keep);
  }

  std::vector<Candidate> best_unvisited(const std::unordered_set<Candidate, CandidateHash>& met, size_t keep) {
    std::vector<std::pair<double, Candidate>> ranked;
    for (const Candidate& c : met) {
      double s = round_scores_.at(c);
      if (!visited(c) && std::isfinite(s)) ranked.emplace_back(-s, c);
    }
    keep = std::min(keep, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end());
    std::vector<Candidate> out;
    for (size_t k = 0; k < keep; ++k) out.push_back(ranked[k].second);
    return out;
  }

  // Greedy submodular pick: each slot takes the candidate maximizing its score (scaled to [0, 1]
  // over the candidates) plus `diversity` per decision whose value the batch does not hold yet.
  std::vector<Candidate> diverse_pick(const std::vector<Candidate>& candidates, size_t n) {
    std::vector<double> gain = normalized_scores(candidates);
    std::vector<std::vector<int64_t>> choices;
    size_t positions = 0;
    for (const Candidate& c : candidates) {
      choices.push_back(space().decisions(c));
      positions = std::max(positions, choices.back().size());
    }
    std::vector<std::unordered_set<int64_t>> covered(positions);
    std::vector<bool> taken(candidates.size(), false);
    std::vector<Candidate> batch;
    while (batch.size() < std::min(n, candidates.size())) {
      size_t best = candidates.size();
      double best_gain = -1;
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (taken[c]) continue;
        double g = gain[c];
        for (size_t k = 0; k < choices[c].size(); ++k) g += covered[k].count(choices[c][k]) ? 0 : o_.diversity;
        if (g > best_gain) best = c, best_gain = g;
      }
      taken[best] = true;
      for (size_t k = 0; k < choices[best].size(); ++k) covered[k].insert(choices[best][k]);
      batch.push_back(candidates[best]);
    }
    return batch;
  }

  std::vector<double> normalized_scores(const std::vector<Candidate>& candidates) {
    std::vector<double> s;
    for (const Candidate& c : candidates) s.push_back(round_scores_.at(c));
    if (s.empty()) return s;
    auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    double low = *lo, range = *hi - *lo;
    for (double& v : s) v = range > 0 ? (v - low) / range : 1;
    return s;
  }

  ModelBasedOptions o_;
  TrainingData prior_;
  std::vector<Measured> measured_;
  std::unordered_map<Candidate, size_t, CandidateHash> measured_at_;
  std::unordered_map<Candidate, std::optional<ProgramFeatures>, CandidateHash> features_;
  std::unordered_map<Candidate, double, CandidateHash> round_scores_;
  bool stale_ = false, fitted_ = false;
};

const std::vector<ParamSpec> kParams = {
    {"chains", ParamType::Int, 16, "parallel simulated-annealing chains per round", limits::population()},
    {"steps", ParamType::Int, 32, "annealing steps of each chain per round",
     Allowed::at_least(0).at_most(limits::kMaxIterations)},
    {"temperature", ParamType::Float, 1.0, "initial temperature, in units of the spread of the starting scores",
     Allowed::at_least(0)},
    {"temperature_end", ParamType::Float, 0.0, "final temperature (linear schedule)", Allowed::at_least(0)},
    {"pool", ParamType::Int, 4, "best-scored candidates per batch slot among which the diverse pick chooses",
     limits::population()},
    {"diversity", ParamType::Float, 0.1, "gain per knob value new to the batch (scores scaled to [0, 1])",
     Allowed::at_least(0)},
    {"epsilon", ParamType::Float, 0.05, "probability that a batch slot is a random configuration",
     Allowed::at_least(0).at_most(1)},
    {"threads", ParamType::Int, 1, "threads lowering candidates for features; results do not depend on it",
     limits::threads()}};

std::unique_ptr<SearchStrategy> create(const PluginParams& p) {
  ModelBasedOptions o;
  o.seed = p.get_int("seed");
  o.chains = p.get_int("chains");
  o.steps = p.get_int("steps");
  o.temperature = p.get_float("temperature");
  o.temperature_end = p.get_float("temperature_end");
  o.pool = p.get_int("pool");
  o.diversity = p.get_float("diversity");
  o.epsilon = p.get_float("epsilon");
  o.threads = p.get_int("threads");
  return std::make_unique<ModelBasedStrategy>(o);
}

}  // namespace

TESSEL_REGISTER_PLUGIN(SearchStrategy, model_based,
                       "AutoTVM: annealing on a cost model's scores, diverse batches, epsilon-greedy (needs a cost model)",
                       kParams, create);

}  // namespace tessel::search
