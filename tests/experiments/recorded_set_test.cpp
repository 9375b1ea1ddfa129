// Recorded sets and replay (search/replay/): a set round-trips through its file, an incomplete,
// duplicated or foreign set is refused, replay answers exactly what was recorded, and a tuning
// run in replay is a pure function of its seed. The sets here are synthetic (timings computed
// from the configuration index) so the tests run in milliseconds; the shipped sets are real.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "search/replay/replay_measurer.h"
#include "search/strategy_factory.h"
#include "search/tuner.h"
#include "support/error.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

// Replay runs no code, so the tiny GEMM's task is built for AVX-512 on any host: its space (144
// configurations) is the one these tests were written for.
Task tiny_gemm_task() { return Task::create(test::kTinyGemm, "template", nullptr, Target::parse("llvm_cpu -isa=avx512")); }

// A whole-space recording of `task` with made-up timings: every 7th configuration fails.
RecordedWorkload synthetic(const Task& task) {
  RecordedWorkload w{task.workload().name, task.space_name(), task.target().key(), task.target().str(),
                     RecordedWorkload::describe_space(task.knob_space("a synthetic set")), "openblas", 1.5,
                     {{"note", "synthetic"}}, {}};
  for (uint64_t i = 0; i < task.space().size(); ++i) {
    MeasureResult r;
    r.status = i % 7 == 3 ? TrialStatus::Crash : TrialStatus::Ok;
    if (r.ok()) r.timing = {1.0 + static_cast<double>((i * 37) % 101), 0.9, 1.2, 5.0, 5};
    else r.error = "killed by signal 11";
    w.results.push_back(r);
  }
  return w;
}

// The synthetic recording of `task` saved as a set file at `path`.
void save_synthetic_set(const Task& task, const std::string& path) {
  RecordedSet set(path);
  set.put(synthetic(task));
  set.save();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A random-search run of `trials` in replay, recorded in `db` (may be null).
TuneReport replay_run(const Task& task, const ReplayMeasurer& replay, int64_t seed, int64_t trials, RecordsDb* db) {
  StrategyChoice choice;
  choice.seed = seed;
  auto strategy = create_strategy(choice);
  TuneOptions options;
  options.trials = trials;
  options.progress = false;
  return Tuner(task, *strategy, make_run_key(task, "random", seed), db, options).run({}, &replay);
}

std::set<uint64_t> configs_of(const RecordsDb& db, int64_t seed) {
  std::set<uint64_t> out;
  for (const TrialRecord& r : db.all())
    if (r.run.seed == seed) out.insert(r.candidate.index());
  return out;
}

}  // namespace

TEST_CASE("a recorded set round-trips through its file", "[experiments][replay]") {
  test::ScratchDir dir;
  Task task = tiny_gemm_task();
  save_synthetic_set(task, dir.file("set.json"));
  RecordedSet loaded = RecordedSet::load(dir.file("set.json"));
  const RecordedWorkload& w = loaded.workload(test::kTinyGemm, "template");
  RecordedWorkload expected = synthetic(task);
  REQUIRE(w.results.size() == task.space().size());
  for (size_t i = 0; i < w.results.size(); ++i) {
    CHECK(w.results[i].status == expected.results[i].status);
    CHECK(w.results[i].timing.median_us == expected.results[i].timing.median_us);
    CHECK(w.results[i].error == expected.results[i].error);
  }
  CHECK(w.baseline_name == "openblas");
  CHECK(w.baseline_us == 1.5);
  CHECK(w.target == task.target().key());
  CHECK(w.target_resolved == task.target().str());
  CHECK(w.replay_target().str() == task.target().str());  // the programs that were measured
  CHECK_THROWS_WITH(loaded.workload("C6", "template"), Catch::Contains("it records: gemm:4,8,2"));
}

TEST_CASE("a set recorded before it kept its resolved target replays on one thread", "[experiments][replay]") {
  RecordedWorkload old_style;
  old_style.target = "llvm_cpu -isa=avx2";
  CHECK(old_style.replay_target().str() ==
        Target::parse("llvm_cpu -isa=avx2 -threads=1 -prefetch=0 -winograd-prefetch=0").str());
  RecordedWorkload kept = old_style;
  kept.target_resolved = Target::parse("llvm_cpu -isa=avx2 -threads=2").str();
  CHECK(kept.replay_target().cpu().threads == 2);
  CHECK(kept.replay_target().cpu().prefetch_bytes == 8 << 10);  // recorded with the attribute
}

TEST_CASE("a target recorded before weight prefetch replays without it", "[experiments][replay]") {
  RecordedWorkload w;
  w.target = "llvm_cpu -isa=avx2";
  w.target_resolved = "llvm_cpu -isa=avx2 -threads=2 -fma-units=2 -fma-latency=4 -l1=32K -l2=512K -l3=16M";
  CHECK(w.replay_target().cpu().prefetch_bytes == 0);
  CHECK(w.replay_target().cpu().winograd_prefetch_bytes == 0);
  CHECK(w.replay_target().cpu().threads == 2);
  w.target_resolved += " -prefetch=8K";  // recorded after weight prefetch, before the Winograd GEMM's
  CHECK(w.replay_target().cpu().prefetch_bytes == 8 << 10);
  CHECK(w.replay_target().cpu().winograd_prefetch_bytes == 0);
  w.target_resolved += " -winograd-prefetch=2K";
  CHECK(w.replay_target().cpu().winograd_prefetch_bytes == 2 << 10);
}

TEST_CASE("an incomplete, duplicated or foreign set is refused", "[experiments][replay]") {
  test::ScratchDir dir;
  Task task = tiny_gemm_task();
  save_synthetic_set(task, dir.file("set.json"));
  nlohmann::json j = nlohmann::json::parse(std::ifstream(dir.file("set.json")));
  nlohmann::json missing = j, twice = j, untargeted = j;
  missing["workloads"][0]["trials"].erase(5);
  twice["workloads"][0]["trials"][5] = twice["workloads"][0]["trials"][6];
  untargeted["workloads"][0].erase("target");
  write_text(dir.file("missing.json"), missing.dump());
  write_text(dir.file("twice.json"), twice.dump());
  write_text(dir.file("untargeted.json"), untargeted.dump());
  write_text(dir.file("foreign.json"), "{\"hello\": 1}");
  write_text(dir.file("broken.json"), "{\"format\": \"tessel-recorded-set\", ");
  CHECK_THROWS_WITH(RecordedSet::load(dir.file("missing.json")),
                    Catch::Contains("configuration 5 of " + std::to_string(task.space().size()) + " is missing"));
  CHECK_THROWS_WITH(RecordedSet::load(dir.file("twice.json")), Catch::Contains("recorded twice"));
  CHECK_THROWS_WITH(RecordedSet::load(dir.file("untargeted.json")),
                    Catch::Contains("gemm:4,8,2") && Catch::Contains("has no \"target\"") &&
                        Catch::Contains("llvm_cpu -isa=avx512"));
  CHECK_THROWS_WITH(RecordedSet::load(dir.file("foreign.json")), Catch::Contains("not a Tessel recorded set"));
  CHECK_THROWS_AS(RecordedSet::load(dir.file("broken.json")), UserError);
  CHECK_THROWS_WITH(resolve_recorded_set("no_such_set_anywhere"), Catch::Contains("datasets/recorded"));
}

TEST_CASE("replay answers what was recorded and refuses another space", "[experiments][replay]") {
  Task task = tiny_gemm_task();
  RecordedWorkload w = synthetic(task);
  ReplayMeasurer replay(task, w, "synthetic");
  CHECK(replay.name() == "replay:synthetic");
  std::vector<MeasureResult> r = replay.measure({Candidate::from_index(3), Candidate::from_index(10)});
  CHECK(r[0].status == TrialStatus::Crash);
  CHECK(r[1].timing.median_us == w.results[10].timing.median_us);
  RecordedWorkload other = w;
  other.knobs[0]["choices"].erase(0);
  CHECK_THROWS_WITH(ReplayMeasurer(task, other, "old"), Catch::Contains("another version of the space"));
}

TEST_CASE("a tuning run in replay is exact and repeatable", "[experiments][replay]") {
  Task task = tiny_gemm_task();
  RecordedWorkload w = synthetic(task);
  ReplayMeasurer replay(task, w, "synthetic");
  auto run = [&](int64_t seed) {
    StrategyChoice choice;
    choice.strategy = "genetic";
    choice.seed = seed;
    auto strategy = create_strategy(choice);
    TuneOptions options;
    options.trials = 40;
    options.progress = false;
    return Tuner(task, *strategy, make_run_key(task, "genetic", seed), nullptr, options).run({}, &replay);
  };
  TuneReport a = run(1), b = run(1);
  REQUIRE(a.curve.size() == 40);
  CHECK(a.curve == b.curve);
  CHECK(std::is_sorted(a.curve.begin(), a.curve.end()));
  // The best is the recorded time of the best configuration the run measured, nothing else.
  CHECK(a.best_us() == w.results[a.best->candidate.index()].timing.median_us);
  CHECK(a.errors > 0);
}

TEST_CASE("runs sharing a database are independent of each other", "[experiments][replay]") {
  test::ScratchDir dir;
  Task task = tiny_gemm_task();
  RecordedWorkload w = synthetic(task);
  ReplayMeasurer replay(task, w, "synthetic");
  RecordsDb db = RecordsDb::open(dir.file("runs.db"));
  replay_run(task, replay, 0, 40, &db);
  // The same trials as a run with nothing recorded before it: a run's choices depend on its seed
  // and its own history only, never on what else the database holds.
  TuneReport alone = replay_run(task, replay, 1, 40, nullptr);
  CHECK(replay_run(task, replay, 1, 40, &db).curve == alone.curve);
  std::set<uint64_t> first = configs_of(db, 0), second = configs_of(db, 1);
  std::vector<uint64_t> common;
  std::set_intersection(first.begin(), first.end(), second.begin(), second.end(), std::back_inserter(common));
  CHECK(!common.empty());  // 40 + 40 draws from 144 configurations overlap
}
