// NDArray storage (allocated or owned elsewhere), creation, element access by double, comparison,
// and the names of element types and devices.
#include "runtime/ndarray.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace tessel {

std::string ElementType::str() const {
  std::string base;
  if (is_bool()) {
    base = "bool";
  } else {
    switch (code) {
      case kInt: base = "int"; break;
      case kUInt: base = "uint"; break;
      case kFloat: base = "float"; break;
      default: return "handle";
    }
    base += std::to_string(bits);
  }
  return lanes > 1 ? base + "x" + std::to_string(lanes) : base;
}

ElementType ElementType::parse(const std::string& text) {
  auto fail = [&]() -> ElementType {
    user_error("unknown element type '", text, "'; valid: bool, handle, int8..int64, uint8..uint64, float16..float64, ",
               "with an optional xLANES suffix (float32x8)");
  };
  std::string base = text;
  uint16_t lanes = 1;
  size_t x = text.find('x');
  if (x != std::string::npos) {
    std::string count = text.substr(x + 1);
    if (count.empty() || count.size() > 5 || count.find_first_not_of("0123456789") != std::string::npos) return fail();
    int n = std::stoi(count);
    if (n < 1 || n > 65535) return fail();
    lanes = static_cast<uint16_t>(n);
    base = text.substr(0, x);
  }
  if (base == "bool") return {kUInt, 1, lanes};
  if (base == "handle") return {kHandle, 64, lanes};
  for (auto [prefix, code] : {std::pair{"int", kInt}, std::pair{"uint", kUInt}, std::pair{"float", kFloat}}) {
    std::string p = prefix;
    if (base.rfind(p, 0) != 0) continue;
    std::string bits = base.substr(p.size());
    for (int b : {8, 16, 32, 64})
      if (bits == std::to_string(b) && !(code == kFloat && b == 8)) return {static_cast<uint8_t>(code), static_cast<uint8_t>(b), lanes};
  }
  return fail();
}

std::string Device::str() const {
  std::string name;
  switch (type) {
    case DeviceType::kCPU: name = "cpu"; break;
    case DeviceType::kCUDA: name = "cuda"; break;
    case DeviceType::kCUDAHost: name = "cuda_host"; break;
    case DeviceType::kOpenCL: name = "opencl"; break;
    case DeviceType::kVulkan: name = "vulkan"; break;
    case DeviceType::kMetal: name = "metal"; break;
    case DeviceType::kROCM: name = "rocm"; break;
    case DeviceType::kExtDev: name = "ext_dev"; break;
    default: name = "device_type_" + std::to_string(static_cast<int32_t>(type));
  }
  return name + ":" + std::to_string(id);
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << "]";
  return os.str();
}

namespace {

// Calls f with a null pointer of the C++ type stored for `t`, so one generic lambda serves every
// scalar element type.
template <typename F>
auto dispatch_scalar(ElementType t, F&& f) {
  if (t.lanes == 1) {
    if (t.is_bool()) return f(static_cast<bool*>(nullptr));
    switch (t.code * 1000 + t.bits) {
      case ElementType::kFloat * 1000 + 32: return f(static_cast<float*>(nullptr));
      case ElementType::kFloat * 1000 + 64: return f(static_cast<double*>(nullptr));
      case ElementType::kInt * 1000 + 8: return f(static_cast<int8_t*>(nullptr));
      case ElementType::kInt * 1000 + 16: return f(static_cast<int16_t*>(nullptr));
      case ElementType::kInt * 1000 + 32: return f(static_cast<int32_t*>(nullptr));
      case ElementType::kInt * 1000 + 64: return f(static_cast<int64_t*>(nullptr));
      case ElementType::kUInt * 1000 + 8: return f(static_cast<uint8_t*>(nullptr));
      case ElementType::kUInt * 1000 + 16: return f(static_cast<uint16_t*>(nullptr));
      case ElementType::kUInt * 1000 + 32: return f(static_cast<uint32_t*>(nullptr));
      case ElementType::kUInt * 1000 + 64: return f(static_cast<uint64_t*>(nullptr));
      default: break;
    }
  }
  user_error("NDArray element type ", t.str(), " is not supported here: use a scalar int, uint, float or bool type");
}

}  // namespace

int64_t NDArray::checked_nbytes(const std::vector<int64_t>& shape, ElementType dtype, const std::string& what) {
  if (dtype.bits == 0 || dtype.lanes == 0 || dtype.code > ElementType::kHandle)
    user_error(what, " element type (code ", int(dtype.code), ", bits ", int(dtype.bits), ", lanes ",
               int(dtype.lanes), ") is not a valid type");
  constexpr int64_t kLimit = int64_t{1} << 62;
  int64_t bytes = dtype.bytes();
  for (int64_t d : shape) {
    if (d < 0) user_error(what, " shape ", shape_str(shape), " has a negative dimension; dimensions must be >= 0");
    if (d > 0 && bytes > kLimit / d)
      user_error(what, " shape ", shape_str(shape), " of ", dtype.str(), " takes more than 2^62 bytes; no array can");
    bytes *= d;
  }
  // A zero dimension ends the product at 0; the others must not overflow before it does.
  for (int64_t d : shape)
    if (d > kLimit) user_error(what, " shape ", shape_str(shape), " has a dimension beyond 2^62; no array can");
  return bytes;
}

int64_t NDArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

NDArray NDArray::empty(std::vector<int64_t> shape, ElementType dtype, Device device) {
  checked_nbytes(shape, dtype);
  if (device.type != DeviceType::kCPU)
    user_error("NDArray::empty: cannot allocate on ", device.str(), ": this build allocates host (cpu) memory only; ",
               "wrap memory from the device's runtime with NDArray::from_external or from_dlpack");
  NDArray out;
  out.shape_ = std::move(shape);
  out.dtype_ = dtype;
  out.device_ = device;
  out.storage_ = allocate_host(static_cast<size_t>(out.nbytes()));
  return out;
}

NDArray NDArray::from_external(void* data, std::vector<int64_t> shape, ElementType dtype, Device device,
                               std::shared_ptr<void> owner) {
  checked_nbytes(shape, dtype);
  if (!data) user_error("NDArray::from_external: the data pointer is null; pass the first element of the memory");
  size_t align = static_cast<size_t>((dtype.bits + 7) / 8);
  if (reinterpret_cast<uintptr_t>(data) % align != 0)
    user_error("NDArray::from_external: data at ", data, " is not aligned to its ", dtype.str(), " elements (",
               align, " bytes); kernels need element-aligned arrays: copy it into an aligned buffer");
  NDArray out;
  out.shape_ = std::move(shape);
  out.dtype_ = dtype;
  out.device_ = device;
  out.storage_ = std::shared_ptr<void>(std::move(owner), data);  // aliasing: owns `owner`, points at data
  return out;
}

NDArray NDArray::zeros(std::vector<int64_t> shape, ElementType dtype) {
  NDArray out = empty(std::move(shape), dtype);
  std::memset(out.data(), 0, out.nbytes());
  return out;
}

NDArray NDArray::random_uniform(std::vector<int64_t> shape, ElementType dtype, uint64_t seed, double lo, double hi) {
  if (!(lo <= hi)) user_error("NDArray::random_uniform: lo (", lo, ") must not exceed hi (", hi, ")");
  NDArray out = empty(std::move(shape), dtype);
  std::mt19937_64 rng(seed);
  // Mapped by hand rather than with std distributions, whose output differs between libraries.
  auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  dispatch_scalar(dtype, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    T* dst = out.data_as<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        dst[i] = unit() < 0.5;
      } else if constexpr (std::is_floating_point_v<T>) {
        dst[i] = static_cast<T>(lo + (hi - lo) * unit());
      } else {
        double a = std::max(std::ceil(lo), static_cast<double>(std::numeric_limits<T>::lowest()));
        double b = std::min(std::floor(hi), static_cast<double>(std::numeric_limits<T>::max()));
        dst[i] = static_cast<T>(a + std::floor((b - a + 1) * unit()));
      }
    }
  });
  return out;
}

void NDArray::check_host(const char* what) const {
  if (!device_.is_host())
    user_error("NDArray ", what, ": the array lives on ", device_.str(), ", not in host memory; copy it to the cpu first");
}

void NDArray::check_access(ElementType requested) const {
  if (!defined()) user_error("access to the data of an undefined NDArray: create it with NDArray::empty first");
  check_host("data access");
  if (!(requested == dtype_))
    user_error("NDArray of ", dtype_.str(), " accessed as ", requested.str(), ": use data_as with the element type");
}

double NDArray::get_double(int64_t flat) const {
  if (flat < 0 || flat >= numel()) user_error("NDArray index ", flat, " out of range for shape ", shape_str(shape_));
  return dispatch_scalar(dtype_, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return static_cast<double>(data_as<T>()[flat]);
  });
}

int64_t NDArray::get_int(int64_t flat) const {
  if (flat < 0 || flat >= numel()) user_error("NDArray index ", flat, " out of range for shape ", shape_str(shape_));
  return dispatch_scalar(dtype_, [&](auto* tag) -> int64_t {
    using T = std::remove_pointer_t<decltype(tag)>;
    T v = data_as<T>()[flat];
    if constexpr (std::is_floating_point_v<T>) {
      user_error("NDArray of ", dtype_.str(), " has no integer elements");
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        user_error("NDArray element ", flat, " (", v, ") is beyond int64's range");
    }
    return static_cast<int64_t>(v);
  });
}

void NDArray::set_double(int64_t flat, double value) {
  if (flat < 0 || flat >= numel()) user_error("NDArray index ", flat, " out of range for shape ", shape_str(shape_));
  dispatch_scalar(dtype_, [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    data_as<T>()[flat] = static_cast<T>(value);
  });
}

NDArray NDArray::copy() const {
  if (!defined()) return NDArray();
  check_host("copy");
  NDArray out = empty(shape_, dtype_);
  std::memcpy(out.data(), data(), nbytes());
  return out;
}

void NDArray::check_matches(const std::vector<int64_t>& shape, ElementType dtype, const std::string& what) const {
  if (!defined()) user_error(what, ": the array is undefined; expected ", dtype.str(), shape_str(shape));
  if (shape_ != shape || !(dtype_ == dtype))
    user_error(what, ": expected an array of ", dtype.str(), shape_str(shape), " but got ", dtype_.str(),
               shape_str(shape_));
}

double max_abs_diff(const NDArray& a, const NDArray& b) {
  b.check_matches(a.shape(), a.dtype(), "max_abs_diff");
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get_double(i), y = b.get_double(i);
    if (x == y) continue;  // also equal infinities, whose difference would be NaN
    double d = std::fabs(x - y);
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

}  // namespace tessel
