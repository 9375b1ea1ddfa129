// AVX-512 stays exactly as it was, on the search side: for the target llvm_cpu -isa=avx512 the
// template spaces (knob names, every choice list in order), their sizes and default
// configurations are those of the code before templates took a target (tests/avx512_golden.h),
// the spaces of the recorded set small_cpu.json (recorded on an AVX-512 machine) are exactly what
// the templates declare, and replaying it builds the tasks for its target on any host.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "passes/lower/lower.h"
#include "search/replay/recorded_set.h"
#include "search/replay/replay_measurer.h"
#include "search/task/task.h"
#include "tests/avx512_golden.h"

using namespace tessel;
using namespace tessel::search;

TEST_CASE("AVX-512 template spaces and default configurations are the pinned ones", "[search][avx512]") {
  Target avx512 = Target::parse(test::kAvx512PinnedTarget);
  nlohmann::json golden = test::avx512_golden();
  REQUIRE(golden.size() == 25);
  for (const auto& [name, pin] : golden.items()) {
    INFO(name);
    Task task = Task::create(name, "template", nullptr, avx512);
    CHECK(task.space().size() == pin.at("space_size").get<uint64_t>());
    CHECK(test::fnv1a64(RecordedWorkload::describe_space(task.knob_space("the pins")).dump()) ==
          pin.at("space_fnv").get<std::string>());
    CHECK(nlohmann::json(task.knob_space("the pins").get(task.default_candidate()).to_json()["knobs"]) == pin.at("default_config"));
  }
}

TEST_CASE("the AVX-512 templates' default programs are the pinned programs", "[search][avx512]") {
  Target avx512 = Target::parse(test::kAvx512PinnedTarget);
  nlohmann::json golden = test::avx512_golden();
  for (const char* name : {"gemm:1024", "C1", "C6", "C12", "D1", "D9"}) {
    Task task = Task::create(name, "template", nullptr, avx512);
    Program program = task.program(task.default_candidate());
    std::string text = to_string(lower(program.schedule, program.args(), task.workload().op()));
    if (test::fnv1a64(text) != golden.at(name).at("lowered_default_fnv").get<std::string>())
      FAIL_CHECK(name << "'s default configuration lowers to another program for avx512; it is in "
                      << test::save_for_diff(std::string("template-") + name, text));
  }
}

TEST_CASE("the recorded set small_cpu carries its AVX-512 target and replays its spaces", "[search][avx512][replay]") {
  RecordedSet set = RecordedSet::load(resolve_recorded_set("small_cpu"));
  REQUIRE(set.workloads().size() == 5);
  for (const RecordedWorkload& w : set.workloads()) {
    INFO(w.workload);
    CHECK(w.target == test::kAvx512Target);
    CHECK(w.replay_target().str() == Target::parse(test::kAvx512PinnedTarget).str());
    Task task = Task::create(w.workload, w.space, nullptr, w.replay_target());
    CHECK(RecordedWorkload::describe_space(task.knob_space("the pins")) == w.knobs);
    CHECK_NOTHROW(ReplayMeasurer(task, w, "small_cpu"));
  }
}
