// Structural equality and hashing: equal trees hash equally, any difference in kind, type,
// constant or variable identity makes trees unequal, and map_bound matches bound variables and
// buffers by position (one to one) while free ones still compare by identity.
#include <catch2/catch.hpp>

#include "ir/equality.h"
#include "ir/tensor.h"

using namespace tessel;

namespace {

Buffer global(const std::string& name) { return Buffer(name, DataType::float32(), MemoryScope::global()); }

// for (v, 0, 16) { out[v] = in[v*2 + off] + 1 } with fresh loop variable and the given buffers.
Stmt copy_loop(const std::string& var_name, Buffer out, Buffer in, Expr off) {
  Var v(var_name);
  return make_for(v, 0, 16, ForKind::Serial, make_store(out, v, load(in, v * 2 + off) + 1.0));
}

void require_equal(const Expr& a, const Expr& b, bool map_bound = false) {
  CHECK(structural_equal(a, b, map_bound));
  CHECK(structural_hash(a, map_bound) == structural_hash(b, map_bound));
}

}  // namespace

TEST_CASE("equality: identical structure from distinct nodes is equal", "[equality]") {
  Var i("i"), j("j");
  require_equal(i * 4 + j, i * 4 + j);
  require_equal(select(i < j, i, j), select(i < j, i, j));
  require_equal(call("exp", {cast(DataType::float32(), i)}), call("exp", {cast(DataType::float32(), i)}));
  Buffer a = global("A");
  require_equal(load(a, ramp(i, 1, 8)), load(a, ramp(i, 1, 8)));
}

TEST_CASE("equality: any difference makes trees unequal", "[equality]") {
  Var i("i"), j("j"), other_i("i");
  Expr base = i * 4 + j;
  CHECK_FALSE(structural_equal(base, i * 5 + j));                // constant
  CHECK_FALSE(structural_equal(base, i * 4 - j));                // operator
  CHECK_FALSE(structural_equal(base, j * 4 + i));                // operands swapped
  CHECK_FALSE(structural_equal(base, other_i * 4 + j));          // same name, another variable
  CHECK_FALSE(structural_equal(make_int(4), make_int(4, DataType::int64())));  // type
  CHECK_FALSE(structural_equal(make_float(0.0), make_float(-0.0)));
  CHECK_FALSE(structural_equal(call("exp", {make_float(1.0)}), call("log", {make_float(1.0)})));
  CHECK_FALSE(structural_equal(ramp(i, 1, 8), ramp(i, 1, 4)));
  CHECK_FALSE(structural_equal(load(global("A"), i), load(global("A"), i)));  // buffers by identity
  // Hashes of these differing trees differ too (not guaranteed in general, but a collision among
  // such small trees would mean the hash ignores a field).
  CHECK(structural_hash(base) != structural_hash(i * 5 + j));
  CHECK(structural_hash(base) != structural_hash(j * 4 + i));
  CHECK(structural_hash(base) != structural_hash(other_i * 4 + j));
}

TEST_CASE("equality: statements, including undefined else branches", "[equality]") {
  Buffer out = global("out"), in = global("in");
  Var n("n");
  Stmt s1 = make_if(n < 3, make_store(out, 0, 1.0));
  Stmt s2 = make_if(n < 3, make_store(out, 0, 1.0));
  Stmt s3 = make_if(n < 3, make_store(out, 0, 1.0), make_store(out, 0, 2.0));
  CHECK(structural_equal(s1, s2));
  CHECK(structural_hash(s1) == structural_hash(s2));
  CHECK_FALSE(structural_equal(s1, s3));
  CHECK_FALSE(structural_equal(make_seq({s1, s3}), make_seq({s3, s1})));
}

TEST_CASE("equality: map_bound matches bound variables and buffers by position", "[equality]") {
  Buffer out = global("out"), in = global("in");
  Var off("off");
  Stmt a = copy_loop("i", out, in, off), b = copy_loop("j", out, in, off);
  CHECK_FALSE(structural_equal(a, b));  // loop variables are distinct objects
  CHECK(structural_equal(a, b, true));
  CHECK(structural_hash(a, true) == structural_hash(b, true));
  // Free variables and unbound buffers still compare by identity.
  CHECK_FALSE(structural_equal(a, copy_loop("j", out, in, Var("off")), true));
  CHECK_FALSE(structural_equal(a, copy_loop("j", out, global("in"), off), true));

  // The matching is one to one: a free variable of `a` cannot match a variable `b` binds.
  Var i("i"), k("k");
  Stmt uses_free_k = make_for(i, 0, 4, ForKind::Serial, make_store(out, i + k, 0.0));
  Stmt uses_bound_k = make_for(k, 0, 4, ForKind::Serial, make_store(out, k + k, 0.0));
  CHECK_FALSE(structural_equal(uses_free_k, uses_bound_k, true));

  // Allocated buffers are bound too.
  auto with_temp = [&] {
    Buffer t("t", DataType::float32(), MemoryScope::local());
    return make_allocate(t, 4, make_store(t, 0, load(in, 0)));
  };
  CHECK_FALSE(structural_equal(with_temp(), with_temp()));
  CHECK(structural_equal(with_temp(), with_temp(), true));
}

TEST_CASE("equality: reduction axes are bound variables", "[equality]") {
  Tensor a = placeholder({4, 8}, DataType::float32(), "A");
  auto row_sum = [&] {
    IterVar r = reduce_axis(8, "r");
    return compute({4}, [&](Var i) { return sum(a(i, r), {r}); }, "S");
  };
  Tensor s1 = row_sum(), s2 = row_sum();
  // Reductions sharing one free output axis differ only in their (bound) reduction axes.
  Var i("i");
  auto reduce_of = [&](int64_t extent) {
    IterVar r = reduce_axis(extent, "r");
    return sum(a(i, r), {r});
  };
  CHECK_FALSE(structural_equal(reduce_of(8), reduce_of(8)));
  CHECK(structural_equal(reduce_of(8), reduce_of(8), true));
  CHECK(structural_hash(reduce_of(8), true) == structural_hash(reduce_of(8), true));
  CHECK_FALSE(structural_equal(reduce_of(8), reduce_of(7), true));
  // A sum that starts from a value is another sum than the one from zero, and than one from
  // another value.
  auto reduce_from = [&](Expr init) {
    IterVar r = reduce_axis(8, "r");
    return sum(a(i, r), {r}, Expr(), init);
  };
  Tensor b = placeholder({4}, DataType::float32(), "B");
  require_equal(reduce_from(b(i)), reduce_from(b(i)), true);
  CHECK_FALSE(structural_equal(reduce_from(b(i)), reduce_of(8), true));
  CHECK_FALSE(structural_equal(reduce_from(b(i)), reduce_from(b(i) * 2.0), true));
  // Two computes' bodies read different (free) output axes.
  CHECK_FALSE(structural_equal(s1->body, s2->body, true));
}

TEST_CASE("equality: lowered functions match argument buffers by position", "[equality]") {
  auto make = [](const std::string& name, int64_t n) {
    Buffer out = global("out"), in = global("in");
    return LoweredFunc{name, {{in, {n}}, {out, {n}}}, copy_loop("i", out, in, 0)};
  };
  CHECK(structural_equal(make("f", 32), make("g", 32)));
  CHECK(structural_hash(make("f", 32)) == structural_hash(make("g", 32)));
  CHECK_FALSE(structural_equal(make("f", 32), make("f", 64)));
  LoweredFunc swapped = make("f", 32);
  std::swap(swapped.args[0], swapped.args[1]);
  CHECK_FALSE(structural_equal(make("f", 32), swapped));
}

TEST_CASE("equality: attributes, evaluated calls, bound loops and scopes", "[equality]") {
  Buffer out = global("out");
  auto bound_loop = [&](const std::string& tag, int64_t extent, const std::string& key) {
    Var v("v");
    Stmt body = make_attr(key, std::monostate{}, 4, make_evaluate(call("prefetch", {load(out, v)})));
    return make_attr("thread_extent", tag, extent, make_for(v, 0, extent, ForKind::ThreadBinding, body, tag));
  };
  Stmt base = bound_loop("threadIdx.x", 16, "pragma_a");
  // fresh loop variables: equal with bound variables matched by position
  CHECK(structural_equal(base, bound_loop("threadIdx.x", 16, "pragma_a"), true));
  CHECK(structural_hash(base, true) == structural_hash(bound_loop("threadIdx.x", 16, "pragma_a"), true));
  CHECK_FALSE(structural_equal(base, bound_loop("threadIdx.y", 16, "pragma_a"), true));  // tag
  CHECK_FALSE(structural_equal(base, bound_loop("threadIdx.x", 8, "pragma_a"), true));   // extent
  CHECK_FALSE(structural_equal(base, bound_loop("threadIdx.x", 16, "pragma_b"), true));  // key
  CHECK(structural_hash(base, true) != structural_hash(bound_loop("threadIdx.y", 16, "pragma_a"), true));
  CHECK(structural_hash(base, true) != structural_hash(bound_loop("threadIdx.x", 16, "pragma_b"), true));

  Var n("n");
  Stmt fill = make_evaluate(call("fill", {load(out, n), make_float(0.0), 4}));
  CHECK(structural_equal(fill, make_evaluate(call("fill", {load(out, n), make_float(0.0), 4}))));
  CHECK_FALSE(structural_equal(fill, make_evaluate(call("fill", {load(out, n), make_float(1.0), 4}))));
  CHECK_FALSE(structural_equal(fill, make_evaluate(call("prefetch", {load(out, n)}))));

  // Attribute subjects: variables and buffers as the other references are, names by text.
  register_attr_key({"test.equality_var", AttrSubjectKind::Var, false, "equality test"});
  Stmt about_n = make_attr("test.equality_var", n, 1, fill);
  CHECK(structural_equal(about_n, make_attr("test.equality_var", n, 1, fill)));
  CHECK_FALSE(structural_equal(about_n, make_attr("test.equality_var", Var("n"), 1, fill)));

  // Allocations in different scopes differ even with buffers matched by position.
  auto scoped = [&](MemoryScope scope) {
    Buffer tmp("tmp", DataType::float32(), scope);
    return make_allocate(tmp, 4, make_store(tmp, 0, 1.0));
  };
  CHECK(structural_equal(scoped(MemoryScope::local()), scoped(MemoryScope::local()), true));
  CHECK_FALSE(structural_equal(scoped(MemoryScope::local()), scoped(MemoryScope("shared")), true));
  CHECK(structural_hash(scoped(MemoryScope::local()), true) != structural_hash(scoped(MemoryScope("shared")), true));
}
