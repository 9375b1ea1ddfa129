// Schedule primitives: the loop structure they record, and the error each illegal request raises
// (which must name the stage, the axis and the rule).
#include <catch2/catch.hpp>

#include <type_traits>

#include "ir/schedule.h"
#include "support/error.h"
#include "tests/user_error_check.h"

using namespace tessel;
using tessel::test::require_user_error;

namespace {

struct Gemm {
  Tensor a = placeholder({64, 32}, DataType::float32(), "A");
  Tensor b = placeholder({32, 48}, DataType::float32(), "B");
  IterVar k = reduce_axis(32, "k");
  Tensor c = compute({64, 48}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");
};

std::vector<std::string> leaf_names(const Stage& s) {
  std::vector<std::string> names;
  for (const IterVar& iv : s->leaf_axes) names.push_back(iv.name());
  return names;
}

}  // namespace

TEST_CASE("split, tile, fuse and reorder reshape the loop nest", "[schedule]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  Stage c = s[g.c];
  CHECK(leaf_names(c) == std::vector<std::string>{"i", "j", "k"});
  auto [io, jo, ii, ji] = c.tile(c.axis(0), c.axis(1), 8, 16);
  CHECK(leaf_names(c) == std::vector<std::string>{"i.outer", "j.outer", "i.inner", "j.inner", "k"});
  c.reorder({g.k, ii});  // the listed axes swap places; the others stay where they are
  CHECK(leaf_names(c) == std::vector<std::string>{"i.outer", "j.outer", "k", "j.inner", "i.inner"});
  IterVar fused = c.fuse(io, jo);
  CHECK(is_const_int(fused->dom.extent, 8 * 3));
  CHECK(leaf_names(c).front() == "i.outer.j.outer.fused");
  auto [o, i] = c.split_nparts(ji, 3);
  CHECK(is_const_int(o->dom.extent, 3));
  CHECK(is_const_int(i->dom.extent, 6));
}

TEST_CASE("non-dividing split rounds the outer extent up", "[schedule]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  auto [jo, ji] = s[g.c].split(s[g.c].axis(1), 20);
  CHECK(is_const_int(jo->dom.extent, 3));
  CHECK(is_const_int(ji->dom.extent, 20));
}

TEST_CASE("cache_write moves the reduction into a new stage", "[schedule]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  Tensor local = s.cache_write(g.c);
  REQUIRE(s.stages().size() == 4);
  CHECK(s[local]->op->is_reduction());
  CHECK_FALSE(s[g.c]->op->is_reduction());
  CHECK(s.current(g.c)->body.as<TensorRead>()->op.get() == local.get());
  s[local].compute_at(s[g.c], s[g.c].axis(0));
  CHECK(s[local]->attach == AttachKind::At);
}

TEST_CASE("cache_read redirects readers to a local copy", "[schedule]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  Tensor a_local = s.cache_read(g.a, {g.c});
  CHECK(a_local.name() == "A.local");
  auto inputs = input_tensors(s.current(g.c));
  bool reads_cache = false, reads_original = false;
  for (const Tensor& t : inputs) {
    reads_cache |= t.get() == a_local.get();
    reads_original |= t.get() == g.a.get();
  }
  CHECK(reads_cache);
  CHECK_FALSE(reads_original);
  CHECK(s.stages().front()->op.get() == g.a.get());
}

TEST_CASE("illegal schedule requests name the stage, the axis and the rule", "[schedule][errors]") {
  Gemm g;
  Tensor d = compute({64, 48}, [&](Var i, Var j) { return g.c(i, j) * 2.0; }, "D");
  Tensor e = compute({64, 48}, [&](Var i, Var j) { return g.a(i, j % 32) + 1.0; }, "E");
  Schedule s = create_schedule({d, e});
  Stage c = s[g.c], ds = s[d];

  tessel::test::require_user_error([&] { c.split(c.axis(0), 0); }, {"split", "factor 0", "'i'", "'C'", "positive"});
  tessel::test::require_user_error([&] { c.split_nparts(c.axis(0), -2); }, {"nparts -2", "'C'"});
  tessel::test::require_user_error([&] { c.reorder({ds.axis(0), c.axis(1)}); }, {"reorder", "'i'", "not a loop of stage 'C'"});
  tessel::test::require_user_error([&] { c.reorder({c.axis(1), c.axis(1)}); }, {"reorder", "'j'", "twice"});
  tessel::test::require_user_error([&] { c.fuse(c.axis(0), g.k); }, {"fuse", "'i'", "'k'", "not adjacent"});
  tessel::test::require_user_error([&] { c.fuse(c.axis(1), g.k); }, {"fuse", "differ in kind"});
  tessel::test::require_user_error([&] { c.vectorize(g.k); }, {"vectorize", "'k'", "'C'", "reduction axis"});
  tessel::test::require_user_error([&] { c.parallel(g.k); }, {"parallel", "'k'", "reduction axis"});
  tessel::test::require_user_error([&] { c.compute_at(s[e], s[e].axis(0)); }, {"compute_at", "'E'", "does not read 'C'"});
  tessel::test::require_user_error([&] { c.compute_at(ds, c.axis(0)); }, {"compute_at", "'i'", "not a loop of stage 'D'"});
  tessel::test::require_user_error([&] { ds.compute_at(c, c.axis(0)); }, {"compute_at", "'D'", "output"});
  tessel::test::require_user_error([&] { c.compute_inline(); }, {"compute_inline", "'C'", "reduction"});
  tessel::test::require_user_error([&] { s[g.a].compute_inline(); }, {"compute_inline", "'A'", "placeholder"});

  auto [io, ii] = c.split(c.axis(0), 8);
  tessel::test::require_user_error([&] { c.split(c.axis(0), 4); }, {"split", "'i'", "already split"});
  c.vectorize(ii);
  tessel::test::require_user_error([&] { c.parallel(ii); }, {"parallel", "already marked vectorize"});
  tessel::test::require_user_error([&] { s.cache_write(g.c); }, {"cache_write", "'C'", "first"});
}

TEST_CASE("bad tensor definitions are rejected", "[schedule][errors]") {
  tessel::test::require_user_error([] { placeholder({4, 0}, DataType::float32(), "X"); }, {"'X'", "size 0"});
  Tensor x = placeholder({4, 4}, DataType::float32(), "X");
  tessel::test::require_user_error([&] { x(Expr(1)); }, {"'X'", "2 dimensions", "1 indices"});
  tessel::test::require_user_error([&] { x(Expr(1.0), Expr(0)); }, {"'X'", "float32", "integers"});
  tessel::test::require_user_error([] { reduce_axis(0, "r"); }, {"'r'", "extent 0"});
}

TEST_CASE("annotations: one enum, spelled as knobs spell them", "[schedule]") {
  for (ForKind kind : {ForKind::Serial, ForKind::Unrolled, ForKind::Vectorized, ForKind::Parallel})
    CHECK(parse_annotation(annotation_name(kind)) == kind);
  CHECK(std::string(annotation_name(ForKind::Serial)) == "none");
  CHECK(std::string(annotation_name(ForKind::Vectorized)) == "vectorize");
  CHECK(std::string(annotation_name(ForKind::ThreadBinding)) == "bind");
  require_user_error([] { parse_annotation("bind"); }, {"unknown loop annotation 'bind'", "none, unroll"});
  Gemm g;
  Schedule s = create_schedule({g.c});
  s[g.c].unroll(g.k);
  CHECK(s[g.c]->for_kind(g.k) == ForKind::Unrolled);
  CHECK(s[g.c]->for_kind(s[g.c].axis(0)) == ForKind::Serial);
}

TEST_CASE("bind: a data-parallel leaf to a known thread tag, once per tag", "[schedule][errors]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  Stage c = s[g.c];
  auto [io, ii] = c.split(c.axis(0), 16);
  c.bind(io, "blockIdx.x");
  c.bind(ii, "threadIdx.x");
  CHECK(c->for_kind(io) == ForKind::ThreadBinding);
  CHECK(c->thread_tags.at(ii.get()) == "threadIdx.x");
  require_user_error([&] { c.bind(c.axis(1), "threadIdx.x"); },
                     {"bind", "'C'", "already binds another loop to threadIdx.x"});
  require_user_error([&] { c.bind(c.axis(1), "threadIdx.w"); },
                     {"bind", "'threadIdx.w'", "axis 'j'", "not a thread tag", "blockIdx.x"});
  require_user_error([&] { c.bind(g.k, "threadIdx.y"); }, {"bind", "'k'", "'C'", "reduction axis"});
  require_user_error([&] { c.vectorize(ii); }, {"vectorize", "'i.inner'", "already marked bind"});
  require_user_error([&] { c.bind(ii, "threadIdx.y"); }, {"bind", "'i.inner'", "already bound to threadIdx.x"});
  c.bind(ii, "threadIdx.x");  // binding again to the same tag changes nothing
  require_user_error([&] { c.bind(c.axis(0), "threadIdx.y"); }, {"bind", "'i'", "already split or fused"});
}

TEST_CASE("pragma: a named constant on a loop", "[schedule][errors]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  Stage c = s[g.c];
  c.pragma(c.axis(0), "unroll_max_step", 16);
  c.pragma(c.axis(0), "debug");
  REQUIRE(c->pragmas.at(c.axis(0).get()).size() == 2);
  CHECK(c->pragmas.at(c.axis(0).get())[1].key == "debug");
  require_user_error([&] { c.pragma(c.axis(0), "debug"); }, {"pragma", "'i'", "'C'", "already has pragma 'debug'"});
  require_user_error([&] { c.pragma(c.axis(1), "two words"); }, {"pragma", "'two words'", "letters, digits"});
  require_user_error([&] { c.pragma(c.axis(1), "step", Var("n")); }, {"pragma", "'step'", "'j'", "constant"});
  // cache_write must come before loop transformations, pragmas included
  require_user_error([&] { s.cache_write(g.c); }, {"cache_write", "'C'", "call cache_write first"});
}

TEST_CASE("set_scope: a known scope, not for inputs and outputs", "[schedule][errors]") {
  Gemm g;
  Tensor d = compute({64, 48}, [&](Var i, Var j) { return g.c(i, j) * 2.0; }, "D");
  Schedule s = create_schedule({d});
  s[g.c].set_scope("shared");
  CHECK(s[g.c]->scope == MemoryScope("shared"));
  require_user_error([&] { s[g.c].set_scope("texture"); }, {"unknown memory scope 'texture'", "shared"});
  require_user_error([&] { s[g.a].set_scope("local"); }, {"set_scope", "'A'", "input placeholder"});
  require_user_error([&] { s[d].set_scope("local"); }, {"set_scope", "'D'", "output", "global"});
}

TEST_CASE("stages: compared by identity and read through const nodes", "[schedule]") {
  Gemm g;
  Schedule s = create_schedule({g.c});
  CHECK(s[g.c].same_as(s[g.c]));
  CHECK_FALSE(s[g.c].same_as(s[g.a]));
  CHECK(s.stages().back().same_as(s[g.c]));
  static_assert(std::is_same_v<decltype(s[g.c].operator->()), const StageNode*>);
  Tensor local = s.cache_write(g.c);
  CHECK(s[g.c]->op->tag == "cache_write");
  CHECK_FALSE(s[g.c]->op->is_reduction());
  CHECK(g.c->is_reduction());  // the user's tensor is not changed behind its back
}
