// Where an array's memory lives: a device type and an index among devices of that type, with the
// codes of DLPack's DLDeviceType, so a Device converts to and from a DLDevice by value
// (runtime/dlpack.h). Tessel runs kernels on the CPU today; the other types name the devices the
// coming back ends (CUDA, OpenCL, the VTA-style accelerator as ext_dev) will own.
//
//   Device cpu = Device::cpu();          // {kCPU, 0}
//   Device gpu{DeviceType::kCUDA, 1};    // gpu.str() == "cuda:1"
#pragma once
#include <cstdint>
#include <string>

namespace tessel {

// Values are DLPack's (dlpack.h, DLDeviceType); runtime/dlpack.cpp checks that they agree.
enum class DeviceType : int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kOpenCL = 4,
  kVulkan = 7,
  kMetal = 8,
  kROCM = 10,
  kExtDev = 12,  // an accelerator outside the list (TVM's VTA uses it)
};

struct Device {
  DeviceType type = DeviceType::kCPU;
  int32_t id = 0;

  static constexpr Device cpu(int32_t id = 0) { return Device{DeviceType::kCPU, id}; }
  // Host memory: plain loads and stores reach it (CPU, and CUDA's pinned host memory).
  bool is_host() const { return type == DeviceType::kCPU || type == DeviceType::kCUDAHost; }
  std::string str() const;  // "cpu:0", "cuda:1", "ext_dev:0", "device_type_99:0" for unknown codes
  friend bool operator==(const Device& a, const Device& b) { return a.type == b.type && a.id == b.id; }
};

}  // namespace tessel
