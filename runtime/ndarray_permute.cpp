// Re-laying out an NDArray's elements (runtime/ndarray_permute.h).
#include "runtime/ndarray_permute.h"

#include <algorithm>

#include "support/error.h"

namespace tessel {

NDArray permuted_copy(const NDArray& src, const std::vector<int64_t>& view, const std::vector<int>& perm) {
  size_t rank = view.size();
  int64_t elements = 1;
  for (int64_t d : view) elements *= d;
  TESSEL_CHECK(elements == src.numel() && perm.size() == rank && rank > 0, "permuted_copy: view ", shape_str(view),
               " of ", shape_str(src.shape()));
  std::vector<int64_t> view_strides(rank, 1), shape(rank), strides(rank);
  for (size_t d = rank - 1; d-- > 0;) view_strides[d] = view_strides[d + 1] * view[d + 1];
  for (size_t d = 0; d < rank; ++d) shape[d] = view[perm[d]], strides[d] = view_strides[perm[d]];
  NDArray out = NDArray::empty(shape, src.dtype());
  const auto* from = static_cast<const char*>(src.data());
  auto* to = static_cast<char*>(out.data());
  int64_t bytes = src.dtype().bytes(), n = out.numel();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;  // of index in src, in elements
  for (int64_t i = 0; i < n; ++i) {
    std::copy_n(from + offset * bytes, bytes, to + i * bytes);
    for (size_t d = rank; d-- > 0;) {  // odometer step
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace tessel
