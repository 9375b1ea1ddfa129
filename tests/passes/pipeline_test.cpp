// The lowering pipeline: the CPU pipeline's passes phase by phase, the observer seeing the IR after
// each, passes and plugin passes placed at the end of their phase, plugin errors, pipelines of
// other target kinds, and `--pass` requests. (A plugin pass built as its own shared library is
// tests/plugins/lower_pass_plugin_test.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>

#include "lower_test_util.h"
#include "passes/lower/cpu_pipeline.h"
#include "passes/lower/pipeline.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// C = A·B, 16×16×16, split and vectorized, so every phase has something to do.
struct Gemm {
  Tensor a = placeholder({16, 16}, DataType::float32(), "A");
  Tensor b = placeholder({16, 16}, DataType::float32(), "B");
  IterVar r = reduce_axis(16, "k");
  Tensor c = compute({16, 16}, [&](Var i, Var j) { return sum(a(i, r) * b(r, j), {r}); }, "C");
  Schedule schedule() const {
    Schedule s = create_schedule({c});
    auto [jo, ji] = s[c].split(s[c].axis(1), 8);
    s[c].vectorize(ji);
    s[c].parallel(s[c].axis(0));
    return s;
  }
};

// A plugin pass that changes nothing and counts its runs.
int marker_runs = 0;
struct Marker : LowerPass {
  Stmt run(const Stmt& body, const PassContext&) const override {
    ++marker_runs;
    return body;
  }
};
TESSEL_REGISTER_PLUGIN(LowerPass, test_marker, "changes nothing", {phase_param(Phase::LoopTransforms)},
                       [](const PluginParams&) { return std::make_unique<Marker>(); });
TESSEL_REGISTER_PLUGIN(LowerPass, test_no_phase, "declares no phase", {},
                       [](const PluginParams&) { return std::make_unique<Marker>(); });

// The pipeline of test_pipeline_kind: the loop nests, nothing more.
struct TestPipeline : PipelineFactory {
  LoweringPipeline build(const Target&) const override {
    LoweringPipeline p("test");
    p.add(Phase::Schedule, {"schedule_ops", "the loop nests", [](const Stmt&, const PassContext& c) {
                              CHECK(c.target.kind() == "test_pipeline_kind");
                              return schedule_to_loops(c.schedule, c.arg_ops);
                            }});
    return p;
  }
};
TESSEL_REGISTER_PLUGIN(PipelineFactory, test_pipeline_kind, "schedule_ops only", {},
                       [](const PluginParams&) { return std::make_unique<TestPipeline>(); });

std::vector<std::string> step_names(const LoweringPipeline& p) {
  std::vector<std::string> names;
  for (const LoweringPipeline::Step& step : p.steps()) names.push_back(step.pass.name);
  return names;
}

Pass identity(const std::string& name) {
  return {name, "changes nothing", [](const Stmt& s, const PassContext&) { return s; }};
}

}  // namespace

TEST_CASE("the CPU pipeline lists its passes phase by phase", "[pipeline]") {
  LoweringPipeline p = cpu_pipeline(Target::host());
  CHECK(step_names(p) == std::vector<std::string>{"schedule_ops", "storage_flatten", "simplify", "partition_loops",
                                                  "simplify", "vectorize", "unroll", "serialize_nested_parallel",
                                                  "simplify"});
  CHECK(std::is_sorted(p.steps().begin(), p.steps().end(),
                       [](const auto& x, const auto& y) { return x.phase < y.phase; }));
  CHECK(p.pass_names().size() == 7);  // simplify counted once
  std::string listing = p.describe();
  for (const LoweringPipeline::Step& step : p.steps()) {
    CHECK(listing.find(step.pass.name) != std::string::npos);
    CHECK(listing.find(step.pass.description) != std::string::npos);
  }
  CHECK(lowering_pipeline(Target::parse("c_source -isa=avx2")).name() == "cpu");
}

TEST_CASE("lowering runs the target's pipeline and shows the IR after every pass", "[pipeline]") {
  Gemm g;
  std::vector<std::pair<std::string, std::string>> seen;  // pass name, IR after it
  LowerOptions options;
  options.after_each_pass = [&](Phase, const Pass& pass, const Stmt& ir) { seen.emplace_back(pass.name, to_string(ir)); };
  LoweredFunc f = lower(g.schedule(), {g.a, g.b, g.c}, "gemm", Target::parse("llvm_cpu -isa=avx2"), options);

  std::vector<std::string> names;
  for (const auto& [name, ir] : seen) names.push_back(name);
  CHECK(names == step_names(cpu_pipeline(Target::host())));
  CHECK(seen.front().second == to_string(schedule_to_loops(g.schedule(), {g.a, g.b, g.c})));
  CHECK(seen.back().second == to_string(f.body));
  CHECK(to_string(f) == to_string(lower(g.schedule(), {g.a, g.b, g.c}, "gemm")));  // the host overload
  CHECK(check_contract(f).vector_stores > 0);
}

TEST_CASE("a pass added to a phase runs at the end of it", "[pipeline]") {
  LoweringPipeline p = cpu_pipeline(Target::host());
  p.add(Phase::Simplify, identity("mine")).add(Phase::Schedule, identity("first"));
  std::vector<std::string> names = step_names(p);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 7) ==
        std::vector<std::string>{"schedule_ops", "first", "storage_flatten", "simplify", "partition_loops",
                                 "simplify", "mine"});
  CHECK(names[7] == "vectorize");
}

TEST_CASE("plugin passes are placed by their phase parameter", "[pipeline][plugins]") {
  std::vector<std::string> names = step_names(lowering_pipeline(Target::host(), {{"test_marker", nullptr}}));
  auto at = std::find(names.begin(), names.end(), "test_marker");
  REQUIRE(at != names.end());
  CHECK(*(at - 1) == "unroll");  // the end of loop_transforms, its default
  CHECK(*(at + 1) == "serialize_nested_parallel");

  names = step_names(lowering_pipeline(Target::host(), {{"test_marker", {{"phase", "flatten"}}}}));
  CHECK(names[2] == "test_marker");

  Gemm g;
  marker_runs = 0;
  LowerOptions options;
  options.extra_passes = {{"test_marker", nullptr}, {"test_marker", {{"phase", "schedule"}}}};
  LoweredFunc f = lower(g.schedule(), {g.a, g.b, g.c}, "gemm", Target::host(), options);
  CHECK(marker_runs == 2);
  CHECK(to_string(f) == to_string(lower(g.schedule(), {g.a, g.b, g.c}, "gemm")));
}

TEST_CASE("bad plugin passes are refused with what is valid", "[pipeline][plugins][errors]") {
  Target host = Target::host();
  require_user_error([&] { lowering_pipeline(host, {{"test_markr", nullptr}}); }, {"test_markr", "test_marker"});
  require_user_error([&] { lowering_pipeline(host, {{"test_marker", {{"phase", "late"}}}}); },
                     {"phase", "late", "schedule, flatten, simplify, loop_transforms, finalize"});
  require_user_error([&] { lowering_pipeline(host, {{"test_marker", {{"depth", 3}}}}); }, "depth");
  require_user_error([&] { lowering_pipeline(host, {{"test_no_phase", nullptr}}); },
                     {"test_no_phase", "declares no \"phase\" parameter"});
}

TEST_CASE("other target kinds lower through the lowering_pipeline plugin of their name", "[pipeline]") {
  add_target_kind({"test_pipeline_kind", DeviceKind::Accelerator, "a target kind with a pipeline", {}});
  add_target_kind({"test_kind_without_pipeline", DeviceKind::Accelerator, "a target kind without one", {}});
  Gemm g;
  require_user_error([&] { lower(g.schedule(), {g.a, g.b, g.c}, "gemm", Target::parse("test_kind_without_pipeline")); },
                     {"no lowering pipeline for target kind 'test_kind_without_pipeline'", "llvm_cpu",
                      "lowering_pipeline plugin"});
  Target target = Target::parse("test_pipeline_kind");
  CHECK(lowering_pipeline(target).name() == "test");
  LoweredFunc f = lower(g.schedule(), {g.a, g.b, g.c}, "gemm", target);
  CHECK(to_string(f.body) == to_string(schedule_to_loops(g.schedule(), {g.a, g.b, g.c})));
}

TEST_CASE("pass requests of the command line: a name and parameters", "[pipeline]") {
  PassRequest plain = parse_pass_request("unroll_more");
  CHECK(plain.name == "unroll_more");
  CHECK(plain.params.is_null());
  PassRequest with = parse_pass_request("serialize_short_parallel:min_extent=8,phase=flatten,strict=true");
  CHECK(with.name == "serialize_short_parallel");
  CHECK(with.params == nlohmann::json{{"min_extent", 8}, {"phase", "flatten"}, {"strict", true}});
  require_user_error([] { parse_pass_request(":min_extent=8"); }, "names no pass");
  require_user_error([] { parse_pass_request("p:min_extent"); }, "must look like name=value");
  require_user_error([] { parse_pass_request("p:a=1,"); }, "must look like name=value");
}
