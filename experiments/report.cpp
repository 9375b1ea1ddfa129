// Curves and summaries of an experiment (experiments/report.h).
#include "experiments/report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include "support/error.h"
#include "support/output_file.h"

namespace tessel::experiments {

namespace {

struct Stats {
  double mean = 0, stddev = 0, min = 0, max = 0;
};

// Mean, sample standard deviation (0 for one value), min and max.
Stats stats_of(const std::vector<double>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  if (v.size() > 1) {
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  }
  return s;
}

// What a run's search is measured against: its workload on its target (an AVX2 run cannot reach
// what the AVX-512 runs of the same workload found).
std::string search_problem(const Configuration& c) { return c.workload + "|" + c.target; }

// The best GFLOP/s any run of the experiment found, per workload and target.
std::map<std::string, double> best_per_problem(const ExperimentConfig& config, const std::vector<RunResult>& runs) {
  std::map<std::string, double> best;
  for (const RunResult& r : runs) {
    double& b = best[search_problem(config.configurations[r.spec.configuration])];
    b = std::max(b, r.best_gflops());
  }
  return best;
}

nlohmann::json stats_json(const Stats& s) {
  return {{"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min}, {"max", s.max}};
}

// The final selections of the runs: mean re-measured GFLOP/s of the chosen configurations, its
// speedup, and how many runs chose the template's default; null when no run had a selection.
// "onednn (avx2)": the library and the ISA it ran, which a target's runs are compared against.
std::string baseline_label(const nlohmann::json& baseline) {
  std::string isa = baseline.value("isa", "");
  return baseline["name"].get<std::string>() + (isa.empty() ? "" : " (" + isa + ")");
}

nlohmann::json chosen_summary(const std::vector<const RunResult*>& runs, const WorkloadBaseline* baseline) {
  std::vector<double> chosen;
  int64_t defaults = 0;
  for (const RunResult* r : runs) {
    if (r->chosen_gflops <= 0) continue;
    chosen.push_back(r->chosen_gflops);
    defaults += r->chosen_default;
  }
  if (chosen.empty()) return nullptr;
  Stats s = stats_of(chosen);
  bool has_baseline = baseline && baseline->gflops > 0;
  return {{"mean_gflops", s.mean},
          {"spread", s.stddev},
          {"speedup", has_baseline ? nlohmann::json(s.mean / baseline->gflops) : nlohmann::json(nullptr)},
          {"runs", chosen.size()},
          {"default_chosen", defaults}};
}

nlohmann::json configuration_summary(const Configuration& c, const std::vector<const RunResult*>& runs,
                                     double experiment_best, const WorkloadBaseline* baseline) {
  std::vector<double> bests, to95, errors;
  int64_t reached = 0;
  for (const RunResult* r : runs) {
    bests.push_back(r->best_gflops());
    errors.push_back(static_cast<double>(r->errors));
    int64_t t = trials_to_reach(r->curve, 0.95 * experiment_best);
    reached += t > 0;
    to95.push_back(static_cast<double>(t > 0 ? t : static_cast<int64_t>(r->curve.size())));
  }
  Stats best = stats_of(bests), t95 = stats_of(to95);
  nlohmann::json baseline_json = nullptr;
  if (baseline && baseline->baseline.median_us > 0)
    baseline_json = {{"name", baseline->baseline.name}, {"isa", baseline->baseline.isa},
                     {"median_us", baseline->baseline.median_us},
                     {"gflops", baseline->gflops}, {"speedup_of_mean_best", best.mean / baseline->gflops}};
  return {{"workload", c.workload},
          {"label", c.label},
          {"configuration", c.to_json()},
          {"seeds", runs.size()},
          {"mean_best_gflops", best.mean},
          {"spread", best.stddev},
          {"best_gflops", stats_json(best)},
          {"baseline", baseline_json},
          {"experiment_best_gflops", experiment_best},
          {"trials_to_95pct", t95.mean},
          {"trials_to_95pct_stats", stats_json(t95)},
          {"reached_95pct", reached},
          {"mean_errors", stats_of(errors).mean},
          {"chosen", chosen_summary(runs, baseline)}};
}

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

// The final selections' table, when the runs had any.
void write_selection_md(std::ostream& out, const nlohmann::json& summary) {
  bool any = std::any_of(summary.begin(), summary.end(), [](const nlohmann::json& s) { return !s["chosen"].is_null(); });
  if (!any) return;
  out << "\n## Final selection\n\nEach run re-measured its fastest configurations and the template's default in "
         "alternation and chose the fastest over those rounds; chosen GFLOP/s is that re-measured time.\n\n"
         "| workload | configuration | chosen GFLOP/s | speedup | default chosen |\n|---|---|---|---|---|\n";
  for (const nlohmann::json& s : summary) {
    const nlohmann::json& c = s["chosen"];
    if (c.is_null()) continue;
    out << "| " << s["workload"].get<std::string>() << " | " << s["label"].get<std::string>() << " | "
        << fixed(c["mean_gflops"], 1) << " ± " << fixed(c["spread"], 1) << " | "
        << (c["speedup"].is_null() ? "-" : fixed(c["speedup"], 2) + "×") << " | " << c["default_chosen"].get<int64_t>()
        << "/" << c["runs"].get<int64_t>() << " |\n";
  }
}

void write_curves(std::ostream& out, const ExperimentConfig& config, const std::vector<RunResult>& runs) {
  out << "run,workload,configuration,seed,trial,best_gflops\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const Configuration& c = config.configurations[runs[i].spec.configuration];
    for (size_t t = 0; t < runs[i].curve.size(); ++t)
      out << i + 1 << "," << c.workload << ",\"" << c.label << "\"," << runs[i].spec.seed << "," << t + 1 << ","
          << runs[i].curve[t] << "\n";
  }
}

void write_summary(std::ostream& out, const ExperimentConfig& config, const nlohmann::json& summary) {
  out << "# Experiment " << config.name << "\n\n";
  if (!config.description.empty()) out << config.description << "\n\n";
  out << "Best GFLOP/s: mean ± sample standard deviation over " << config.seeds.size()
      << " seed(s). trials to 95%: mean trials until 95% of the best any run found on the workload and target "
         "(runs that never got there count their whole budget; see reached).\n\n";
  bool on_hardware = std::any_of(config.configurations.begin(), config.configurations.end(),
                                 [](const Configuration& c) { return c.measure == "hardware"; });
  if (on_hardware)
    out << "Best GFLOP/s is the tuner's own measurement (each candidate alone in a sandboxed child, warm, back "
           "to back: the best of many such numbers is optimistic); the baseline was measured once in this process "
           "before tuning. To quote a speedup, re-measure the winners against the baseline in alternation: "
           "`tessel bench <op> --workload ... --tuned records.db`.\n\n";
  std::set<std::string> replayed;
  for (const Configuration& c : config.configurations)
    if (c.measure.rfind("replay:", 0) == 0) replayed.insert(c.measure.substr(7));
  if (!replayed.empty())
    out << "Replayed runs measured nothing: their GFLOP/s and their baseline's come from the recorded set ("
        << join_list({replayed.begin(), replayed.end()})
        << "), measured on the machine and at the time it was recorded, so a speedup here compares recorded numbers "
           "with a recorded baseline, not with this machine's. To quote one, tune with `measure: hardware` and "
           "re-measure the winners against the baseline in alternation (`tessel bench ... --tuned`).\n\n";
  out << "| workload | configuration | best GFLOP/s | baseline | baseline GFLOP/s | speedup | trials to 95% | "
         "reached | errors |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const nlohmann::json& s : summary) {
    const nlohmann::json& b = s["baseline"];
    out << "| " << s["workload"].get<std::string>() << " | " << s["label"].get<std::string>() << " | "
        << fixed(s["mean_best_gflops"], 1) << " ± " << fixed(s["spread"], 1) << " | "
        << (b.is_null() ? "-" : baseline_label(b)) << " | " << (b.is_null() ? "-" : fixed(b["gflops"], 1))
        << " | " << (b.is_null() ? "-" : fixed(b["speedup_of_mean_best"], 2) + "×") << " | "
        << fixed(s["trials_to_95pct"], 1) << " | " << s["reached_95pct"].get<int64_t>() << "/"
        << s["seeds"].get<int64_t>() << " | " << fixed(s["mean_errors"], 1) << " |\n";
  }
  write_selection_md(out, summary);
}

}  // namespace

int64_t trials_to_reach(const std::vector<double>& curve, double target) {
  for (size_t i = 0; i < curve.size(); ++i)
    if (curve[i] > 0 && curve[i] >= target) return static_cast<int64_t>(i + 1);
  return 0;
}

std::string baseline_key(const Configuration& c) {
  return c.workload + "|" + c.measure + (c.cache_flush ? "|cache_flush" : "");
}

nlohmann::json summarize(const ExperimentConfig& config, const std::vector<RunResult>& runs,
                         const std::map<std::string, WorkloadBaseline>& baselines) {
  std::map<std::string, double> best = best_per_problem(config, runs);
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < config.configurations.size(); ++i) {
    const Configuration& c = config.configurations[i];
    std::vector<const RunResult*> mine;
    for (const RunResult& r : runs)
      if (r.spec.configuration == i) mine.push_back(&r);
    if (mine.empty()) continue;
    auto b = baselines.find(baseline_key(c));
    out.push_back(configuration_summary(c, mine, best[search_problem(c)], b == baselines.end() ? nullptr : &b->second));
  }
  return out;
}

void write_curves_csv(const std::string& path, const ExperimentConfig& config, const std::vector<RunResult>& runs) {
  write_file_atomically(path, [&](std::ostream& out) { write_curves(out, config, runs); });
}

void write_summary_md(const std::string& path, const ExperimentConfig& config, const nlohmann::json& summary) {
  write_file_atomically(path, [&](std::ostream& out) { write_summary(out, config, summary); });
}

}  // namespace tessel::experiments
