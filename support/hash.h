// FNV-1a (64 bits): a fast, stable hash of bytes, for telling contents apart (workload keys, the
// plugin libraries a run used, pinned programs in tests), never for security. Stable across
// platforms and builds, so hashes written to records and manifests stay comparable.
//
//   std::string key = fnv1a64_hex(canonical_text);   // 16 lowercase hex digits
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tessel {

constexpr uint64_t kFnv1a64Start = 0xcbf29ce484222325ULL;

// The hash of `bytes`; pass a previous result as `hash` to hash data that arrives in pieces.
inline uint64_t fnv1a64(std::string_view bytes, uint64_t hash = kFnv1a64Start) {
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ULL;
  return hash;
}

// A hash as 16 lowercase hex digits.
inline std::string hex64(uint64_t hash) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

inline std::string fnv1a64_hex(std::string_view bytes) { return hex64(fnv1a64(bytes)); }

}  // namespace tessel
