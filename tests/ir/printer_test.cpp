// Printer snapshots: exact text of small expressions, statements, functions and tensor definitions,
// including the parentheses that precedence requires and no others.
#include <catch2/catch.hpp>

#include "ir/printer.h"

using namespace tessel;

TEST_CASE("printer: precedence decides the parentheses", "[printer]") {
  Var i("i"), j("j"), k("k");
  CHECK(to_string(i * 1024 + j) == "i*1024 + j");
  CHECK(to_string((i + j) * k) == "(i + j)*k");
  CHECK(to_string(i - (j - k)) == "i - (j - k)");
  CHECK(to_string((i - j) - k) == "i - j - k");
  CHECK(to_string(i / 8 % 4) == "i/8%4");
  CHECK(to_string(i / (j * 2)) == "i/(j*2)");
  CHECK(to_string(i < j && j <= k || !eq(i, k)) == "i < j && j <= k || !(i == k)");
  CHECK(to_string((i < j || j < k) && ne(i, k)) == "(i < j || j < k) && i != k");
  CHECK(to_string(-i) == "0 - i");
  CHECK(to_string(i * -2) == "i*-2");
}

TEST_CASE("printer: constants, casts, calls and vectors", "[printer]") {
  Var x("x", DataType::float32()), n("n", DataType::int64());
  CHECK(to_string(x * 0.5 + 1.0) == "x*0.5f + 1.0f");
  CHECK(to_string(make_float(0.1)) == "0.1f");
  CHECK(to_string(make_int(5, DataType::int64())) == "5i64");
  CHECK(to_string(make_int(-3, DataType::int8())) == "-3i8");
  CHECK(to_string(make_int(1, DataType::boolean())) == "true");
  CHECK(to_string(reduce_identity(ReduceOp::Max, DataType::float32())) == "-inf");
  CHECK(to_string(cast(DataType::int32(), x)) == "int32(x)");
  CHECK(to_string(n + 1) == "n + 1i64");
  CHECK(to_string(call("exp", {x}) * max(x, 0.0)) == "exp(x)*max(x, 0.0f)");
  CHECK(to_string(select(x > 0.0, x, 0.0)) == "select(x > 0.0f, x, 0.0f)");
  Var i("i");
  Buffer a("A", DataType::float32(), MemoryScope::global());
  CHECK(to_string(load(a, ramp(i * 16, 1, 16)) * broadcast(x, 16)) == "A[ramp(i*16, 1, 16)]*x16(x)");
  Var t("t");
  CHECK(to_string(Expr(std::make_shared<Let>(t, i + 1, t * t))) == "(let t = i + 1 in t*t)");
}

TEST_CASE("printer: loop nests indent by two spaces", "[printer]") {
  Var i("i.outer"), k("k");
  Buffer c("C", DataType::float32(), MemoryScope::global());
  Buffer a("A", DataType::float32(), MemoryScope::global());
  Buffer tmp("C.local", DataType::float32(), MemoryScope::local());
  Stmt update = make_store(c, i * 1024 + k, load(c, i * 1024 + k) + load(a, k));
  Stmt loop = make_for(i, 0, 32, ForKind::Parallel,
                       make_allocate(tmp, 16,
                                     make_seq({make_store(tmp, 0, make_float(0.0)),
                                               make_for(k, 0, 1024, ForKind::Serial,
                                                        make_if(k < 512, update, make_store(tmp, 0, load(a, k))))})));
  CHECK(to_string(loop) ==
        "parallel (i.outer, 0, 32) {\n"
        "  allocate C.local[float32 * 16] {\n"
        "    C.local[0] = 0.0f\n"
        "    for (k, 0, 1024) {\n"
        "      if (k < 512) {\n"
        "        C[i.outer*1024 + k] = C[i.outer*1024 + k] + A[k]\n"
        "      } else {\n"
        "        C.local[0] = A[k]\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
  Var v("v");
  CHECK(to_string(make_let(v, 3, make_store(c, v, 1.0))) == "let v = 3\nC[v] = 1.0f\n");
}

TEST_CASE("printer: lowered functions and tensor definitions", "[printer]") {
  Tensor a = placeholder({4, 3}, DataType::float32(), "A");
  Tensor b = placeholder({3, 5}, DataType::float32(), "B");
  IterVar k = reduce_axis(3, "k");
  Tensor c = compute({4, 5}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C", "gemm");
  CHECK(to_string(a) == "A = placeholder  // float32[4, 3]");
  CHECK(to_string(c) == "C[i, j] = sum(A[i, k]*B[k, j], axis=[k])  // float32[4, 5], tag gemm, k in [0, 3)");
  CHECK(to_string(std::vector<Tensor>{c}) ==
        "A = placeholder  // float32[4, 3]\nB = placeholder  // float32[3, 5]\n" + to_string(c) + "\n");
  IterVar r = reduce_axis(3, "r");
  Tensor m = compute({4}, [&](Var i) { return max_reduce(a(i, r), {r}, ne(r.var(), 1)); }, "M");
  CHECK(to_string(m->body) == "max(A[i, r], axis=[r], where=r != 1)");
  IterVar q = reduce_axis(3, "q");
  Tensor s = compute({4}, [&](Var i) { return sum(a(i, q), {q}, Expr(), a(i, 0) * 2.0f); }, "S");
  CHECK(to_string(s->body) == "sum(A[i, q], axis=[q], init=A[i, 0]*2.0f)");

  Buffer ba("A", DataType::float32(), MemoryScope::global());
  Var i("i");
  LoweredFunc f{"scale", {{ba, {4, 3}}}, make_for(i, 0, 12, ForKind::Serial, make_store(ba, i, load(ba, i) * 2.0))};
  CHECK(to_string(f) ==
        "func scale(A: float32[4, 3]) {\n"
        "  for (i, 0, 12) {\n"
        "    A[i] = A[i]*2.0f\n"
        "  }\n"
        "}\n");
}

TEST_CASE("printer: attributes, thread bindings, evaluated calls and memory scopes", "[printer]") {
  Var i("i"), j("j");
  Buffer c("C", DataType::float32(), MemoryScope::global());
  Buffer tile("C.shared", DataType::float32(), MemoryScope("shared"));
  Stmt body = make_seq({make_evaluate(call("fill", {load(tile, j * 4), make_float(0.0), 4})),
                        make_evaluate(call("prefetch", {load(c, i * 64 + j)}))});
  Stmt loop = make_attr("thread_extent", std::string("threadIdx.x"), 16,
                        make_for(i, 0, 16, ForKind::ThreadBinding,
                                 make_allocate(tile, 64,
                                               make_attr("pragma_unroll_max_step", std::monostate{}, 8,
                                                         make_for(j, 0, 16, ForKind::Serial, body))),
                                 "threadIdx.x"));
  CHECK(to_string(loop) ==
        "attr [\"threadIdx.x\"] thread_extent = 16 {\n"
        "  thread_binding (i, 0, 16, threadIdx.x) {\n"
        "    allocate C.shared[float32 * 64] @shared {\n"
        "      attr pragma_unroll_max_step = 8 {\n"
        "        for (j, 0, 16) {\n"
        "          fill(&C.shared[j*4], 0.0f, 4)\n"
        "          prefetch(&C[i*64 + j])\n"
        "        }\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
  register_attr_key({"test.printed_scope", AttrSubjectKind::Buffer, false, "printer test"});
  CHECK(to_string(make_attr("test.printed_scope", c, 1, make_evaluate(call("prefetch", {load(c, 0)})))) ==
        "attr [C] test.printed_scope = 1 {\n  prefetch(&C[0])\n}\n");
}
