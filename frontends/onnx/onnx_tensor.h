// ONNX element types and tensors (TensorProto) as Tessel data types and NDArrays. Internal to
// the frontend: it includes libonnx's protobuf classes.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "ir/type.h"
#include "runtime/ndarray.h"

namespace tessel::frontend {

// The name of an ONNX element type ("FLOAT", "INT64", ...), for messages.
std::string onnx_type_name(int elem_type);

// The Tessel type of an ONNX element type: float32, int32 and int64 are supported; any other is
// an UnsupportedModel error saying `what` has it.
DataType to_tessel_type(int elem_type, const std::string& what);
// The ONNX element type of a supported Tessel type.
int to_onnx_type(DataType type);

// The array a TensorProto holds (raw_data or the typed field). UserError, naming `what`, when the
// data does not match the shape (a truncated or malformed file); UnsupportedModel for external
// data and unsupported element types.
NDArray to_ndarray(const ::onnx::TensorProto& tensor, const std::string& what);

}  // namespace tessel::frontend
