// The extensible tables of the IR: intrinsics with their effects and type rules, memory scopes,
// attribute keys. Each refuses what it does not know with the list of what it does, checks its
// subjects and arguments, and takes new entries from later layers.
#include <catch2/catch.hpp>

#include "ir/intrinsic.h"
#include "ir/stmt.h"
#include "tests/user_error_check.h"

using namespace tessel;
using tessel::test::require_user_error;

namespace {

Buffer local(const std::string& name, DataType t = DataType::float32()) { return Buffer(name, t, MemoryScope::local()); }

}  // namespace

TEST_CASE("intrinsics: the math functions and the statement intrinsics are declared once", "[ir][intrinsic]") {
  for (const char* name : {"exp", "log", "sqrt", "fabs", "tanh", "sigmoid", "floor", "ceil", "round", "trunc"}) {
    const Intrinsic& i = intrinsic(name);
    CHECK(i.effect == CallEffect::Pure);
    CHECK(i.math != nullptr);
    CHECK_FALSE(i.is_statement());
  }
  CHECK(intrinsic("prefetch").effect == CallEffect::Opaque);
  CHECK(intrinsic("fill").effect == CallEffect::WritesMemory);
  CHECK(intrinsic("fill").is_statement());
  CHECK(intrinsic("fill").is_address_arg(0));
  CHECK_FALSE(intrinsic("fill").is_address_arg(1));
  // The math runs in the precision of the type: float32 calls the float function.
  CHECK(intrinsic("exp").math(1.0, DataType::float32()) == static_cast<double>(std::exp(1.0f)));
  CHECK(intrinsic("exp").math(1.0, DataType{TypeCode::Float, 64, 1}) == std::exp(1.0));
  CHECK(intrinsic("sigmoid").math(0.0, DataType::float32()) == 0.5);
}

TEST_CASE("intrinsics: type rules check the arguments at construction", "[ir][intrinsic][errors]") {
  Var x("x", DataType::float32()), i("i");
  Buffer buf = local("buf");
  CHECK(call("exp", {x}).type() == DataType::float32());
  CHECK(call("sqrt", {broadcast(x, 8)}).type() == DataType::float32().with_lanes(8));
  require_user_error([&] { call("erf", {x}); }, {"unknown intrinsic 'erf'", "exp", "register_intrinsic"});
  require_user_error([&] { call("exp", {i}); }, {"'exp'", "(float x) -> float", "int32"});
  require_user_error([&] { call("exp", {x, x}); }, {"'exp'", "takes 1 argument(s), got 2"});
  require_user_error([&] { call("prefetch", {x}); }, {"'prefetch'", "address", "load(buffer, index)"});
  require_user_error([&] { call("prefetch", {load(buf, ramp(i, 1, 4))}); }, {"'prefetch'", "scalar load"});
  require_user_error([&] { call("fill", {load(buf, i), make_int(0), 4}); },
                     {"'fill'", "the value is int32 but the buffer holds float32"});
  require_user_error([&] { call("fill", {load(buf, i), make_float(0.0), x}); }, {"'fill'", "scalar integer"});
  CHECK(call("fill", {load(buf, i), make_float(0.0), 4}).type() == DataType::int32());
}

TEST_CASE("intrinsics: calls with effects are statements, never operands", "[ir][intrinsic][errors]") {
  Var i("i");
  Buffer buf = local("buf");
  Expr fill = call("fill", {load(buf, i), make_float(0.0), 4});
  CHECK(statement_call(fill) == &intrinsic("fill"));
  CHECK(statement_call(call("exp", {make_float(1.0)})) == nullptr);
  require_user_error([&] { fill + 1; }, {"'fill'", "writes memory", "operand of a binary operator", "make_evaluate"});
  require_user_error([&] { make_store(local("out", DataType::int32()), 0, fill); }, {"'fill'", "the value of a store"});
  require_user_error([&] { select(i < 2, fill, fill); }, {"'fill'", "select"});
  require_user_error([&] { make_if(cast(DataType::boolean(), call("prefetch", {load(buf, 0)})), make_evaluate(fill)); },
                     {"'prefetch'", "opaque side effect", "the operand of a cast"});
  Stmt s = make_evaluate(fill);
  CHECK(s.as<Evaluate>()->value.same_as(fill));
}

TEST_CASE("intrinsics: later layers register their own", "[ir][intrinsic]") {
  const Intrinsic& barrier = register_intrinsic(
      {"test.barrier", CallEffect::Opaque, "() -> int32", "waits for the other threads",
       [](const Intrinsic& self, const std::vector<Expr>& args) {
         check_arg_count(self, args, 0);
         return DataType::int32();
       }, {}, nullptr});
  CHECK(&intrinsic("test.barrier") == &barrier);
  CHECK(statement_call(call("test.barrier", {})) == &barrier);
  require_user_error([&] { call("test.barrier", {make_int(1)}); }, {"'test.barrier'", "takes 0 argument(s)"});
  require_user_error([&] { register_intrinsic(barrier); }, {"intrinsic 'test.barrier' is already registered"});
  Intrinsic untyped;
  untyped.name = "test.untyped";
  require_user_error([&] { register_intrinsic(untyped); }, "needs a type rule");
}

TEST_CASE("memory scopes: a named, open set", "[ir][scope]") {
  CHECK(MemoryScope("global") == MemoryScope::global());
  CHECK(MemoryScope("local") == MemoryScope::local());
  CHECK(MemoryScope("shared").name() == "shared");
  CHECK(MemoryScope::local().info().cpu_allocatable);
  CHECK_FALSE(MemoryScope("shared").info().cpu_allocatable);
  CHECK_FALSE(MemoryScope("warp").info().cpu_allocatable);
  require_user_error([&] { MemoryScope("texture"); },
                     {"unknown memory scope 'texture'", "global, local, shared, warp", "register_memory_scope"});
  MemoryScope sram = register_memory_scope({"test.acc_buffer", "an accelerator's accumulator SRAM", false});
  CHECK(MemoryScope("test.acc_buffer") == sram);
  CHECK(Buffer("acc", DataType::int32(), sram).scope() == sram);
  require_user_error([&] { register_memory_scope({"shared", "again", true}); }, "already registered");
}

TEST_CASE("attribute keys: declared with the subject they take", "[ir][attr]") {
  Var i("i");
  Stmt body = make_evaluate(call("prefetch", {load(local("buf"), i)}));
  CHECK(make_attr("thread_extent", std::string("threadIdx.x"), 32, body).defined());
  CHECK(make_attr("pragma_unroll_max_step", std::monostate{}, 16, body).defined());
  CHECK(attr_key("pragma_anything").name == "pragma_");
  CHECK(attr_key("pragma_anything").hint);
  CHECK_FALSE(attr_key("thread_extent").hint);
  require_user_error([&] { make_attr("thread_extent", i, 32, body); },
                     {"'thread_extent' takes a name as its subject, not a variable"});
  require_user_error([&] { make_attr("pragma_x", local("buf"), 1, body); }, {"no subject", "not a buffer"});
  require_user_error([&] { make_attr("storage_alignment", std::monostate{}, 1, body); },
                     {"unknown attribute key 'storage_alignment'", "thread_extent", "pragma_"});
  require_user_error([&] { make_attr("pragma_x", std::monostate{}, Expr(), body); }, "needs a value");
  register_attr_key({"test.coproc_scope", AttrSubjectKind::Var, false, "a coprocessor region"});
  CHECK(make_attr("test.coproc_scope", i, 1, body).as<AttrStmt>()->key == "test.coproc_scope");
}

TEST_CASE("loops: a ThreadBinding loop carries its tag, the others none", "[ir][attr]") {
  Var i("i");
  Stmt body = make_evaluate(call("prefetch", {load(local("buf"), i)}));
  Stmt bound = make_for(i, 0, 32, ForKind::ThreadBinding, body, "threadIdx.x");  // owns the node `loop` views
  const auto* loop = bound.as<For>();
  CHECK(loop->thread_tag == "threadIdx.x");
  CHECK(make_for(i, 0, 32, ForKind::Serial, body).as<For>()->thread_tag.empty());
  CHECK_THROWS_AS(make_for(i, 0, 32, ForKind::ThreadBinding, body), InternalError);
}
