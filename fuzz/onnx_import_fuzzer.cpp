// libFuzzer target: the ONNX importer on arbitrary bytes. Bad input must end as a UserError (the
// one-line message tools print); a crash, a sanitizer report, a hang or any other exception (an
// InternalError is a Tessel bug) is a finding. Seed it with the exported models (build/models/*.onnx)
// and the ONNX node tests' models (/usr/share/libonnx-testdata/data/node/*/model.onnx).
#include <cstddef>
#include <cstdint>

#include "frontends/onnx/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tessel::graph::Graph graph = tessel::frontend::import_onnx_bytes(data, size, "fuzz input");
    (void)graph;
  } catch (const tessel::UserError&) {
    // the expected answer to a malformed or unsupported model
  }
  return 0;
}
