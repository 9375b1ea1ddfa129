// Writing and mapping tensor files (runtime/tensor_file.h).
#include "runtime/tensor_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "support/json_integers.h"

namespace tessel {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'L', 'T', 'E', 'N', 'S', '1'};
constexpr uint64_t kMaxHeaderBytes = uint64_t(1) << 30;
constexpr uint64_t kDataAlignment = NDArray::kAlignment;

uint64_t align_up(uint64_t n) { return (n + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

void write_all(int fd, const void* bytes, size_t size, uint64_t offset, const std::string& what) {
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    ssize_t n = pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) user_error("cannot write the tensor file ", what, ": ", std::strerror(n < 0 ? errno : ENOSPC));
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
}

// The header and the offset of each array's bytes.
std::string make_header(const std::vector<NamedArray>& arrays, std::vector<uint64_t>& offsets) {
  nlohmann::json tensors = nlohmann::json::array();
  std::vector<uint64_t> sizes;
  for (const NamedArray& a : arrays) {
    if (!a.array.defined()) user_error("cannot save array '", a.name, "': it is undefined");
    if (!a.array.device().is_host())
      user_error("cannot save array '", a.name, "': it lives on ", a.array.device().str(), "; copy it to the cpu first");
    tensors.push_back({{"name", a.name}, {"dtype", a.array.dtype().str()}, {"shape", a.array.shape()},
                       {"offset", 0}, {"nbytes", a.array.nbytes()}});
  }
  // Offsets depend on the header's length, which depends on the offsets' digits: fix the
  // point by growing the data start until the header fits before it.
  uint64_t start = kDataAlignment;
  for (;;) {
    uint64_t offset = start;
    offsets.clear();
    for (size_t i = 0; i < arrays.size(); ++i) {
      offsets.push_back(offset);
      tensors[i]["offset"] = offset;
      offset = align_up(offset + arrays[i].array.nbytes());
    }
    nlohmann::json header = {{"format", "tessel-tensors"}, {"version", 1}, {"tensors", tensors}};
    std::string text = header.dump();
    if (sizeof(kMagic) + 8 + text.size() <= start) return text;
    start = align_up(sizeof(kMagic) + 8 + text.size());
  }
}

[[noreturn]] void corrupt(const std::string& what, const std::string& why) {
  user_error(what, " is not a valid Tessel tensor file (", why, "); write it again with save_tensors");
}

struct Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) munmap(base, size);
  }
};

std::vector<NamedArray> parse_mapped(const std::shared_ptr<Mapping>& map, const std::string& what) {
  const char* bytes = static_cast<const char*>(map->base);
  if (map->size < sizeof(kMagic) + 8 || std::memcmp(bytes, kMagic, sizeof(kMagic)) != 0) corrupt(what, "no header");
  uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = header_bytes << 8 | static_cast<unsigned char>(bytes[sizeof(kMagic) + i]);
  if (header_bytes > kMaxHeaderBytes || sizeof(kMagic) + 8 + header_bytes > map->size) corrupt(what, "truncated header");
  nlohmann::json header = nlohmann::json::parse(bytes + sizeof(kMagic) + 8, bytes + sizeof(kMagic) + 8 + header_bytes,
                                                nullptr, /*allow_exceptions=*/false);
  if (json_field(header, "format") != "tessel-tensors" || !json_field(header, "tensors").is_array())
    corrupt(what, "malformed header");
  nlohmann::json version = json_field(header, "version");
  if (version != 1) user_error("tensor file ", what, " has version ", version.dump(), "; this Tessel reads version 1");
  std::vector<NamedArray> out;
  for (const nlohmann::json& t : header["tensors"]) {
    try {
      std::string name = t.at("name").get<std::string>();
      ElementType dtype = ElementType::parse(t.at("dtype").get<std::string>());
      std::optional<std::vector<int64_t>> shape = json_integers(t.at("shape"));
      std::optional<int64_t> offset = json_integer(t.at("offset")), nbytes = json_integer(t.at("nbytes"));
      if (!shape || !offset || !nbytes) corrupt(what, "array '" + name + "' has a shape, offset or size that is not integers");
      int64_t expected = 0;
      try {
        expected = NDArray::checked_nbytes(*shape, dtype);
      } catch (const UserError&) {
        corrupt(what, "bad shape of " + name);
      }
      uint64_t start = static_cast<uint64_t>(*offset), size = static_cast<uint64_t>(*nbytes);
      if (*nbytes != expected || *offset < 0 || start % kDataAlignment != 0 || start > map->size || size > map->size - start)
        corrupt(what, "array '" + name + "' does not fit the file");
      out.push_back({name, NDArray::from_external(const_cast<char*>(bytes) + start, *shape, dtype, Device::cpu(), map)});
    } catch (const nlohmann::json::exception& e) {
      corrupt(what, e.what());
    }
  }
  return out;
}

}  // namespace

void write_tensors(int fd, const std::vector<NamedArray>& arrays, const std::string& what) {
  std::vector<uint64_t> offsets;
  std::string header = make_header(arrays, offsets);
  char prefix[sizeof(kMagic) + 8];
  std::memcpy(prefix, kMagic, sizeof(kMagic));
  for (int i = 0; i < 8; ++i) prefix[sizeof(kMagic) + i] = static_cast<char>(uint64_t(header.size()) >> (8 * i));
  write_all(fd, prefix, sizeof(prefix), 0, what);
  write_all(fd, header.data(), header.size(), sizeof(prefix), what);
  uint64_t end = offsets.empty() ? sizeof(prefix) + header.size() : 0;
  for (size_t i = 0; i < arrays.size(); ++i) {
    write_all(fd, arrays[i].array.data(), arrays[i].array.nbytes(), offsets[i], what);
    end = offsets[i] + arrays[i].array.nbytes();
  }
  if (ftruncate(fd, static_cast<off_t>(end)) != 0)
    user_error("cannot size the tensor file ", what, ": ", std::strerror(errno));
}

void save_tensors(const std::string& path, const std::vector<NamedArray>& arrays) {
  std::string temp = path + ".tmp" + std::to_string(getpid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) user_error("cannot create '", temp, "' to save tensors: ", std::strerror(errno));
  try {
    write_tensors(fd, arrays, "'" + path + "'");
    if (fsync(fd) != 0) user_error("cannot write the tensor file '", path, "': ", std::strerror(errno));
  } catch (...) {
    close(fd);
    unlink(temp.c_str());
    throw;
  }
  if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    unlink(temp.c_str());
    user_error("cannot write the tensor file '", path, "': ", std::strerror(error));
  }
}

std::vector<NamedArray> map_tensors(int fd, const std::string& what) {
  struct stat info{};
  if (fstat(fd, &info) != 0) user_error("cannot read the tensor file ", what, ": ", std::strerror(errno));
  auto map = std::make_shared<Mapping>();
  map->size = static_cast<size_t>(info.st_size);
  if (map->size == 0) corrupt(what, "empty file");
  void* base = mmap(nullptr, map->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) user_error("cannot map the tensor file ", what, ": ", std::strerror(errno));
  map->base = base;
  return parse_mapped(map, what);
}

std::vector<NamedArray> load_tensors(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) user_error("cannot open the tensor file '", path, "': ", std::strerror(errno));
  try {
    std::vector<NamedArray> arrays = map_tensors(fd, "'" + path + "'");
    close(fd);
    return arrays;
  } catch (...) {
    close(fd);
    throw;
  }
}

}  // namespace tessel
