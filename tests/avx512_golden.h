// The AVX-512 pins every layer's tests share (tests/data/avx512_golden.json): for the target
// llvm_cpu -isa=avx512, what the default schedules lowered to and what the template spaces were
// before schedules took a target, captured from that code. The recorded measurement set
// datasets/recorded/small_cpu.json was recorded on an AVX-512 machine with those spaces, and the
// AVX-512 performance measured then must carry over, so these must never change by accident. (The
// spaces of C1, C3, C5, C8 and C11 changed once on purpose: choices that make the same program were
// folded into one, search/spaces/window_template.cpp.)
//
// Programs are pinned by an FNV-1a hash of their printed text (to_string of the lowered
// function, kernel named after the op: "gemm", "conv2d", "depthwise"); on a mismatch the tests
// write the new text to a file so it can be compared with a lowering from commit 705c8bf.
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace tessel::test {

inline const char* kAvx512Target = "llvm_cpu -isa=avx512";
// The target the programs are pinned for: one thread, no weight prefetch. The pinned programs did
// not depend on the thread count; today's differ from them only on several threads, which pad per
// thread (ops/window_schedule.h), and by the 1x1 convolutions' weight prefetch, which came later
// (ops/weight_prefetch.h); replays of sets recorded then lower that way
// (RecordedWorkload::replay_target).
inline const char* kAvx512PinnedTarget = "llvm_cpu -isa=avx512 -threads=1 -prefetch=0 -winograd-prefetch=0";

// The "workloads" object: workload name -> {lowered_default_fnv, lowered_default_chars,
// space_fnv, space_size, default_config}.
inline nlohmann::json avx512_golden() {
  std::ifstream in(TESSEL_SOURCE_DIR "/tests/data/avx512_golden.json");
  return nlohmann::json::parse(in).at("workloads");
}

// FNV-1a, 64 bits, as 16 hex digits.
inline std::string fnv1a64(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

// Writes `text` to a file in the temp dir named after `what` and returns the path (for failure
// messages).
inline std::string save_for_diff(const std::string& what, const std::string& text) {
  std::string safe = what;
  for (char& c : safe)
    if (c == ':' || c == '/' || c == ' ') c = '_';
  std::string path = "/tmp/tessel-avx512-" + safe + ".txt";
  std::ofstream(path) << text;
  return path;
}

}  // namespace tessel::test
