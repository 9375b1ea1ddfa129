// Zero-copy conversion between NDArray and DLPack tensors (runtime/dlpack.h).
#include "runtime/dlpack.h"

#include <cstring>

namespace tessel {

static_assert(static_cast<int>(DeviceType::kCPU) == kDLCPU && static_cast<int>(DeviceType::kCUDA) == kDLCUDA &&
              static_cast<int>(DeviceType::kCUDAHost) == kDLCUDAHost &&
              static_cast<int>(DeviceType::kOpenCL) == kDLOpenCL && static_cast<int>(DeviceType::kVulkan) == kDLVulkan &&
              static_cast<int>(DeviceType::kMetal) == kDLMetal && static_cast<int>(DeviceType::kROCM) == kDLROCM &&
              static_cast<int>(DeviceType::kExtDev) == kDLExtDev,
              "runtime/device.h must use DLPack's device codes");
static_assert(int{ElementType::kInt} == int{kDLInt} && int{ElementType::kUInt} == int{kDLUInt} &&
              int{ElementType::kFloat} == int{kDLFloat} && int{ElementType::kHandle} == int{kDLOpaqueHandle},
              "ElementType must use DLPack's type codes");

namespace {

// What a managed tensor made by to_dlpack owns: a copy of the array (so its storage and shape
// stay alive) and the DLManagedTensor itself.
struct ExportedTensor {
  NDArray array;
  DLManagedTensor managed{};
};

void delete_exported(DLManagedTensor* self) { delete static_cast<ExportedTensor*>(self->manager_ctx); }

DLTensor describe(NDArray& array) {
  DLTensor t{};
  t.data = array.data();
  t.device = DLDevice{static_cast<DLDeviceType>(array.device().type), array.device().id};
  t.ndim = array.ndim();
  t.dtype = DLDataType{array.dtype().code, array.dtype().bits, array.dtype().lanes};
  t.shape = const_cast<int64_t*>(array.shape().data());
  t.strides = nullptr;
  t.byte_offset = 0;
  return t;
}

// The checks every import shares; the array views the memory with `owner` keeping it alive.
NDArray import_tensor(const DLTensor& t, std::shared_ptr<void> owner) {
  if (t.ndim < 0) user_error("DLPack tensor has ndim ", t.ndim, "; it must be >= 0");
  if (t.ndim > 0 && !t.shape) user_error("DLPack tensor of ", t.ndim, " dimensions has no shape array");
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  if (t.dtype.code > kDLOpaqueHandle)
    user_error("DLPack tensor has element type code ", int(t.dtype.code),
               " (bfloat or complex), which NDArray cannot hold; convert it to float32 first");
  if (t.strides) {
    int64_t expected = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (shape[d] != 1 && t.strides[d] != expected)
        user_error("DLPack tensor of shape ", shape_str(shape), " is not dense and row-major (stride ", t.strides[d],
                   " in dimension ", d, ", expected ", expected, "); make it contiguous (e.g. .contiguous()) first");
      expected *= shape[d];
    }
  }
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  Device device{static_cast<DeviceType>(t.device.device_type), t.device.device_id};
  return NDArray::from_external(data, std::move(shape), ElementType(t.dtype.code, t.dtype.bits, t.dtype.lanes), device,
                                std::move(owner));
}

}  // namespace

DLManagedTensor* to_dlpack(const NDArray& array) {
  if (!array.defined()) user_error("to_dlpack: the array is undefined; create it before exporting it");
  auto* exported = new ExportedTensor{array, {}};
  exported->managed.dl_tensor = describe(exported->array);
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = delete_exported;
  return &exported->managed;
}

NDArray from_dlpack(DLManagedTensor* tensor) {
  if (!tensor) user_error("from_dlpack: the managed tensor is null");
  // Built before the owner, so a refused tensor stays the caller's.
  NDArray unowned = import_tensor(tensor->dl_tensor, nullptr);
  std::shared_ptr<void> owner(tensor, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  return NDArray::from_external(unowned.data(), unowned.shape(), unowned.dtype(), unowned.device(), std::move(owner));
}

DLTensor as_dltensor(NDArray& array) {
  if (!array.defined()) user_error("as_dltensor: the array is undefined");
  return describe(array);
}

NDArray view_dltensor(const DLTensor& tensor) { return import_tensor(tensor, nullptr); }

}  // namespace tessel
