// DLPack conversion: zero-copy round trips in both directions, ownership (the deleter runs exactly
// once, when the last holder goes), memory owned elsewhere, devices and element types, and the
// tensors NDArray refuses (strided, bfloat) without taking them over.
#include <catch2/catch.hpp>

#include "runtime/dlpack.h"
#include "tests/user_error_check.h"

using namespace tessel;

namespace {

// A tensor owned by "another framework": its own buffer, shape and strides, and a deleter that
// counts its calls.
struct ForeignTensor {
  std::vector<float> data;
  std::vector<int64_t> shape, strides;
  int* deletions;
  DLManagedTensor managed{};

  static DLManagedTensor* make(std::vector<int64_t> shape, int* deletions, std::vector<int64_t> strides = {}) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    auto* t = new ForeignTensor{std::vector<float>(static_cast<size_t>(n)), std::move(shape), std::move(strides),
                                deletions, {}};
    for (int64_t i = 0; i < n; ++i) t->data[i] = static_cast<float>(i);
    t->managed.dl_tensor = DLTensor{t->data.data(), {kDLCPU, 0}, static_cast<int32_t>(t->shape.size()),
                                    {kDLFloat, 32, 1}, t->shape.data(), t->strides.empty() ? nullptr : t->strides.data(), 0};
    t->managed.manager_ctx = t;
    t->managed.deleter = [](DLManagedTensor* self) {
      auto* owner = static_cast<ForeignTensor*>(self->manager_ctx);
      ++*owner->deletions;
      delete owner;
    };
    return &t->managed;
  }
};

}  // namespace

TEST_CASE("dlpack: an NDArray exported and imported back shares its memory", "[runtime][dlpack]") {
  NDArray a = NDArray::random_uniform({3, 5}, ElementType::of<float>(), 7);
  DLManagedTensor* managed = to_dlpack(a);
  const DLTensor& t = managed->dl_tensor;
  CHECK(t.data == a.data());
  CHECK(t.ndim == 2);
  CHECK(t.shape[0] == 3);
  CHECK(t.shape[1] == 5);
  CHECK(t.strides == nullptr);
  CHECK(t.dtype.code == kDLFloat);
  CHECK(t.dtype.bits == 32);
  CHECK(t.device.device_type == kDLCPU);
  NDArray back = from_dlpack(managed);
  CHECK(back.data() == a.data());
  CHECK(back.shape() == a.shape());
  CHECK(back.dtype() == a.dtype());
  back.data_as<float>()[4] = 42.0f;
  CHECK(a.data_as<float>()[4] == 42.0f);
}

TEST_CASE("dlpack: an exported tensor outlives the array it came from", "[runtime][dlpack]") {
  DLManagedTensor* managed;
  {
    NDArray a = NDArray::from_vector<int32_t>({4}, {1, 2, 3, 4});
    managed = to_dlpack(a);
  }
  CHECK(static_cast<int32_t*>(managed->dl_tensor.data)[3] == 4);
  CHECK(managed->dl_tensor.dtype.code == kDLInt);
  managed->deleter(managed);
}

TEST_CASE("dlpack: memory owned elsewhere is released once, by the last holder", "[runtime][dlpack]") {
  int deletions = 0;
  DLManagedTensor* managed = ForeignTensor::make({2, 3}, &deletions);
  void* memory = managed->dl_tensor.data;
  {
    NDArray a = from_dlpack(managed);
    CHECK(a.data() == memory);
    CHECK(a.get_double(5) == 5.0);
    NDArray shared = a;
    a = NDArray();
    CHECK(deletions == 0);
    DLManagedTensor* again = to_dlpack(shared);  // re-exported: keeps the foreign memory alive too
    shared = NDArray();
    CHECK(deletions == 0);
    CHECK(static_cast<float*>(again->dl_tensor.data)[1] == 1.0f);
    again->deleter(again);
  }
  CHECK(deletions == 1);
}

TEST_CASE("dlpack: devices, element types and byte offsets map one to one", "[runtime][dlpack]") {
  int deletions = 0;
  DLManagedTensor* managed = ForeignTensor::make({6}, &deletions);
  managed->dl_tensor.byte_offset = 2 * sizeof(float);
  managed->dl_tensor.shape[0] = 4;
  NDArray offset = from_dlpack(managed);
  CHECK(offset.get_double(0) == 2.0);
  offset = NDArray();
  CHECK(deletions == 1);

  NDArray flags = NDArray::from_vector<bool>({2}, {true, false});
  DLTensor view = as_dltensor(flags);
  CHECK(view.dtype.code == kDLUInt);
  CHECK(view.dtype.bits == 1);
  CHECK(view_dltensor(view).dtype() == ElementType::of<bool>());

  float gpu_memory[4];  // stands in for device memory: never dereferenced through the array
  DLTensor on_gpu{gpu_memory, {kDLCUDA, 1}, 1, {kDLFloat, 32, 1}, nullptr, nullptr, 0};
  int64_t shape[] = {4};
  on_gpu.shape = shape;
  NDArray remote = view_dltensor(on_gpu);
  CHECK(remote.device() == Device{DeviceType::kCUDA, 1});
  CHECK(remote.device().str() == "cuda:1");
  CHECK(as_dltensor(remote).device.device_type == kDLCUDA);
  test::require_user_error([&] { remote.get_double(0); }, {"cuda:1", "not in host memory"});
  test::require_user_error([&] { remote.copy(); }, "cuda:1");
}

TEST_CASE("dlpack: tensors NDArray cannot hold are refused and stay the caller's", "[runtime][dlpack]") {
  int deletions = 0;
  DLManagedTensor* transposed = ForeignTensor::make({2, 3}, &deletions, {1, 2});
  test::require_user_error([&] { from_dlpack(transposed); }, {"not dense and row-major", ".contiguous()"});
  CHECK(deletions == 0);
  transposed->deleter(transposed);
  CHECK(deletions == 1);

  DLManagedTensor* row_major = ForeignTensor::make({2, 3}, &deletions, {3, 1});
  CHECK(from_dlpack(row_major).get_double(4) == 4.0);  // explicit row-major strides are fine
  CHECK(deletions == 2);

  DLManagedTensor* bfloat = ForeignTensor::make({2}, &deletions);
  bfloat->dl_tensor.dtype = {kDLBfloat, 16, 1};
  test::require_user_error([&] { from_dlpack(bfloat); }, "bfloat");
  bfloat->deleter(bfloat);
  test::require_user_error([] { from_dlpack(nullptr); }, "null");
  test::require_user_error([] { to_dlpack(NDArray()); }, "undefined");
}
