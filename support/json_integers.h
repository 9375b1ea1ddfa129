// Integers read from JSON files that come from outside (module metadata, graph.json, tensor file
// headers). nlohmann's get<int64_t>() converts a float with a C++ cast, undefined behaviour beyond
// int64's range (1e300), and get<uint64_t>() wraps a negative number; these accept only JSON
// integers that int64 holds, and leave the message to the caller, who knows the file and field.
// json_field reads a header field without converting it either, so that a field of another type
// ("format": 5, "version": "1") compares unequal instead of throwing.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessel {

inline std::optional<int64_t> json_integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

// The field `key` of `object`, or null when `object` is not an object or has no such field.
inline nlohmann::json json_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nlohmann::json() : *it;
}

// An array of such integers.
inline std::optional<std::vector<int64_t>> json_integers(const nlohmann::json& v) {
  if (!v.is_array()) return std::nullopt;
  std::vector<int64_t> out;
  for (const nlohmann::json& item : v) {
    std::optional<int64_t> i = json_integer(item);
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return out;
}

}  // namespace tessel
