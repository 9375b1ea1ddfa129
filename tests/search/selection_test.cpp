// The tuner's final selection (search/selection.h): it re-measures the run's fastest configurations
// with the template's default in alternating rounds, chooses by the median over rounds (not by the
// search's single measurement), never chooses a candidate that failed a round, and the choice is
// what the records database reports per task. A scripted measure source stands for the machine.
#include <catch2/catch.hpp>

#include <map>

#include "search/records/records_db.h"
#include "search/selection.h"
#include "search/tuner.h"
#include "support/error.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

// Answers each configuration with a scripted time per round; an index scripted 0 in a round fails it.
class ScriptedSource : public MeasureSource {
 public:
  explicit ScriptedSource(std::map<uint64_t, std::vector<double>> script) : script_(std::move(script)) {}

  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override {
    std::vector<MeasureResult> out;
    for (const Candidate& c : candidates) {
      const std::vector<double>& times = script_.at(c.index());
      double us = times[std::min(round_, times.size() - 1)];
      MeasureResult r;
      r.status = us > 0 ? TrialStatus::Ok : TrialStatus::Crash;
      if (us > 0) r.timing = {us, us, us, 0, 1};
      out.push_back(r);
    }
    ++round_;
    return out;
  }
  std::string name() const override { return "scripted"; }

 private:
  std::map<uint64_t, std::vector<double>> script_;
  mutable size_t round_ = 0;
};

// Times each configuration at its base time, but the first of every batch three times slower, as
// a fresh runner whose threads have not spread yet would.
class FirstSlowSource : public MeasureSource {
 public:
  explicit FirstSlowSource(std::map<uint64_t, double> base) : base_(std::move(base)) {}

  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override {
    std::vector<MeasureResult> out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      double us = base_.at(candidates[i].index()) * (i == 0 ? 3 : 1);
      MeasureResult r;
      r.status = TrialStatus::Ok;
      r.timing = {us, us, us, 0, 1};
      out.push_back(r);
    }
    return out;
  }
  std::string name() const override { return "first_slow"; }

 private:
  std::map<uint64_t, double> base_;
};

TrialRecord trial(uint64_t index, double us) {
  TrialRecord t;
  t.candidate = Candidate::from_index(index);
  t.result.status = us > 0 ? TrialStatus::Ok : TrialStatus::Crash;
  if (us > 0) t.result.timing = {us, us, us, 0, 1};
  return t;
}

RunKey run_of(const Task& task) { return make_run_key(task, "random", 0); }

}  // namespace

TEST_CASE("the final selection chooses by re-measurement, the default among the candidates", "[search][selection]") {
  Task task = Task::create(test::kTinyGemm, "template");
  uint64_t def = task.default_candidate().index();
  const RunKey kRun = run_of(task);
  std::vector<uint64_t> others;
  for (uint64_t i = 0; others.size() < 4; ++i)
    if (i != def) others.push_back(i);
  // The search saw others[0] fastest, but re-measured it is slower than others[1]; others[2] crashes
  // in the second round; others[3] is not among the 2 fastest trials, so it is not re-measured.
  std::vector<TrialRecord> run = {trial(others[0], 10), trial(others[1], 11), trial(others[2], 12),
                                  trial(others[3], 50), trial(others[3] + 100, 0)};
  ScriptedSource source({{others[0], {30, 30, 30}},
                         {others[1], {20, 25, 22}},
                         {others[2], {5, 0, 5}},
                         {def, {24, 26, 21}}});
  SECTION("the fastest median over rounds wins") {
    run.erase(run.begin() + 2);  // others[2] is not a candidate here
    std::vector<SelectionRecord> c = select_final(task, kRun, run, source, {2, 3});
    REQUIRE(c.size() == 3);  // 2 fastest + the default
    CHECK(c[0].config_index() == static_cast<int64_t>(others[0]));
    CHECK(c[0].median_us == 30);
    CHECK(c[1].median_us == 22);
    CHECK(c[2].origin == "default");
    CHECK(c[2].median_us == 24);
    REQUIRE(chosen_candidate(c) != nullptr);
    CHECK(chosen_candidate(c)->config_index() == static_cast<int64_t>(others[1]));
    CHECK(c[1].gflops == Approx(task.workload().flops() / 22 * 1e-3));
  }
  SECTION("a candidate that fails a round is never chosen") {
    std::vector<SelectionRecord> c = select_final(task, kRun, run, source, {3, 3});
    REQUIRE(c.size() == 4);
    CHECK(c[2].config_index() == static_cast<int64_t>(others[2]));
    CHECK(c[2].median_us == 0);
    CHECK_FALSE(c[2].chosen);
    CHECK(chosen_candidate(c)->config_index() == static_cast<int64_t>(others[1]));
  }
  SECTION("the default found by the search is re-measured once, as the default") {
    run.push_back(trial(def, 1));
    std::vector<SelectionRecord> c = select_final(task, kRun, run, source, {1, 3});
    REQUIRE(c.size() == 1);
    CHECK(c[0].origin == "default");
    CHECK(c[0].chosen);
  }
  SECTION("no correct trial, or no candidates asked for: no selection") {
    CHECK(select_final(task, kRun, {trial(others[0], 0)}, source, {4, 3}).empty());
    CHECK(select_final(task, kRun, run, source, {0, 3}).empty());
    CHECK_THROWS_AS(select_final(task, kRun, run, source, {2, 0}), UserError);
  }
}

TEST_CASE("the final selection keeps the default unless another beats it by the margin", "[search][selection]") {
  Task task = Task::create(test::kTinyGemm, "template");
  uint64_t def = task.default_candidate().index();
  uint64_t a = def == 0 ? 1 : 0;
  std::vector<TrialRecord> run = {trial(a, 10)};
  auto chosen_index = [&](std::map<uint64_t, std::vector<double>> script, double margin) {
    ScriptedSource source(std::move(script));
    std::vector<SelectionRecord> c = select_final(task, run_of(task), run, source, {1, 3, margin});
    REQUIRE(chosen_candidate(c) != nullptr);
    return static_cast<uint64_t>(chosen_candidate(c)->config_index());
  };
  CHECK(chosen_index({{a, {20}}, {def, {20.9}}}, 0.05) == def);  // 4.5% longer: within the margin
  CHECK(chosen_index({{a, {20}}, {def, {21.1}}}, 0.05) == a);    // 5.5% longer
  CHECK(chosen_index({{a, {20}}, {def, {20.9}}}, 0) == a);       // no margin: the fastest
  CHECK(chosen_index({{a, {20}}, {def, {20, 0, 20}}}, 0.05) == a);  // a default that failed a round is out
  ScriptedSource source({{a, {20}}, {def, {21}}});
  CHECK_THROWS_WITH(select_final(task, run_of(task), run, source, {1, 3, -0.1}), Catch::Contains("margin"));
}

TEST_CASE("in a model the final selection keeps the default's split between the threads", "[search][selection]") {
  // On AVX2 the conv2d template offers the parallel loop's order (channel blocks or rows outside).
  Task task = Task::create("conv2d:1,16,4,4,32,1,1,0", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  const ConfigSpace& knobs = task.knob_space("the selection test");
  Config def = knobs.get(task.default_candidate());
  uint64_t other_split = 0, same_split = 0;
  for (uint64_t i = 0; i < knobs.size() && (!other_split || !same_split); ++i) {
    if (i == def.index()) continue;
    bool same = knobs.get(i).value("parallel") == def.value("parallel");
    CHECK(task.space_template().splits_as_default(Candidate::from_index(i)) == same);
    (same ? same_split : other_split) = i;
  }
  REQUIRE((other_split && same_split));
  std::vector<TrialRecord> run = {trial(other_split, 10), trial(same_split, 12)};
  ScriptedSource source({{other_split, {10}}, {same_split, {12}}, {def.index(), {20}}});
  auto chosen_index = [&](bool default_split) {
    std::vector<SelectionRecord> c = select_final(task, run_of(task), run, source, {2, 1, 0.05, default_split});
    REQUIRE(chosen_candidate(c) != nullptr);
    return static_cast<uint64_t>(chosen_candidate(c)->config_index());
  };
  CHECK(chosen_index(false) == other_split);  // the fastest alone
  CHECK(chosen_index(true) == same_split);    // the fastest splitting as the default
  // with no trial splitting as the default, the default alone
  std::vector<SelectionRecord> c =
      select_final(task, run_of(task), {trial(other_split, 10)}, source, {2, 1, 0.05, true});
  REQUIRE(c.size() == 1);
  CHECK(c[0].origin == "default");
  CHECK(c[0].chosen);
}

TEST_CASE("no candidate of the final selection is always measured first", "[search][selection]") {
  Task task = Task::create(test::kTinyGemm, "template");
  uint64_t def = task.default_candidate().index();
  uint64_t a = def == 0 ? 1 : 0, b = def <= 1 ? 2 : 1;
  FirstSlowSource source({{a, 10}, {b, 12}, {def, 14}});
  std::vector<SelectionRecord> c = select_final(task, run_of(task), {trial(a, 10), trial(b, 12)}, source, {2, 3});
  REQUIRE(c.size() == 3);
  // Each is first in one round of three, so its median is its base time: the search's leader wins.
  CHECK(c[0].median_us == 10);
  CHECK(c[1].median_us == 12);
  CHECK(c[2].median_us == 14);
  REQUIRE(chosen_candidate(c) != nullptr);
  CHECK(chosen_candidate(c)->config_index() == static_cast<int64_t>(a));
}

TEST_CASE("a tuning run with a final selection records its choice", "[search][selection]") {
  test::ScratchDir dir;
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  Task task = Task::create(test::kTinyGemm, "template");
  auto strategy = Registry<SearchStrategy>::instance().create("random", {{"seed", 1}});
  TuneOptions options;
  options.trials = 8;
  options.measure.repeats = 2;
  options.progress = false;
  options.select = {3, 2};
  TuneReport report = Tuner(task, *strategy, run_of(task), &db, options).run(Baseline{"fake_blas", 100.0, ""});
  REQUIRE(report.chosen() != nullptr);
  CHECK(report.selection.size() >= 3);
  CHECK(report.chosen_us() == report.chosen()->median_us);
  CHECK(report.speedup() == Approx(100.0 / report.chosen_us()));
  std::vector<SelectionRecord> chosen = db.chosen_per_task();
  REQUIRE(chosen.size() == 1);
  CHECK(chosen[0].config_index() == report.chosen()->config_index());
  CHECK(chosen[0].run.strategy == "random");
  CHECK(chosen[0].rounds == 2);
  CHECK(task.space().candidate_from_json(chosen[0].config) == chosen[0].candidate);

  // The run's selection again, choosing another candidate: the latest choice of a run counts, even
  // where it is slower. (Not simply the slowest: the default stays chosen within the margin, so
  // the chosen one may itself be the slowest.)
  std::vector<SelectionRecord> again = report.selection;
  SelectionRecord* other = nullptr;
  for (SelectionRecord& c : again) {
    c.chosen = false;
    if (c.config_index() == report.chosen()->config_index() || c.median_us <= 0) continue;
    if (!other || c.median_us > other->median_us) other = &c;
  }
  REQUIRE(other != nullptr);
  other->chosen = true;
  db.append_selection(again);
  chosen = db.chosen_per_task();
  REQUIRE(chosen.size() == 1);
  CHECK(chosen[0].config_index() == other->config_index());
}
