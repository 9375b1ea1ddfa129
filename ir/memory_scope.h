// Memory scopes: where a buffer lives. The set is open and named, as in TVM's storage scopes:
// "global" (function arguments and heap memory every thread sees), "local" (a function's own
// temporaries), "shared" (memory shared by the threads of a GPU block), "warp" (a GPU warp's
// registers); later layers register theirs (an accelerator's "vta.inp_buffer"). A scope says which
// back ends can allocate a temporary in it; the CPU back ends allocate "global" and "local" and
// refuse the others with a message naming the scope.
//
//   Buffer tile("A.shared", DataType::float32(), MemoryScope("shared"));
//   register_memory_scope({"vta.acc_buffer", "the accelerator's accumulator SRAM", false});
#pragma once
#include <string>
#include <vector>

namespace tessel {

struct MemoryScopeInfo {
  std::string name;
  std::string description;   // one line, for messages: "memory shared by the threads of a GPU block"
  bool cpu_allocatable = false;  // whether a CPU back end can allocate a temporary buffer in it
};

// A registered scope. Cheap to copy; two scopes are equal when they name the same entry.
class MemoryScope {
 public:
  // The scope registered as `name`; throws UserError listing the known scopes otherwise.
  explicit MemoryScope(const std::string& name);
  static MemoryScope global();
  static MemoryScope local();

  const std::string& name() const { return info_->name; }
  const MemoryScopeInfo& info() const { return *info_; }
  bool operator==(const MemoryScope& other) const { return info_ == other.info_; }

 private:
  explicit MemoryScope(const MemoryScopeInfo* info) : info_(info) {}
  const MemoryScopeInfo* info_;
};

// Adds a scope; throws UserError if its name is taken.
MemoryScope register_memory_scope(MemoryScopeInfo info);
std::vector<std::string> memory_scope_names();

}  // namespace tessel
