// NDArray <-> DLPack (dlpack/dlpack.h from Debian's libdlpack-dev, version 0.6), the tensor
// exchange format of PyTorch, NumPy, TVM and others. Both directions share memory, never copy:
//
//   DLManagedTensor* out = to_dlpack(array);   // hand to a consumer; it calls out->deleter(out)
//   NDArray in = from_dlpack(managed);         // takes ownership; the deleter runs when the last
//                                              // copy of `in` goes
//   DLTensor view = as_dltensor(array);        // borrowed: valid while `array` lives (C APIs)
//
// Element types map one to one (Tessel's codes are DLPack's; bool is uint1 as in TVM), devices by
// DLDeviceType (runtime/device.h). NDArray is dense and row-major, so a DLPack tensor with strides
// other than row-major is refused rather than copied.
#pragma once
#include <dlpack/dlpack.h>

#include "runtime/ndarray.h"

namespace tessel {

// A managed tensor sharing `array`'s storage, which stays alive until the consumer calls the
// deleter. Throws UserError for an undefined array.
DLManagedTensor* to_dlpack(const NDArray& array);

// An NDArray over the tensor's memory (data + byte_offset). On success it owns `tensor` and calls
// its deleter when the last copy goes; on failure (UserError: null, strided, misaligned or of an
// element type NDArray cannot hold) the caller still owns it.
NDArray from_dlpack(DLManagedTensor* tensor);

// A DLTensor describing `array` without ownership: its shape pointer points into `array`, so it is
// valid while `array` (or a copy) lives and keeps its shape. strides is null (row-major).
DLTensor as_dltensor(NDArray& array);

// An NDArray viewing a borrowed DLTensor (no ownership: the caller keeps the memory alive while the
// array is used). Same checks as from_dlpack.
NDArray view_dltensor(const DLTensor& tensor);

}  // namespace tessel
