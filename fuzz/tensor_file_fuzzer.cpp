// libFuzzer target: the tensor file reader (runtime/tensor_file.h map_tensors), which maps a
// module's params.bin and the measurement runner's inputs. Whatever the bytes, it gives arrays
// that lie inside the file or a UserError; accepted arrays written again (write_tensors) map back
// with the same names, element types, shapes and bytes. Anything else (a crash, a sanitizer report,
// another exception) is a bug.
// Seeds: seeds/tensor_file/, small files save_tensors wrote.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/tensor_file.h"
#include "support/error.h"

namespace {

// An anonymous in-memory file holding `size` bytes of `data`.
int memory_file(const uint8_t* data, size_t size) {
  int fd = memfd_create("tessel_fuzz_tensors", MFD_CLOEXEC);
  TESSEL_CHECK(fd >= 0, "memfd_create failed");
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    TESSEL_CHECK(n > 0, "cannot write the memory file");
    done += static_cast<size_t>(n);
  }
  return fd;
}

std::vector<tessel::NamedArray> map_bytes(const uint8_t* data, size_t size) {
  int fd = memory_file(data, size);
  try {
    std::vector<tessel::NamedArray> arrays = tessel::map_tensors(fd, "fuzz.bin");
    close(fd);
    return arrays;
  } catch (...) {
    close(fd);
    throw;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<tessel::NamedArray> arrays;
  try {
    arrays = map_bytes(data, size);
  } catch (const tessel::UserError&) {
    return 0;
  }
  for (const tessel::NamedArray& a : arrays) {
    // Reading every byte lets AddressSanitizer see an array that reaches past the mapping.
    std::vector<char> copy(a.array.nbytes());
    if (!copy.empty()) std::memcpy(copy.data(), a.array.data(), copy.size());
  }
  int fd = memfd_create("tessel_fuzz_tensors_again", MFD_CLOEXEC);
  TESSEL_CHECK(fd >= 0, "memfd_create failed");
  tessel::write_tensors(fd, arrays, "written again");
  std::vector<tessel::NamedArray> again = tessel::map_tensors(fd, "written again");
  close(fd);
  TESSEL_CHECK(again.size() == arrays.size(), arrays.size(), " arrays came back as ", again.size());
  for (size_t i = 0; i < arrays.size(); ++i) {
    const tessel::NDArray &a = arrays[i].array, &b = again[i].array;
    TESSEL_CHECK(again[i].name == arrays[i].name && b.dtype() == a.dtype() && b.shape() == a.shape(), "array ", i,
                 " changed: ", arrays[i].name, " ", a.dtype().str(), tessel::shape_str(a.shape()), " came back as ",
                 again[i].name, " ", b.dtype().str(), tessel::shape_str(b.shape()));
    TESSEL_CHECK(std::memcmp(a.data(), b.data(), a.nbytes()) == 0, "the bytes of array ", i, " changed");
  }
  return 0;
}
