// Golden search traces: every strategy, replayed over every workload of the recorded set small_cpu
// with fixed seeds, measures the same configurations in the same order as the code did when the
// traces were captured (tests/search/data/golden_traces.json, taken before tasks, candidates and
// resume determinism were reworked). A change that moves a single proposal fails here.
//
// The strategies that run libtorch (rl, and model_based with the MLP or TreeGRU) have traces per
// OpenBLAS kernel ("torch_traces", keyed by openblas_get_corename()): libtorch's matrix products go
// through OpenBLAS, whose kernel differs by CPU (SkylakeX on an AVX-512 Xeon, Haswell where
// OPENBLAS_CORETYPE presets it), and the searches grow its last-bit differences into other
// proposals within a batch or two, in float32 and in float64 alike. On a kernel without captured
// traces these strategies are checked for what holds on any CPU: a seed replays the same trace.
//
// Re-capture (only when a strategy's behaviour is meant to change, and say so in the commit), once
// per kernel; each run keeps the other kernels' traces:
//   for k in Haswell Zen SkylakeX Sandybridge; do
//     OPENBLAS_CORETYPE=$k TESSEL_CAPTURE_GOLDEN=tests/search/data/golden_traces.json \
//       build/tests_search "replayed search traces equal the golden ones"
//   done
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <fstream>

#include <nlohmann/json.hpp>

#include "benchmarks/baselines/openblas.h"
#include "search/replay/replay_measurer.h"
#include "search/strategy_factory.h"
#include "search/tuner.h"

using namespace tessel;
using namespace tessel::search;

namespace {

constexpr const char* kGoldenFile = TESSEL_SOURCE_DIR "/tests/search/data/golden_traces.json";
const std::vector<std::string> kWorkloads = {"C6", "C9", "D5", "D7", "gemm:256"};
const std::vector<int64_t> kSeeds = {0, 1};
constexpr int64_t kTrials = 40;
constexpr int64_t kBatch = 8;

// One traced strategy: its choice without the seed, and a label naming it in the golden file.
struct Traced {
  std::string label;
  StrategyChoice choice;
};

std::vector<Traced> traced_strategies(bool with_torch) {
  std::vector<Traced> out = {
      {"random", {"random"}},
      {"grid", {"grid"}},
      {"annealing", {"annealing"}},
      {"genetic", {"genetic"}},
      {"model_based+xgboost", {"model_based", nullptr, "xgboost"}},
      {"model_based{chains=4,steps=8,epsilon=0.3}+xgboost",
       {"model_based", {{"chains", 4}, {"steps", 8}, {"epsilon", 0.3}}, "xgboost"}},
  };
  if (with_torch) {
    out.push_back({"rl", {"rl"}});
    out.push_back({"model_based{chains=4,steps=8}+treegru", {"model_based", {{"chains", 4}, {"steps", 8}}, "treegru"}});
    out.push_back({"model_based{chains=4,steps=8}+mlp", {"model_based", {{"chains", 4}, {"steps", 8}}, "mlp"}});
  }
  return out;
}

// A measure source that remembers the order of the configurations it was asked for.
class TracingSource : public MeasureSource {
 public:
  explicit TracingSource(const MeasureSource& inner) : inner_(inner) {}
  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override {
    for (const Candidate& c : candidates) trace_.push_back(c.index());
    return inner_.measure(candidates);
  }
  std::string name() const override { return inner_.name(); }
  const std::vector<uint64_t>& trace() const { return trace_; }

 private:
  const MeasureSource& inner_;
  mutable std::vector<uint64_t> trace_;
};

const RecordedSet& small_cpu() {
  static const RecordedSet set = RecordedSet::load(resolve_recorded_set("small_cpu"));
  return set;
}

std::vector<uint64_t> replay_trace(const std::string& workload, StrategyChoice choice, int64_t seed) {
  const RecordedWorkload& recorded = small_cpu().workload(workload, "template");
  Task task = Task::create(workload, "template", nullptr, recorded.replay_target());  // the set's spaces
  ReplayMeasurer replay(task, recorded, "small_cpu");
  TracingSource tracing(replay);
  choice.seed = seed;
  auto strategy = create_strategy(choice);
  TuneOptions options;
  options.trials = kTrials;
  options.batch = kBatch;
  options.progress = false;
  options.select.candidates = 0;
  Tuner(task, *strategy, make_run_key(task, run_strategy_label(choice), seed), nullptr, options).run({}, &tracing);
  return tracing.trace();
}

std::string trace_key(const std::string& label, const std::string& workload, int64_t seed) {
  return label + " " + workload + " seed=" + std::to_string(seed);
}

bool uses_torch(const std::string& label) {
  return label == "rl" || label.find("treegru") != std::string::npos || label.find("mlp") != std::string::npos;
}

nlohmann::json load_golden() {
  std::ifstream in(kGoldenFile);
  REQUIRE(in);
  nlohmann::json golden = nlohmann::json::parse(in);
  REQUIRE(golden.at("trials") == kTrials);
  REQUIRE(golden.at("batch") == kBatch);
  return golden;
}

// The traces a label's strategy is compared with on this machine: the libtorch strategies' of this
// OpenBLAS kernel, or nullptr where none were captured for it.
const nlohmann::json* golden_traces_for(const nlohmann::json& golden, const std::string& label) {
  if (!uses_torch(label)) return &golden.at("traces");
  const nlohmann::json& by_kernel = golden.at("torch_traces");
  auto it = by_kernel.find(openblas_corename());
  return it == by_kernel.end() ? nullptr : &*it;
}

// Replays every golden trace whose strategy label satisfies `wanted`; returns how many it compared.
// A libtorch trace without golden traces for this kernel is replayed twice and compared with itself.
template <typename Wanted>
size_t compare_with_golden(Wanted wanted) {
  nlohmann::json golden = load_golden();
  size_t compared = 0;
  for (const Traced& t : traced_strategies(true)) {
    const nlohmann::json* traces = golden_traces_for(golden, t.label);
    for (const std::string& w : kWorkloads)
      for (int64_t seed : kSeeds) {
        if (!wanted(t.label, w, seed)) continue;
        std::string key = trace_key(t.label, w, seed);
        INFO(key);
        if (traces) {
          REQUIRE(traces->contains(key));
          CHECK(replay_trace(w, t.choice, seed) == traces->at(key).get<std::vector<uint64_t>>());
        } else {
          WARN("no golden traces for OpenBLAS kernel " << openblas_corename() << ": " << key
                                                         << " checked against itself (capture: golden_traces_test.cpp)");
          CHECK(replay_trace(w, t.choice, seed) == replay_trace(w, t.choice, seed));
        }
        ++compared;
      }
  }
  return compared;
}

// Captures every trace into the golden file: the libtorch ones under this OpenBLAS kernel, beside
// those of the other kernels the file already holds.
void capture_golden(const char* path) {
  nlohmann::ordered_json torch_traces = nlohmann::ordered_json::object();
  if (std::ifstream in(path); in) torch_traces = nlohmann::ordered_json::parse(in).value("torch_traces", torch_traces);
  nlohmann::ordered_json traces = nlohmann::ordered_json::object(), kernel_traces = nlohmann::ordered_json::object();
  for (const Traced& t : traced_strategies(true))
    for (const std::string& w : kWorkloads)
      for (int64_t seed : kSeeds) {
        auto start = std::chrono::steady_clock::now();
        (uses_torch(t.label) ? kernel_traces : traces)[trace_key(t.label, w, seed)] = replay_trace(w, t.choice, seed);
        std::cerr << trace_key(t.label, w, seed) << ": "
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
      }
  torch_traces[openblas_corename()] = kernel_traces;
  nlohmann::ordered_json golden = {{"set", "small_cpu"}, {"trials", kTrials},        {"batch", kBatch},
                                   {"traces", traces},   {"torch_traces", torch_traces}};
  std::ofstream(path) << golden.dump() << "\n";
  SUCCEED("captured " << traces.size() << " traces, and " << kernel_traces.size() << " libtorch traces for OpenBLAS kernel "
                      << openblas_corename() << ", into " << path);
}

}  // namespace

TEST_CASE("replayed search traces equal the golden ones", "[search][golden]") {
  if (const char* capture = std::getenv("TESSEL_CAPTURE_GOLDEN")) return capture_golden(capture);
  size_t compared = compare_with_golden([](const std::string& label, const std::string&, int64_t) {
    return !uses_torch(label);
  });
  CHECK(compared == 6 * kWorkloads.size() * kSeeds.size());
}

// The libtorch strategies and models: rl everywhere, and one MLP-guided trace (a TreeGRU trace
// takes 15-60 s, so those are in the slow case below).
TEST_CASE("replayed rl and neural-model traces equal the golden ones", "[search][golden][rl]") {
  size_t compared = compare_with_golden([](const std::string& label, const std::string& w, int64_t seed) {
    return label == "rl" || (label.find("mlp") != std::string::npos && w == "C6" && seed == 0);
  });
  CHECK(compared == kWorkloads.size() * kSeeds.size() + 1);
}

// Every golden trace (about 5 minutes): run by hand after touching a strategy or a neural model.
TEST_CASE("every golden trace, TreeGRU included", "[.golden_slow]") {
  size_t compared = compare_with_golden([](const std::string&, const std::string&, int64_t) { return true; });
  CHECK(compared == traced_strategies(true).size() * kWorkloads.size() * kSeeds.size());
}
