// What the CPU back ends (llvm_cpu, c_source) refuse of the loop IR, in one wording for both:
// buffers in a memory scope a CPU cannot allocate ("shared", an accelerator's SRAM), loops bound
// to GPU threads, attributes that are not hints, and intrinsics the back end does not implement.
// Each refusal is a UserError naming the back end, the construct and what to do instead.
#pragma once
#include <string>

#include "ir/intrinsic.h"
#include "ir/stmt.h"

namespace tessel {

// Throws unless the buffer's scope is one a CPU back end allocates (MemoryScopeInfo::cpu_allocatable).
void check_cpu_allocatable(const Buffer& buffer, const std::string& backend);
[[noreturn]] void refuse_thread_binding(const For& loop, const std::string& backend);
// Returns if the back end may run the attribute's body as if it were absent (a hint); throws otherwise.
void check_cpu_attr(const AttrStmt& attr, const std::string& backend);
// `implemented` lists the intrinsics the back end knows, for the message.
[[noreturn]] void refuse_intrinsic(const Intrinsic& intrinsic, const std::string& backend,
                                   const std::string& implemented);

}  // namespace tessel
