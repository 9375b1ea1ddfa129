// NDArray: a dense, row-major, n-dimensional array on a device, the data that compiled kernels,
// the reference interpreter, benchmarks and the runtime exchange.
//
// Copies of an NDArray share storage (like a DLPack tensor handle); copy() makes a deep copy.
// Storage is either allocated by NDArray (host memory, 64-byte aligned) or owned elsewhere
// (from_external: a DLPack tensor, a mapped file), released through its owner when the last copy
// goes. runtime/dlpack.h converts to and from DLPack without copying.
//
// Element types: runtime/ sits below ir/ in the layer order, so it cannot use tessel::DataType.
// ElementType is a DLPack-style (code, bits, lanes) triple whose codes equal ir/type.h's TypeCode
// values (Int 0, UInt 1, Float 2, Handle 3, as in DLPack's DLDataTypeCode). It converts implicitly
// from any type with `code`, `bits` and `lanes` members, so callers simply write
// `NDArray::empty({4, 5}, DataType::float32())`; ir/ code converts back with a static_assert on
// the matching codes (see ir/te_interpreter.cpp). Bool is UInt with 1 bit, stored in one byte.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/device.h"
#include "runtime/host_memory.h"
#include "support/error.h"

namespace tessel {

struct ElementType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3 };
  uint8_t code = kFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  constexpr ElementType() = default;
  constexpr ElementType(uint8_t c, uint8_t b, uint16_t l = 1) : code(c), bits(b), lanes(l) {}
  // From tessel::DataType (or any DLPack-like triple).
  template <typename T>
    requires requires(const T& t) { t.code; t.bits; t.lanes; }
  constexpr ElementType(const T& t)  // NOLINT(google-explicit-constructor): intended conversion
      : code(static_cast<uint8_t>(t.code)), bits(static_cast<uint8_t>(t.bits)), lanes(static_cast<uint16_t>(t.lanes)) {}

  // The element type of a C++ scalar: float, double, int8_t..int64_t, uint8_t, bool.
  template <typename T>
  static constexpr ElementType of();

  bool is_bool() const { return code == kUInt && bits == 1; }
  int bytes() const { return (bits + 7) / 8 * lanes; }
  std::string str() const;  // same spelling as DataType::str(): "float32", "int8", "bool"
  // Inverse of str(): "float32", "int8", "uint16", "bool", "float32x8", "handle"; throws UserError.
  static ElementType parse(const std::string& text);
  friend bool operator==(const ElementType& a, const ElementType& b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
  }
};

template <typename T>
constexpr ElementType ElementType::of() {
  if constexpr (std::is_same_v<T, bool>) return {kUInt, 1};
  else if constexpr (std::is_floating_point_v<T>) return {kFloat, sizeof(T) * 8};
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return {kInt, sizeof(T) * 8};
  else if constexpr (std::is_integral_v<T>) return {kUInt, sizeof(T) * 8};
  else static_assert(sizeof(T) == 0, "no element type for this C++ type");
}

class NDArray {
 public:
  static constexpr size_t kAlignment = kHostAlignment;

  NDArray() = default;  // undefined: holds nothing

  // Uninitialized storage. Dimensions must be >= 0; an empty shape is a scalar. Only host memory
  // (the CPU) can be allocated here; other devices' arrays come from their runtimes (from_external).
  static NDArray empty(std::vector<int64_t> shape, ElementType dtype, Device device = Device::cpu());
  // The bytes an array of this shape and type takes. UserError ("<what> shape [...] has ...") for a
  // negative dimension, an invalid type, or a size beyond 2^62 bytes (a shape read from a file must
  // be checked before its product is taken: it could overflow).
  static int64_t checked_nbytes(const std::vector<int64_t>& shape, ElementType dtype,
                                const std::string& what = "NDArray");
  static NDArray zeros(std::vector<int64_t> shape, ElementType dtype);
  // Independent uniform values in [lo, hi) for floats, integers in [lo, hi] for int types (clamped
  // to the type's range), 0/1 for bool; the same seed gives the same array.
  static NDArray random_uniform(std::vector<int64_t> shape, ElementType dtype, uint64_t seed, double lo = -1.0,
                                double hi = 1.0);
  // An array holding `values` (row-major); their count must match the shape.
  template <typename T>
  static NDArray from_vector(std::vector<int64_t> shape, const std::vector<T>& values);

  // An array over memory owned elsewhere, dense and row-major, without copying. `owner` keeps the
  // memory alive and is released when the last copy of the array goes (null: the caller keeps it
  // alive for as long as the array is used). `data` must be aligned to the element size.
  static NDArray from_external(void* data, std::vector<int64_t> shape, ElementType dtype, Device device,
                               std::shared_ptr<void> owner);

  bool defined() const { return storage_ != nullptr; }
  Device device() const { return device_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  ElementType dtype() const { return dtype_; }
  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_.bytes(); }

  // The first element; on a device other than the host, a pointer in that device's memory.
  void* data() { return storage_.get(); }
  const void* data() const { return storage_.get(); }
  // Typed access; throws UserError if T is not the element type or the memory is not the host's.
  template <typename T>
  T* data_as() {
    check_access(ElementType::of<T>());
    return static_cast<T*>(data());
  }
  template <typename T>
  const T* data_as() const {
    check_access(ElementType::of<T>());
    return static_cast<const T*>(data());
  }

  // Element `flat` (row-major) of a scalar-lane array, converted to or from double; for tests and
  // comparisons across element types, not for hot loops.
  double get_double(int64_t flat) const;
  void set_double(int64_t flat, double value);
  // Element `flat` of an integer or bool array, exactly (through a double, int64 values beyond 2^53
  // round, and INT64_MAX rounds to 2^63, which no int64 holds); UserError for a floating-point
  // array or a uint64 value beyond int64's range.
  int64_t get_int(int64_t flat) const;

  NDArray copy() const;  // host memory only
  // Throws UserError naming `what` unless this array has exactly this shape and type.
  void check_matches(const std::vector<int64_t>& shape, ElementType dtype, const std::string& what) const;

 private:
  void check_access(ElementType requested) const;
  void check_host(const char* what) const;
  std::vector<int64_t> shape_;
  ElementType dtype_;
  Device device_;
  std::shared_ptr<void> storage_;  // points at the first element; owns the allocation or the owner
};

// The largest |a[i] - b[i]|; throws UserError if shapes or element types differ. NaN in either
// array makes the result NaN, so a NaN never passes a tolerance check.
double max_abs_diff(const NDArray& a, const NDArray& b);

std::string shape_str(const std::vector<int64_t>& shape);  // "[4, 5]"

template <typename T>
NDArray NDArray::from_vector(std::vector<int64_t> shape, const std::vector<T>& values) {
  NDArray out = empty(std::move(shape), ElementType::of<T>());
  if (static_cast<int64_t>(values.size()) != out.numel())
    user_error("NDArray::from_vector: ", values.size(), " values given for shape ", shape_str(out.shape()),
               " which holds ", out.numel(), "; pass exactly one value per element");
  T* dst = out.data_as<T>();
  for (size_t i = 0; i < values.size(); ++i) dst[i] = values[i];
  return out;
}

}  // namespace tessel
