// A model's params in one host allocation (see packed_params.h).
#include "runtime/packed_params.h"

#include <cstring>

#include "runtime/host_memory.h"

namespace tessel {

std::vector<NamedArray> packed_params(const std::vector<NamedArray>& params) {
  size_t total = 0;
  for (const NamedArray& p : params) total += host_aligned_size(p.array.nbytes());
  std::shared_ptr<void> block = allocate_host(total);
  auto* base = static_cast<char*>(block.get());
  std::vector<NamedArray> packed;
  size_t offset = 0;
  for (const NamedArray& p : params) {
    const NDArray& a = p.array;
    std::memcpy(base + offset, a.data(), a.nbytes());
    packed.push_back({p.name, NDArray::from_external(base + offset, a.shape(), a.dtype(), Device::cpu(), block)});
    offset += host_aligned_size(a.nbytes());
  }
  return packed;
}

}  // namespace tessel
