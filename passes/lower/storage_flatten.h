// Storage flattening (TVM's StorageFlatten): multi-dimensional tensor accesses become accesses to
// flat, row-major buffers. A Realize becomes an Allocate of a Local buffer holding exactly the
// realized region (indices are offset by the region's min); the function arguments are Global
// buffers of their tensors' full shapes. Provide becomes Store and TensorRead becomes Load.
#pragma once
#include <unordered_map>

#include "ir/stmt.h"
#include "ir/tensor.h"

namespace tessel {

// `args` maps each operation stored in a function argument to that argument. Throws UserError
// if the body reads a tensor that is neither realized nor an argument.
Stmt flatten_storage(const Stmt& body, const std::unordered_map<const OperationNode*, FuncArg>& args);

}  // namespace tessel
