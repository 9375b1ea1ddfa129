// ONNX tensors as NDArrays (frontends/onnx/onnx_tensor.h).
#include "frontends/onnx/onnx_tensor.h"

#include <cstring>
#include <limits>

#include "frontends/onnx/onnx_importer.h"
#include "support/error.h"

namespace tessel::frontend {

std::string onnx_type_name(int elem_type) {
  if (::onnx::TensorProto_DataType_IsValid(elem_type) && elem_type != 0)
    return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
  return "element type " + std::to_string(elem_type);
}

DataType to_tessel_type(int elem_type, const std::string& what) {
  switch (elem_type) {
    case ::onnx::TensorProto_DataType_FLOAT:
      return DataType::float32();
    case ::onnx::TensorProto_DataType_INT32:
      return DataType::int32();
    case ::onnx::TensorProto_DataType_INT64:
      return DataType::int64();
    default:
      break;
  }
  if (!::onnx::TensorProto_DataType_IsValid(elem_type) || elem_type == 0)
    user_error(what, " has no valid element type (", elem_type, ")");
  throw UnsupportedModel(detail::concat(what, " has the element type ", onnx_type_name(elem_type),
                                        ", which is not supported (FLOAT, INT32 and INT64 are)"));
}

int to_onnx_type(DataType type) {
  if (type == DataType::float32()) return ::onnx::TensorProto_DataType_FLOAT;
  if (type == DataType::int32()) return ::onnx::TensorProto_DataType_INT32;
  if (type == DataType::int64()) return ::onnx::TensorProto_DataType_INT64;
  TESSEL_CHECK(false, "no ONNX element type for ", type.str());
  return 0;
}

namespace {

// Copies `count` values of a typed repeated field into dst, converting to T.
template <typename T, typename Field>
void copy_field(const Field& field, T* dst, int64_t count) {
  for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<T>(field.Get(static_cast<int>(i)));
}

}  // namespace

NDArray to_ndarray(const ::onnx::TensorProto& t, const std::string& what) {
  if (t.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL)
    throw UnsupportedModel(what +
                           " keeps its data in an external file, which is not supported; save the model "
                           "with its data inside (onnx.save(model, path, save_as_external_data=False))");
  if (t.has_segment()) throw UnsupportedModel(what + " is a segmented tensor, which is not supported");
  DataType type = to_tessel_type(t.data_type(), what);
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) user_error(what, " has a negative dimension ", d);
    if (d > 0 && count > std::numeric_limits<int32_t>::max() / d)
      user_error(what, " has more than 2^31 elements; it cannot be a constant of a Tessel graph");
    count *= d;
  }
  // The data must be there before anything is allocated: a malformed file may declare any shape.
  size_t bytes = static_cast<size_t>(count) * type.bytes();
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      user_error(what, " holds ", t.raw_data().size(), " bytes of data but its shape ", shape_str(shape), " of ",
                 type.str(), " needs ", bytes, " (a truncated or malformed file?)");
    NDArray out = NDArray::empty(shape, type);
    std::memcpy(out.data(), t.raw_data().data(), bytes);  // ONNX raw data is little-endian, as x86
    return out;
  }
  int64_t given = type == DataType::float32() ? t.float_data_size()
                  : type == DataType::int64() ? t.int64_data_size()
                                              : t.int32_data_size();
  if (given != count) user_error(what, " holds ", given, " values but its shape ", shape_str(shape), " needs ", count);
  NDArray out = NDArray::empty(shape, type);
  if (type == DataType::float32())
    copy_field(t.float_data(), out.data_as<float>(), count);
  else if (type == DataType::int64())
    copy_field(t.int64_data(), out.data_as<int64_t>(), count);
  else
    copy_field(t.int32_data(), out.data_as<int32_t>(), count);
  return out;
}

}  // namespace tessel::frontend
