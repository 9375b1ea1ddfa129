// The refusals shared by the CPU back ends (see cpu_contract.h).
#include "backends/cpu_contract.h"

#include "support/error.h"

namespace tessel {

void check_cpu_allocatable(const Buffer& buffer, const std::string& backend) {
  const MemoryScopeInfo& scope = buffer.scope().info();
  if (scope.cpu_allocatable) return;
  user_error("the ", backend, " back end cannot allocate buffer '", buffer.name(), "' in memory scope '", scope.name,
             "' (", scope.description, "); CPU back ends allocate 'global' and 'local' buffers: ",
             "drop the stage's set_scope or compile for a target that has this memory");
}

void refuse_thread_binding(const For& loop, const std::string& backend) {
  user_error("the ", backend, " back end cannot run loop '", loop.var.name(), "' bound to ", loop.thread_tag,
             ": CPU back ends have no GPU threads; remove the bind() or compile for a GPU target");
}

void check_cpu_attr(const AttrStmt& attr, const std::string& backend) {
  const AttrKey& key = attr_key(attr.key);
  if (key.hint) return;
  std::string subject;
  if (auto* name = std::get_if<std::string>(&attr.subject)) subject = " of " + *name;
  user_error("the ", backend, " back end cannot generate attribute '", attr.key, "'", subject, " (",
             key.description, "); it is for GPU or accelerator targets");
}

void refuse_intrinsic(const Intrinsic& intrinsic, const std::string& backend, const std::string& implemented) {
  user_error("the ", backend, " back end does not implement intrinsic '", intrinsic.name, "' (",
             intrinsic.description, "); it implements ", implemented);
}

}  // namespace tessel
