// One test per guarantee of the records database (docs/records.md "Guarantees"): crash safety and
// resume determinism under SIGKILL, refusal without modification (foreign, damaged, read-only),
// the integrity check before any write, concurrent creation, one process per run, the schema-3
// upgrade of a file written by the previous release, target handling, and checked imports.
//
// The cases that need other processes re-execute this test binary (fork + exec of /proc/self/exe
// running the hidden case "[.records_child]"), so each child is a fresh process: no threads, locks
// or OpenMP state inherited from the tests that ran before.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "search/replay/replay_measurer.h"
#include "search/strategy_factory.h"
#include "search/trial_validation.h"
#include "search/tuned_config.h"
#include "search/tuner.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;
namespace fs = std::filesystem;

namespace {

constexpr const char* kV2Database = TESSEL_SOURCE_DIR "/tests/search/data/records_v2.db";
constexpr const char* kWorkload = "gemm:256";  // of the recorded set small_cpu
constexpr int64_t kTrials = 40, kBatch = 8;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

const RecordedSet& small_cpu() {
  static const RecordedSet set = RecordedSet::load(resolve_recorded_set("small_cpu"));
  return set;
}

// The target a workload was recorded for in small_cpu: replayed tasks are built in its spaces.
Target recorded_target(const std::string& workload) {
  return Target::parse(small_cpu().workload(workload, "template").target);
}

// The strategies whose resume is checked, by label ("model_based+xgboost" has its model).
StrategyChoice strategy_choice(const std::string& label, int64_t seed) {
  StrategyChoice choice;
  choice.strategy = label;
  if (label == "model_based+xgboost") {
    choice.strategy = "model_based";
    choice.cost_model = "xgboost";
  }
  choice.seed = seed;
  return choice;
}

// A replay source that takes a little time per batch, so a kill can land in the middle of a run.
class SlowReplay : public MeasureSource {
 public:
  SlowReplay(const Task& task, int delay_ms)
      : replay_(task, small_cpu().workload(task.workload().name, "template"), "small_cpu"), delay_ms_(delay_ms) {}
  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    return replay_.measure(candidates);
  }
  std::string name() const override { return replay_.name(); }

 private:
  ReplayMeasurer replay_;
  int delay_ms_;
};

// Tunes kWorkload with the strategy `label` into `db_path` until the run has kTrials trials.
// The trace of a replayed run of `trials`; with `round` > 0 one tuner runs it in rounds of that
// many trials (Tuner::extend_to), as tune_tasks does.
std::vector<uint64_t> tune_replay(const std::string& db_path, const std::string& label, int delay_ms,
                                  const std::string& workload = kWorkload, int64_t trials = kTrials,
                                  int64_t round = 0) {
  Task task = Task::create(workload, "template", nullptr, recorded_target(workload));
  StrategyChoice choice = strategy_choice(label, 3);
  auto strategy = create_strategy(choice);
  RecordsDb db = RecordsDb::open(db_path);
  TuneOptions options;
  options.trials = trials;
  options.batch = kBatch;
  options.progress = false;
  SlowReplay source(task, delay_ms);
  RunKey run = make_run_key(task, run_strategy_label(choice), choice.seed);
  Tuner tuner(task, *strategy, run, &db, options);
  for (int64_t length = round; round > 0 && length < trials; length += round) {
    tuner.extend_to(length);
    REQUIRE(tuner.run({}, &source).trials == length);
  }
  tuner.extend_to(trials);
  tuner.run({}, &source);
  std::vector<uint64_t> trace;
  for (const TrialRecord& r : db.run_trials(run)) trace.push_back(r.candidate.index());
  return trace;
}

size_t recorded_trials(const std::string& db_path) {
  try {
    if (!fs::exists(db_path) || fs::file_size(db_path) == 0) return 0;
    return RecordsDb::open(db_path, RecordsDb::Access::ReadOnly).all().size();
  } catch (const UserError&) {
    return 0;  // caught in the middle of its creation
  }
}

// Runs this test binary's hidden child case with `mode` and `arg` in a fresh process; as user
// `uid` when given (root writes files whatever their modes say, so read-only cases drop to nobody).
pid_t spawn_child(const std::string& mode, const std::string& db_path, const std::string& arg, int uid = -1) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (uid >= 0 && (setgid(uid) != 0 || setuid(uid) != 0)) _exit(126);
    setenv("TESSEL_RECORDS_CHILD", mode.c_str(), 1);
    setenv("TESSEL_RECORDS_CHILD_DB", db_path.c_str(), 1);
    setenv("TESSEL_RECORDS_CHILD_ARG", arg.c_str(), 1);
    execl("/proc/self/exe", "tests_search", "[.records_child]", "--reporter", "compact", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_exit_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A records database with `trials` trials of one run, closed (its WAL checkpointed into the file).
std::vector<TrialRecord> write_database(const std::string& path, int trials) {
  Task task = Task::create(test::kTinyGemm, "template");
  RunKey run = make_run_key(task, "random", 0);
  std::vector<TrialRecord> records;
  for (int i = 0; i < trials; ++i) {
    TrialRecord r;
    r.run = run;
    r.trial = i + 1;
    r.batch = i / 8 + 1;
    r.candidate = Candidate::from_index(static_cast<uint64_t>(i % 144));
    r.config = task.space().to_json(r.candidate);
    r.result.status = TrialStatus::Ok;
    r.result.timing.median_us = 10 + i;
    r.gflops = 1;
    r.result.error = std::string(200, 'x');  // fills pages, so the file has several
    records.push_back(r);
  }
  RecordsDb::open(path).append(records);
  return records;
}

}  // namespace

// The child processes' side: "tune:<strategy>" tunes a replay run (and is killed at some point);
// "create" creates the database at the same moment as its sibling and appends one trial.
TEST_CASE("records test child process", "[.records_child]") {
  const char* mode = std::getenv("TESSEL_RECORDS_CHILD");
  const char* db = std::getenv("TESSEL_RECORDS_CHILD_DB");
  const char* arg = std::getenv("TESSEL_RECORDS_CHILD_ARG");
  REQUIRE(mode);
  std::string m = mode;
  if (m == "tune") {
    tune_replay(db, arg, 25);
  } else if (m == "create") {
    auto start = std::chrono::system_clock::time_point(std::chrono::milliseconds(std::stoll(arg)));
    std::this_thread::sleep_until(start);
    Task task = Task::create(test::kTinyGemm, "template");
    TrialRecord r;
    r.run = make_run_key(task, "random", getpid());
    r.trial = 1;
    r.candidate = Candidate::from_index(0);
    r.config = task.space().to_json(r.candidate);
    RecordsDb::open(db).append({r});
  } else if (m == "readonly") {
    CHECK_THROWS_WITH(RecordsDb::open(db), Catch::Contains("is read-only") && Catch::Contains(arg));
    CHECK(RecordsDb::open(db, RecordsDb::Access::ReadOnly).all().size() == 10);
  }
}

TEST_CASE("kill-and-resume gives the trace of an uninterrupted run, for every strategy", "[search][records][resume]") {
  std::mt19937 rng(2018);
  for (std::string label : {"random", "grid", "annealing", "genetic", "model_based+xgboost"}) {
    INFO(label);
    test::ScratchDir dir;
    std::vector<uint64_t> uninterrupted = tune_replay(dir.file("whole.db"), label, 0);
    REQUIRE(uninterrupted.size() == kTrials);

    std::string killed_db = dir.file("killed.db");
    int kills = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      size_t before = recorded_trials(killed_db);
      if (before >= static_cast<size_t>(kTrials)) break;
      // Kill once the run has a random number of trials more, at a random moment of the next batch.
      size_t wanted = before + 1 + rng() % 12;
      pid_t child = spawn_child("tune", killed_db, label);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (recorded_trials(killed_db) < wanted && std::chrono::steady_clock::now() < deadline &&
             waitpid(child, nullptr, WNOHANG) == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 30));
      if (kill(child, SIGKILL) == 0) ++kills;
      waitpid(child, nullptr, 0);
    }
    CHECK(kills >= 1);
    std::vector<uint64_t> resumed = tune_replay(killed_db, label, 0);
    CHECK(resumed == uninterrupted);
    CHECK(RecordsDb::open(killed_db).all().size() == static_cast<size_t>(kTrials));  // no duplicates
  }
}

TEST_CASE("a tuner extended round by round gives the trace of an uninterrupted run, for every strategy",
          "[search][records][resume]") {
  for (std::string label : {"random", "grid", "annealing", "genetic", "model_based+xgboost"}) {
    INFO(label);
    test::ScratchDir dir;
    std::vector<uint64_t> uninterrupted = tune_replay(dir.file("whole.db"), label, 0);
    REQUIRE(uninterrupted.size() == kTrials);
    CHECK(tune_replay(dir.file("rounds.db"), label, 0, kWorkload, kTrials, 2 * kBatch) == uninterrupted);
  }
}

TEST_CASE("two processes creating the same new database both succeed", "[search][records]") {
  for (int round = 0; round < 3; ++round) {
    test::ScratchDir dir;
    std::string db = dir.file("new.db");
    auto start = std::chrono::system_clock::now() + std::chrono::milliseconds(1500);
    std::string at = std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(start.time_since_epoch()).count());
    std::vector<pid_t> children;
    for (int i = 0; i < 3; ++i) children.push_back(spawn_child("create", db, at));
    for (pid_t child : children) CHECK(wait_exit_status(child) == 0);
    CHECK(RecordsDb::open(db).all().size() == 3);
  }
}

TEST_CASE("the same run tuned twice at once is refused while the first lives", "[search][records]") {
  test::ScratchDir dir;
  Task task = Task::create(test::kTinyGemm, "template");
  RunKey run = make_run_key(task, "random", 0);
  RecordsDb first = RecordsDb::open(dir.file("runs.db"));
  RecordsDb second = RecordsDb::open(dir.file("runs.db"));
  {
    RunClaim claim = first.claim_run(run);
    CHECK_THROWS_WITH(second.claim_run(run), Catch::Contains("is being tuned by another process"));
    RunKey other = run;
    other.seed = 1;
    CHECK_NOTHROW(second.claim_run(other));  // another run of the same task is not held up
  }
  CHECK_NOTHROW(second.claim_run(run));  // released with the first claim
}

TEST_CASE("a damaged database is refused before any write, and left unchanged", "[search][records]") {
  test::ScratchDir dir;
  std::string path = dir.file("damaged.db");
  std::vector<TrialRecord> written = write_database(path, 400);
  std::string intact = file_bytes(path);
  REQUIRE(intact.size() >= 8 * 4096);
  // Garbage over the last page holding trial rows (found by their error text, as the table's and
  // its indexes' pages lie differently with the task's key on each machine), leaving the meta
  // table readable.
  std::string damaged = intact;
  size_t page = intact.rfind(written.front().result.error) / 4096;
  REQUIRE(page > 0);
  for (size_t i = 0; i < 4096; ++i) damaged[page * 4096 + i] = static_cast<char>(0xA5 ^ i);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;

  CHECK_THROWS_WITH(RecordsDb::open(path), Catch::Contains("is damaged") && Catch::Contains("records export") &&
                                               Catch::Contains("records import"));
  CHECK(file_bytes(path) == damaged);
  CHECK_FALSE(fs::exists(path + "-wal"));
  // What is readable can still be read, as the message says.
  size_t readable = 0;
  try {
    RecordsDb::open(path, RecordsDb::Access::ReadOnly).for_each([&](const TrialRecord&) { ++readable; });
  } catch (const UserError&) {
  }
  CHECK(readable > 0);
  CHECK(readable < written.size());
  CHECK(file_bytes(path) == damaged);
}

TEST_CASE("a read-only database is called read-only, served for reading, and left unchanged", "[search][records]") {
  test::ScratchDir dir;
  int uid = geteuid() == 0 ? 65534 : -1;  // nobody
  chmod(fs::path(dir.file("")).parent_path().c_str(), 0755);
  std::string folder = dir.file("locked");
  fs::create_directory(folder);
  std::string path = folder + "/runs.db";
  write_database(path, 10);
  std::string before = file_bytes(path);
  chmod(path.c_str(), 0444);
  CHECK(wait_exit_status(spawn_child("readonly", path, "the file is not writable", uid)) == 0);
  chmod(path.c_str(), 0644);
  chmod(folder.c_str(), 0555);
  CHECK(wait_exit_status(spawn_child("readonly", path, "is not writable", uid)) == 0);
  chmod(folder.c_str(), 0755);
  CHECK(file_bytes(path) == before);
}

TEST_CASE("a schema-2 database of the previous release is upgraded in place and still serves its tasks",
          "[search][records]") {
  test::ScratchDir dir;
  std::string before = file_bytes(kV2Database);
  // Reading never writes: the upgrade happens in a private copy.
  RecordsDb read = RecordsDb::open(kV2Database, RecordsDb::Access::ReadOnly);
  std::vector<TrialRecord> trials = read.all();
  REQUIRE_FALSE(trials.empty());
  CHECK(file_bytes(kV2Database) == before);

  std::string path = dir.file("v2.db");
  fs::copy_file(kV2Database, path);
  {
    RecordsDb db = RecordsDb::open(path);
    std::vector<TrialRecord> upgraded = db.all();
    REQUIRE(upgraded.size() == trials.size());
    for (const TrialRecord& r : upgraded) {
      CHECK(r.run.target == kUnknownTarget);  // tuned on a machine whose target nobody wrote down
      CHECK(r.run.workload_key == parse_workload(r.run.workload).key());
    }
  }
  // C6 was tuned under two names: the lookup finds one task, and says the target is unknown.
  // Written before spaces depended on the target, in the space AVX-512 still has (tests/avx512_golden.h).
  TunedRecords records = TunedRecords::read(path);
  Target avx512 = Target::parse("llvm_cpu -isa=avx512");
  Task c6 = Task::create("C6", "template", nullptr, avx512);
  Task same = Task::create("conv2d:1,128,28,28,128,3,1,1", "template", nullptr, avx512);
  std::optional<TunedConfig> by_label = records.find(c6), by_shape = records.find(same);
  REQUIRE(by_label);
  REQUIRE(by_shape);
  CHECK(by_label->candidate == by_shape->candidate);
  CHECK_FALSE(by_label->same_target);
  CHECK(by_label->record_target == kUnknownTarget);
  CHECK_THAT(by_label->label(), Catch::Contains("@unknown-target"));
  CHECK_THAT(by_label->fallback_note(c6, path), Catch::Contains("unknown"));
  CHECK(records.find(Task::create("gemm:256", "template", nullptr, avx512)));
  CHECK_FALSE(records.find(Task::create("gemm:64", "template", nullptr, avx512)));
}

TEST_CASE("a configuration tuned for this target is preferred to one tuned for another", "[search][records]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  Task avx2 = Task::create(test::kTinyGemm, "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  Task avx512 = Task::create(test::kTinyGemm, "template", nullptr, Target::parse("llvm_cpu -isa=avx512"));
  REQUIRE(avx2.key().workload == avx512.key().workload);
  REQUIRE_FALSE(avx2.key() == avx512.key());
  auto trial = [](const Task& task, uint64_t index, double us) {
    TrialRecord r;
    r.run = make_run_key(task, "random", 0);
    r.trial = 1;
    r.candidate = Candidate::from_index(index);
    r.config = task.space().to_json(r.candidate);
    r.result.status = TrialStatus::Ok;
    r.result.timing.median_us = us;
    r.gflops = 1;
    return r;
  };
  RecordsDb::open(path).append({trial(avx512, 7, 1.0), trial(avx2, 9, 5.0)});
  TunedRecords records = TunedRecords::read(path);
  std::optional<TunedConfig> mine = records.find(avx2);
  REQUIRE(mine);
  CHECK(mine->candidate.index() == 9);  // slower, but tuned for this target
  CHECK(mine->same_target);
  CHECK(mine->fallback_note(avx2, path).empty());
  Task avx512_only = Task::create(test::kTinyGemm, "template", nullptr, Target::parse("llvm_cpu -isa=avx512"));
  RecordsDb::open(path).append({trial(avx2, 11, 0.5)});
  std::optional<TunedConfig> other = TunedRecords::read(path).find(avx512_only);
  REQUIRE(other);
  CHECK(other->candidate.index() == 7);
  // Spaces differ between targets (panel widths follow the vector width) and are numbered
  // differently: an AVX-512 task falls back, by knob values, to an AVX2 configuration of gemm:64
  // its own space has too.
  Task gemm_avx2 = Task::create("gemm:64", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  Task gemm_avx512 = Task::create("gemm:64", "template", nullptr, Target::parse("llvm_cpu -isa=avx512"));
  uint64_t shared = 0;
  std::optional<Candidate> same_knobs;
  for (; shared < gemm_avx2.space().size() && !same_knobs; ++shared) try {
      same_knobs = gemm_avx512.space().candidate_from_json(gemm_avx2.space().to_json(Candidate::from_index(shared)));
    } catch (const UserError&) {
    }
  REQUIRE(same_knobs);
  std::string avx2_only = dir.file("avx2.db");
  RecordsDb::open(avx2_only).append({trial(gemm_avx2, shared - 1, 0.1)});
  std::optional<TunedConfig> fallback = TunedRecords::read(avx2_only).find(gemm_avx512);
  REQUIRE(fallback);
  CHECK(fallback->candidate == *same_knobs);
  CHECK_FALSE(fallback->same_target);
  CHECK_THAT(fallback->label(), Catch::Contains("@llvm_cpu"));
  CHECK_THAT(fallback->fallback_note(gemm_avx512, avx2_only), Catch::Contains("tuned for"));
}

TEST_CASE("a configuration recorded before its space folded twin choices still applies", "[search][records]") {
  // Spaces of 1x1 convolutions once offered five reduction orders and two unrolls of kh and kw,
  // one program under all twenty: a record of then names an order and unrolls the space folded,
  // under an index of the larger space.
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  Task task = Task::create("conv2d:1,96,14,14,64,1,1,0", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  nlohmann::json knobs = task.space().to_json(task.default_candidate());
  knobs["reduce_order"] = {2, 3, 0, 1};
  knobs["unroll_kh"] = "unroll";
  knobs["unroll_kw"] = "none";
  TrialRecord r;
  r.run = make_run_key(task, "random", 0);
  r.trial = 1;
  r.candidate = Candidate::from_index(task.space().size() + 17);
  r.config = knobs;
  r.result.status = TrialStatus::Ok;
  r.result.timing.median_us = 1;
  r.gflops = 1;
  RecordsDb::open(path).append({r});
  std::optional<TunedConfig> found = TunedRecords::read(path).find(task);
  REQUIRE(found);
  CHECK(found->candidate == task.space().candidate_from_json(knobs));
  CHECK(found->same_target);
}

TEST_CASE("a workload named by its label or by its shape resumes one run", "[search][records][resume]") {
  test::ScratchDir dir;
  std::string path = dir.file("runs.db");
  REQUIRE(Task::create("C6", "template").key() == Task::create("conv2d:1,128,28,28,128,3,1,1", "template").key());
  std::vector<uint64_t> first = tune_replay(path, "random", 0, "C6", 8);
  REQUIRE(first.size() == 8);
  std::vector<uint64_t> both = tune_replay(path, "random", 0, "conv2d:1,128,28,28,128,3,1,1", 16);
  REQUIRE(both.size() == 16);
  CHECK(std::vector<uint64_t>(both.begin(), both.begin() + 8) == first);
  test::ScratchDir other;
  CHECK(tune_replay(other.file("runs.db"), "random", 0, "C6", 16) == both);  // as if one name was used
}

TEST_CASE("records import refuses lines that do not fit their task, with their line number", "[search][records]") {
  Task task = Task::create(test::kTinyGemm, "template");
  TrialRecord good;
  good.run = make_run_key(task, "random", 0);
  good.trial = 1;
  good.batch = 1;
  good.candidate = Candidate::from_index(5);
  good.config = task.space().to_json(good.candidate);
  good.result.status = TrialStatus::Ok;
  good.result.timing.median_us = 3;
  good.gflops = 1;
  std::string line = good.to_json().dump();
  TaskCatalog tasks;
  CHECK(read_trial_line(line, tasks).candidate == good.candidate);

  auto with = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = nlohmann::json::parse(line);
    change(j);
    return j.dump();
  };
  std::vector<std::pair<std::string, std::string>> bad = {
      {with([](nlohmann::json& j) { j["config_index"] = 1000000000000LL; j.erase("candidate"); }), "outside"},
      {with([](nlohmann::json& j) { j["config"] = "tile=4"; }), "config"},
      {with([](nlohmann::json& j) { j["config"]["no_such_knob"] = 1; }), "no_such_knob"},
      {with([](nlohmann::json& j) { j["median_us"] = -1; }), "median_us"},
      {with([](nlohmann::json& j) { j["config_index"] = 6; }), "index"},
      {with([](nlohmann::json& j) { j["workload_key"] = "not-the-key"; }), "key"},
      {"{not json", "JSON"},
  };
  for (const auto& [text, what] : bad) {
    INFO(text);
    CHECK_THROWS_WITH(read_trial_line(text, tasks), Catch::Contains(what, Catch::CaseSensitive::No));
    std::istringstream in(line + "\n\n" + line + "\n" + text + "\n");
    CHECK_THROWS_WITH(read_trial_lines(in, "runs.jsonl", tasks), Catch::StartsWith("runs.jsonl:4:"));
  }
}
