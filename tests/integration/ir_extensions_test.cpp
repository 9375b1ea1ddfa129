// The IR nodes for the layers after the CPU, through the lowering passes and on every executor:
// Evaluate statements (fill changes results, prefetch only shows in the code), attribute
// statements (pragmas are hints the CPU back ends skip), memory scopes and ThreadBinding loops
// (which the interpreters run as loops and the CPU back ends refuse, naming what and why).
#include <catch2/catch.hpp>

#include "ir/intrinsic.h"
#include "ir/printer.h"
#include "ir/te_interpreter.h"
#include "passes/arith/simplify.h"
#include "passes/lower/cpu_pipeline.h"
#include "passes/lower/lower.h"
#include "tests/integration/executors.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::test;

namespace {

constexpr int64_t kN = 16;

Buffer global(const std::string& name, DataType t = DataType::float32()) { return Buffer(name, t, MemoryScope::global()); }

Stmt fill(const Buffer& b, Expr first, Expr value, Expr count) {
  return make_evaluate(call("fill", {load(b, std::move(first)), std::move(value), std::move(count)}));
}

// What the CPU pipeline does to a body after flattening (the passes of its later phases).
Stmt lowering_passes(Stmt body) {
  Target host = Target::host();
  // The passes after flattening do not read the schedule; the context needs one all the same.
  Tensor x = placeholder({1}, DataType::float32(), "x");
  Schedule unused = create_schedule({compute({1}, [&](Var i) { return x(i); }, "y")});
  PassContext context{host, unused, "hand_built", {}, {}};
  LoweringPipeline pipeline = cpu_pipeline(host);
  for (const LoweringPipeline::Step& step : pipeline.steps())
    if (step.phase != Phase::Schedule && step.phase != Phase::Flatten) body = step.pass.run(body, context);
  return body;
}

// for (i, 0, 16) kind { fill(&out[i], i, 16 - i) }: overlapping fills, so out[k] = k only when
// every fill runs, once, in order.
LoweredFunc overlapping_fills(ForKind kind) {
  FuncArg out{global("out"), {kN}};
  Var i("i");
  Stmt body = make_for(i, 0, kN, kind, fill(out.buffer, i, cast(DataType::float32(), i), make_int(kN) - i));
  return LoweredFunc{"fills", {out}, lowering_passes(body)};
}

std::vector<NDArray> iota() {
  std::vector<float> v;
  for (int64_t k = 0; k < kN; ++k) v.push_back(static_cast<float>(k));
  return {NDArray::from_vector<float>({kN}, v)};
}

}  // namespace

// (Parallel iterations have no order, so overlapping fills would race there.)
TEST_CASE("fill: every executor runs each call once, in order, through the loop kinds", "[ir][differential]") {
  for (ForKind kind : {ForKind::Serial, ForKind::Unrolled, ForKind::Vectorized}) {
    LoweredFunc f = overlapping_fills(kind);
    INFO(annotation_name(kind) << ":\n" << f);
    require_same_everywhere(f, {}, iota());
  }
}

TEST_CASE("fill and prefetch in a local buffer, a global one and a pragma'd loop", "[ir][differential]") {
  // acc (local) = 1.5; tmp (global scope) = 2; out[k] = acc[k % 4] * tmp[k % 8] + in[k], with
  // prefetches of in[] ahead of use and a pragma on the loop.
  FuncArg in{global("in"), {kN}}, out{global("out"), {kN}};
  Buffer acc("acc", DataType::float32(), MemoryScope::local());
  Buffer tmp("tmp", DataType::float32(), MemoryScope::global());
  Var k("k");
  Stmt loop = make_attr(
      "pragma_prefetch_distance", std::monostate{}, 4,
      make_for(k, 0, kN, ForKind::Serial,
               make_seq({make_if(k + 4 < kN, make_evaluate(call("prefetch", {load(in.buffer, k + 4)}))),
                         make_store(out.buffer, k, load(acc, k % 4) * load(tmp, k % 8) + load(in.buffer, k))})));
  Stmt body = make_allocate(acc, 4, make_allocate(tmp, 8, make_seq({fill(acc, 0, make_float(1.5), 4),
                                                                     fill(tmp, 0, make_float(2.0), 8), loop})));
  LoweredFunc f{"fills_and_prefetches", {in, out}, lowering_passes(body)};
  INFO(f);
  NDArray input = NDArray::random_uniform({kN}, DataType::float32(), 7);
  NDArray expected = NDArray::empty({kN}, DataType::float32());
  for (int64_t i = 0; i < kN; ++i) expected.set_double(i, 3.0f + static_cast<float>(input.get_double(i)));
  require_same_everywhere(f, {input}, {expected});

  std::string llvm = create_backend(Target::parse("llvm_cpu"))->emit(f, "llvm");
  CHECK(llvm.find("@llvm.prefetch") != std::string::npos);
  std::string c = create_backend(Target::parse("c_source"))->emit(f, "c");
  CHECK(c.find("__builtin_prefetch(&in[") != std::string::npos);
  CHECK(c.find("// attr pragma_prefetch_distance = 4") != std::string::npos);
}

TEST_CASE("effects survive the simplifier; effect-free evaluations do not", "[ir][simplify]") {
  Buffer out = global("out");
  Var i("i");
  Stmt kept = simplify(make_for(i, 0, 1, ForKind::Serial, fill(out, i, make_float(0.0), 4)));
  CHECK(to_string(kept) == "fill(&out[0], 0.0f, 4)\n");
  CHECK_FALSE(simplify(make_evaluate(call("exp", {make_float(1.0)}))).defined());
  CHECK_FALSE(simplify(make_evaluate(load(out, 0))).defined());
}

TEST_CASE("the CPU back ends refuse bound loops, GPU memory and what they do not implement", "[ir][errors]") {
  Tensor a = placeholder({64}, DataType::float32(), "A");
  Tensor b = compute({64}, [&](Var i) { return a(i) * 2.0; }, "B");
  Tensor c = compute({64}, [&](Var i) { return b(i) + 1.0; }, "C");
  NDArray av = NDArray::random_uniform({64}, DataType::float32(), 5);
  NDArray expected = evaluate(c, {{a, av}});
  auto compile = [](const char* kind, const LoweredFunc& f) { create_backend(Target::parse(kind))->compile(f); };

  Schedule bound = create_schedule({c});
  bound[b].compute_inline();
  auto [outer, inner] = bound[c].split(bound[c].axis(0), 16);
  bound[c].bind(outer, "blockIdx.x");
  LoweredFunc bound_f = lower(bound, {a, c}, "bound");
  NDArray out = NDArray::zeros({64}, DataType::float32());
  run_lowered(bound_f, {&av, &out});  // a ThreadBinding loop runs as a loop
  CHECK(first_difference(out, expected) == -1);
  for (const char* kind : {"llvm_cpu", "c_source"}) {
    require_user_error([&] { compile(kind, bound_f); }, {kind, "attribute 'thread_extent' of blockIdx.x"});
    For loop = *bound_f.body.as<AttrStmt>()->body.as<For>();
    require_user_error([&] { compile(kind, LoweredFunc{"loop", bound_f.args, Stmt(std::make_shared<For>(loop))}); },
                       {kind, "loop 'i.outer' bound to blockIdx.x", "remove the bind()"});
  }

  Schedule shared = create_schedule({c});
  shared[b].set_scope("shared");
  LoweredFunc shared_f = lower(shared, {a, c}, "shared");
  for (const char* kind : {"llvm_cpu", "c_source"})
    require_user_error([&] { compile(kind, shared_f); },
                       {kind, "buffer 'B'", "memory scope 'shared'", "GPU block", "set_scope"});

  register_intrinsic({"test.sync", CallEffect::Opaque, "() -> int32", "a barrier no CPU back end has",
                      [](const Intrinsic& self, const std::vector<Expr>& args) {
                        check_arg_count(self, args, 0);
                        return DataType::int32();
                      }, {}, nullptr});
  register_intrinsic({"test.erf", CallEffect::Pure, "(float x) -> float", "declared by this test only: no back end lowers it",
                      [](const Intrinsic& self, const std::vector<Expr>& args) { return args.at(0).type(); }, {}, nullptr});
  register_attr_key({"test.coproc", AttrSubjectKind::None, false, "an accelerator region"});
  FuncArg o{global("o"), {1}};
  LoweredFunc sync{"sync", {o}, make_evaluate(call("test.sync", {}))};
  LoweredFunc erf{"erf", {o}, make_store(o.buffer, 0, call("test.erf", {make_float(0.5)}))};
  LoweredFunc coproc{"coproc", {o}, make_attr("test.coproc", std::monostate{}, 1, make_store(o.buffer, 0, 1.0))};
  for (const char* kind : {"llvm_cpu", "c_source"}) {
    require_user_error([&] { compile(kind, sync); }, {kind, "does not implement intrinsic 'test.sync'", "prefetch"});
    require_user_error([&] { compile(kind, erf); }, {kind, "does not implement intrinsic 'test.erf'"});
    require_user_error([&] { compile(kind, coproc); }, {kind, "attribute 'test.coproc'", "an accelerator region"});
  }
  NDArray one = NDArray::zeros({1}, DataType::float32());
  require_user_error([&] { run_lowered(sync, {&one}); }, "loop interpreter does not implement intrinsic 'test.sync'");
  run_lowered(coproc, {&one});  // attributes do not change what runs
  CHECK(one.get_double(0) == 1.0);
}
