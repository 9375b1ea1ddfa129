// A model's params in one host allocation (see packed_params.h).
#include "runtime/packed_params.h"

#include <cstring>
#include <unordered_map>

#include "runtime/host_memory.h"

namespace tessel {

namespace {

size_t aligned_size(size_t bytes) { return (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment; }

// Indices into `params`: those `order` names first, in its order, then the others.
std::vector<size_t> packing_order(const std::vector<NamedArray>& params, const std::vector<std::string>& order) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < params.size(); ++i) index.emplace(params[i].name, i);
  std::vector<bool> placed(params.size(), false);
  std::vector<size_t> out;
  auto place = [&](size_t i) {
    if (!placed[i]) placed[i] = true, out.push_back(i);
  };
  for (const std::string& name : order)
    if (auto found = index.find(name); found != index.end()) place(found->second);
  for (size_t i = 0; i < params.size(); ++i) place(i);
  return out;
}

}  // namespace

std::vector<NamedArray> packed_params(const std::vector<NamedArray>& params, const std::vector<std::string>& order) {
  size_t total = 0;
  for (const NamedArray& p : params) total += aligned_size(p.array.nbytes());
  std::shared_ptr<void> block = allocate_host(total);
  auto* base = static_cast<char*>(block.get());
  std::vector<NamedArray> packed;
  size_t offset = 0;
  for (size_t i : packing_order(params, order)) {
    const NDArray& a = params[i].array;
    std::memcpy(base + offset, a.data(), a.nbytes());
    NDArray view = NDArray::from_external(base + offset, a.shape(), a.dtype(), Device::cpu(), block);
    packed.push_back({params[i].name, view});
    offset += aligned_size(a.nbytes());
  }
  return packed;
}

}  // namespace tessel
