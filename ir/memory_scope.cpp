// The table of memory scopes (see memory_scope.h) with the built-in ones.
#include "ir/memory_scope.h"

#include "ir/named_table.h"

namespace tessel {

namespace {

// Never destroyed: IR nodes in static objects may point to its entries until the very end.
NamedTable<MemoryScopeInfo>& scopes() {
  static NamedTable<MemoryScopeInfo>* table = [] {
    auto* t = new NamedTable<MemoryScopeInfo>("memory scope");
    t->add({"global", "memory every thread sees: function arguments and heap buffers", true});
    t->add({"local", "a function's (or a thread's) own temporaries", true});
    t->add({"shared", "memory shared by the threads of a GPU block", false});
    t->add({"warp", "registers of a GPU warp, exchanged by shuffles", false});
    return t;
  }();
  return *table;
}

}  // namespace

MemoryScope::MemoryScope(const std::string& name)
    : info_(&scopes().get(name, "a layer adds its own with register_memory_scope")) {}

MemoryScope MemoryScope::global() {
  static const MemoryScope scope("global");
  return scope;
}

MemoryScope MemoryScope::local() {
  static const MemoryScope scope("local");
  return scope;
}

MemoryScope register_memory_scope(MemoryScopeInfo info) {
  const std::string name = info.name;
  scopes().add(std::move(info));
  return MemoryScope(name);
}

std::vector<std::string> memory_scope_names() { return scopes().names(); }

}  // namespace tessel
