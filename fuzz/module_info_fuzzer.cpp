// libFuzzer target: the module metadata reader (runtime/module.h ModuleInfo::from_json), which
// reads the JSON a kernels.so carries when the runtime loads it. Whatever the text, it gives
// metadata whose argument shapes are sane or a UserError; accepted metadata written again
// (to_json) reads back the same. Anything else (a crash, a sanitizer report, another exception) is
// a bug. Seeds: seeds/module_info.txt, metadata of exported modules, one per line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/module.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  tessel::ModuleInfo info;
  try {
    info = tessel::ModuleInfo::from_json(text, "fuzz metadata");
  } catch (const tessel::UserError&) {
    return 0;
  }
  for (const tessel::FunctionInfo& f : info.functions)
    for (const tessel::ArgInfo& a : f.args) tessel::NDArray::checked_nbytes(a.shape, a.dtype);
  std::string written = info.to_json();
  TESSEL_CHECK(tessel::ModuleInfo::from_json(written, "written again").to_json() == written,
               "the metadata changed when read again: ", written);
  return 0;
}
