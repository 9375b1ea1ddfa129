// Targets: parsing and canonical printing round-trip, ISA ceilings set the vector width and register
// count, host detection is consistent, a target above the host cannot run here, and every bad
// target string is a UserError saying what is valid.
#include <catch2/catch.hpp>

#include "target/target.h"
#include "tests/user_error_check.h"

using namespace tessel;
using tessel::test::require_user_error;

TEST_CASE("the host target describes this CPU and can run here", "[target]") {
  Target host = Target::host();
  CHECK(host.kind() == "llvm_cpu");
  CHECK(host.is_cpu());
  CHECK(host.cpu() == host_cpu());
  CHECK(host.cannot_run_reason().empty());
  CHECK(Target::parse("llvm_cpu") == host);
  CHECK(host_cpu().threads >= 1);
  CHECK(host_cpu().l1d_bytes > 0);
  CHECK(host_cpu().l2_bytes >= host_cpu().l1d_bytes);
  CHECK(host_cpu_name().find(isa_name(host_cpu().isa)) != std::string::npos);
}

TEST_CASE("an ISA attribute sets the vector width and register count of its level", "[target]") {
  const CpuDescription avx2 = Target::parse("llvm_cpu -isa=avx2").cpu();
  CHECK(avx2.isa == CpuIsa::AVX2);
  CHECK(avx2.vector_bits == 256);
  CHECK(avx2.vector_registers == 16);
  CHECK(avx2.lanes(32) == 8);
  const CpuDescription avx512 = Target::parse("llvm_cpu -isa=avx512").cpu();
  CHECK(avx512.vector_bits == 512);
  CHECK(avx512.vector_registers == 32);
  CHECK(avx512.lanes(32) == 16);
  CHECK(avx512.min_accumulators() == avx512.fma_units * avx512.fma_latency);
}

TEST_CASE("str() is canonical and parses back to the same target; key() keeps kind and ISA", "[target]") {
  for (const char* text : {"llvm_cpu", "llvm_cpu -isa=avx2", "llvm_cpu -isa=avx512 -threads=1",
                           "c_source -isa=sse4 -l1=48K -l2=1M -l3=32M -fma-units=1", "llvm_cpu --isa=avx2",
                           "llvm_cpu -prefetch=0", "llvm_cpu -prefetch=12K", "llvm_cpu -winograd-prefetch=2K"}) {
    Target t = Target::parse(text);
    INFO(text << " -> " << t.str());
    CHECK(Target::parse(t.str()) == t);
    CHECK(Target::parse(t.str()).str() == t.str());
  }
  Target t = Target::parse("llvm_cpu -isa=avx2 -threads=1 -l2=1M");
  CHECK(t.key() == "llvm_cpu -isa=avx2");
  CHECK(t.cpu().threads == 1);
  CHECK(t.cpu().l2_bytes == (1 << 20));
  CHECK(t.with_threads(2).cpu().threads == 2);
  CHECK(t.with_threads(2).key() == t.key());
}

TEST_CASE("the prefetch attribute sets how far ahead kernels prefetch their weights; 0 switches it off", "[target]") {
  CHECK(Target::parse("llvm_cpu").cpu().prefetch_bytes == 8 << 10);
  CHECK(Target::parse("llvm_cpu -prefetch=0").cpu().prefetch_bytes == 0);
  CHECK(Target::parse("llvm_cpu -prefetch=16K").cpu().prefetch_bytes == 16 << 10);
  CHECK(Target::parse("llvm_cpu -prefetch=0").key() == Target::parse("llvm_cpu").key());  // records still apply
  require_user_error([] { Target::parse("llvm_cpu -prefetch=-4K"); }, {"-prefetch=-4K", "positive size"});
  CHECK(Target::parse("llvm_cpu -winograd-prefetch=0").cpu().winograd_prefetch_bytes == 0);
  CHECK(Target::parse("llvm_cpu -winograd-prefetch=4K").cpu().winograd_prefetch_bytes == 4 << 10);
  CHECK(Target::parse("llvm_cpu -winograd-prefetch=4K").key() == Target::parse("llvm_cpu").key());
  require_user_error([] { Target::parse("llvm_cpu -winograd-prefetch=x"); }, {"-winograd-prefetch=x"});
}

TEST_CASE("a target above the host's ISA cannot run here, one at or below it can", "[target]") {
  for (CpuIsa isa : {CpuIsa::SSE4, CpuIsa::AVX2, CpuIsa::AVX512}) {
    Target t = Target::parse(std::string("llvm_cpu -isa=") + isa_name(isa));
    INFO(t.str());
    if (isa <= host_cpu().isa) {
      CHECK(t.cannot_run_reason().empty());
      CHECK_NOTHROW(t.check_runs_here("bench"));
    } else {
      CHECK(t.cannot_run_reason().find(isa_name(isa)) != std::string::npos);
      require_user_error([&] { t.check_runs_here("bench"); }, {"bench cannot run", "cross-compile"});
    }
  }
}

TEST_CASE("bad target strings say what is wrong and what is valid", "[target][errors]") {
  require_user_error([] { Target::parse(""); }, "empty target");
  require_user_error([] { Target::parse("cuda9"); }, {"unknown target kind 'cuda9'", "llvm_cpu", "c_source"});
  require_user_error([] { Target::parse("llvm_cpu -isa=avx3"); }, {"-isa=avx3", "sse4, avx2, avx512"});
  require_user_error([] { Target::parse("llvm_cpu -vector=512"); }, {"unknown attribute -vector", "-isa"});
  require_user_error([] { Target::parse("llvm_cpu avx2"); }, "-name=value");
  require_user_error([] { Target::parse("llvm_cpu -isa"); }, "-name=value");
  require_user_error([] { Target::parse("llvm_cpu -threads=0"); }, "positive integer");
  require_user_error([] { Target::parse("llvm_cpu -threads=two"); }, "positive integer");
  require_user_error([] { Target::parse("llvm_cpu -l2=1G"); }, "positive size");
}

TEST_CASE("other target kinds register with their attributes and defaults", "[target]") {
  add_target_kind({"test_accel", DeviceKind::Accelerator, "a test accelerator", {{"batch", "1"}, {"block", "16"}}});
  Target t = Target::parse("test_accel -block=32");
  CHECK(t.device() == DeviceKind::Accelerator);
  CHECK(t.attribute("block") == "32");
  CHECK(t.attribute("batch") == "1");
  CHECK(Target::parse(t.str()) == t);
  CHECK_FALSE(t.cannot_run_reason().empty());
  CHECK_THROWS_AS(t.cpu(), InternalError);
  require_user_error([] { Target::parse("test_accel -isa=avx2"); }, {"unknown attribute -isa", "-batch, -block"});
}
