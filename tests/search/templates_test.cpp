// The schedule templates: on small workloads, configurations covering every choice of every knob
// (and the whole space of a tiny depthwise layer) lower, compile and compute what the reference
// tensor-expression interpreter computes; the default configuration is the ops/ default schedule.
#include <catch2/catch.hpp>

#include "backends/backend.h"
#include "ir/equality.h"
#include "ir/printer.h"
#include "ir/te_interpreter.h"
#include "passes/lower/lower.h"
#include "search/task/task.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

const ConfigSpace& knobs_of(const Task& task) { return task.knob_space("the template tests"); }
Config default_config(const Task& task) { return knobs_of(task).get(task.default_candidate()); }

// The default configuration with one knob changed, for every knob and choice; then `extra`
// evenly spaced indices.
std::vector<Config> covering_configs(const ConfigSpace& space, const Config& base, uint64_t extra) {
  std::vector<Config> out;
  for (size_t k = 0; k < space.knobs().size(); ++k)
    for (size_t c = 0; c < space.knobs()[k].size(); ++c) {
      std::vector<size_t> choices = base.choices();
      choices[k] = c;
      out.push_back(space.get(space.encode(choices)));
    }
  for (uint64_t i = 0; i < extra; ++i) out.push_back(space.get(i * space.size() / extra));
  return out;
}

std::vector<Config> all_configs(const ConfigSpace& space) {
  std::vector<Config> out;
  for (uint64_t i = 0; i < space.size(); ++i) out.push_back(space.get(i));
  return out;
}

// Compiles every configuration and compares its output with the interpreter's.
void check_configs(const Task& task, const std::vector<Config>& configs) {
  Program reference_program = task.space_template().default_program();
  std::vector<std::pair<Tensor, NDArray>> inputs;
  std::vector<NDArray> arrays;
  uint64_t seed = 7;
  for (const Tensor& t : reference_program.inputs) {
    arrays.push_back(NDArray::random_uniform(t.shape(), t.dtype(), seed++));
    inputs.emplace_back(t, arrays.back());
  }
  NDArray expected = evaluate(reference_program.output, inputs);
  auto backend = Registry<Backend>::instance().create("llvm_cpu");
  for (const Config& config : configs) {
    INFO(task.workload().name << " config " << config.describe());
    auto kernel = backend->compile(task.lower(config));
    std::vector<NDArray> args = arrays;
    args.push_back(NDArray::zeros(expected.shape(), expected.dtype()));
    std::vector<NDArray*> pointers;
    for (NDArray& a : args) pointers.push_back(&a);
    kernel->run(pointers);
    CHECK(max_abs_diff(args.back(), expected) <= 1e-4);
  }
}

}  // namespace

TEST_CASE("gemm template configurations compute the product", "[search][templates]") {
  Task task = Task::create(test::kTinyGemm, "template");
  CHECK(task.space().size() == 144);
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 12));
}

TEST_CASE("conv2d template configurations compute the convolution", "[search][templates]") {
  Task task = Task::create("conv2d:1,32,6,6,16,3,1,1", "template");
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 8));
  Task strided = Task::create("conv2d:1,16,7,7,16,3,2,1", "template");
  check_configs(strided, covering_configs(knobs_of(strided), default_config(strided), 4));
}

TEST_CASE("every configuration of a tiny depthwise layer computes the convolution", "[search][templates]") {
  Task task = Task::create("depthwise:1,16,4,4,3,1,1", "template");
  CHECK(task.space().size() == 3 * 3 * 2 * 2 * 2);
  check_configs(task, all_configs(knobs_of(task)));
}

TEST_CASE("the default configuration is the ops/ default schedule", "[search][templates]") {
  for (const char* workload : {"gemm:64", "C6", "D3"}) {
    Task task = Task::create(workload, "template");
    LoweredFunc tuned = task.lower(task.default_candidate());
    LoweredFunc ops_default = task.lower_default_program();
    INFO(workload << ": the template's default\n" << to_string(tuned) << "\nops' default\n" << to_string(ops_default));
    CHECK(structural_equal(tuned, ops_default));
  }
}

TEST_CASE("unknown workloads and spaces are user errors listing what is valid", "[search][templates]") {
  CHECK_THROWS_WITH(Task::create("C99", "template"), Catch::Contains("C1"));
  CHECK_THROWS_WITH(Task::create("matmul:4", "template"), Catch::Contains("unknown workload kind"));
  CHECK_THROWS_WITH(Task::create("gemm:x", "template"), Catch::Contains("bad gemm size"));
  CHECK_THROWS_WITH(Task::create("gemm:64", "polyhedral-nope"), Catch::Contains("template"));
}
