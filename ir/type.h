// Scalar and vector data types of the IR. A DataType is a code (int, uint, float, handle), a bit
// width and a lane count; lanes > 1 is a SIMD vector, produced by vectorization.
#pragma once
#include <cstdint>
#include <string>

namespace tessel {

enum class TypeCode : uint8_t { Int, UInt, Float, Handle };

struct DataType {
  TypeCode code = TypeCode::Int;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static constexpr DataType int8() { return {TypeCode::Int, 8, 1}; }
  static constexpr DataType int32() { return {TypeCode::Int, 32, 1}; }
  static constexpr DataType int64() { return {TypeCode::Int, 64, 1}; }
  static constexpr DataType float32() { return {TypeCode::Float, 32, 1}; }
  static constexpr DataType boolean() { return {TypeCode::UInt, 1, 1}; }
  static constexpr DataType handle() { return {TypeCode::Handle, 64, 1}; }

  bool is_int() const { return code == TypeCode::Int; }
  bool is_uint() const { return code == TypeCode::UInt; }
  bool is_float() const { return code == TypeCode::Float; }
  bool is_bool() const { return code == TypeCode::UInt && bits == 1; }
  bool is_index() const { return (is_int() || is_uint()) && !is_bool(); }
  bool is_vector() const { return lanes > 1; }
  int bytes() const { return (bits + 7) / 8; }
  DataType element() const { return {code, bits, 1}; }
  DataType with_lanes(int n) const { return {code, bits, static_cast<uint16_t>(n)}; }

  bool operator==(const DataType&) const = default;
  std::string str() const;  // "float32", "int32x8", "bool"
};

// Parses the names str() prints; throws UserError for anything else.
DataType parse_data_type(const std::string& name);

}  // namespace tessel
