// Recording a set (experiments/recorder.h) on this machine: a tiny depthwise layer's whole space
// (72 configurations on AVX-512, 128 on AVX2; a few seconds) is measured into a new set, the set loads and replays what
// the records database holds, a second recording resumes without measuring anything, and a
// foreign file is refused rather than overwritten.
#include <catch2/catch.hpp>

#include <fstream>

#include "experiments/recorder.h"
#include "search/replay/replay_measurer.h"
#include "support/error.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::experiments;

namespace {

const char* kTinyDepthwise = "depthwise:1,16,4,4,3,1,1";

RecordRequest request(const test::ScratchDir& dir) {
  RecordRequest r;
  r.workload = kTinyDepthwise;
  r.set_path = dir.file("set.json");
  r.db_path = dir.file("scratch.db");
  r.measure.repeats = 2;
  r.measure_baseline = [](const search::WorkloadSpec&, int, bool) { return search::Baseline{"fixed", 3.5, ""}; };
  return r;
}

}  // namespace

TEST_CASE("a recording measures the whole space, resumes, and replays it", "[experiments][record]") {
  test::ScratchDir dir;
  search::Task task = search::Task::create(kTinyDepthwise, "template");
  search::RecordedWorkload w = record_workload(request(dir));
  REQUIRE(w.results.size() == task.space().size());
  for (const search::MeasureResult& r : w.results) CHECK(r.ok());

  search::RecordedSet set = search::RecordedSet::load(dir.file("set.json"));
  const search::RecordedWorkload& loaded = set.workload(kTinyDepthwise, "template");
  CHECK(loaded.baseline_name == "fixed");
  CHECK(loaded.target == Target::host().key());
  CHECK(loaded.provenance.contains("cpu"));
  search::ReplayMeasurer replay(task, loaded, "set");
  CHECK(replay.measure({search::Candidate::from_index(5)})[0].timing.median_us == w.results[5].timing.median_us);

  size_t trials = search::RecordsDb::open(dir.file("scratch.db")).all().size();
  CHECK(trials == task.space().size());
  record_workload(request(dir));  // everything is in the database: nothing is measured again
  CHECK(search::RecordsDb::open(dir.file("scratch.db")).all().size() == trials);
  CHECK(search::RecordedSet::load(dir.file("set.json")).workloads().size() == 1);
}

TEST_CASE("a recording never overwrites a file that is not a set", "[experiments][record]") {
  test::ScratchDir dir;
  std::ofstream(dir.file("set.json")) << "{\"precious\": true}\n";
  CHECK_THROWS_WITH(record_workload(request(dir)), Catch::Contains("not a Tessel recorded set"));
  std::ifstream in(dir.file("set.json"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{\"precious\": true}\n");
}
