// libFuzzer target: the .npy reader (frontends/numpy/npy.h parse_npy), which `tessel run` and
// `bench-model` use on the arrays people hand them. Whatever the bytes, the reader gives an array
// or a UserError, and never allocates for data the bytes do not hold; an accepted array written
// again (npy_bytes) reads back with the same element type, shape and bytes. Anything else (a
// crash, a sanitizer report, another exception) is a bug.
// Seeds: seeds/npy/, small files NumPy wrote (every element type read, format versions 1 and 2).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "frontends/numpy/npy.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tessel::NDArray array;
  try {
    array = tessel::frontend::parse_npy(bytes, "fuzz.npy");
  } catch (const tessel::UserError&) {
    return 0;
  }
  TESSEL_CHECK(array.nbytes() <= size, "an array of ", array.nbytes(), " bytes from ", size, " bytes of file");
  tessel::NDArray again = tessel::frontend::parse_npy(tessel::frontend::npy_bytes(array), "written again");
  TESSEL_CHECK(again.dtype() == array.dtype(), array.dtype().str(), " came back as ", again.dtype().str());
  TESSEL_CHECK(again.shape() == array.shape(), tessel::shape_str(array.shape()), " came back as ",
               tessel::shape_str(again.shape()));
  TESSEL_CHECK(std::memcmp(again.data(), array.data(), array.nbytes()) == 0, "the data changed");
  return 0;
}
