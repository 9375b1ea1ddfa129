// The table of attribute keys (see attr.h) with the built-in ones, and the thread tags.
#include "ir/attr.h"

#include "ir/named_table.h"

namespace tessel {

namespace {

// Never destroyed, like the other IR tables (ir/named_table.h).
NamedTable<AttrKey>& keys() {
  static NamedTable<AttrKey>* table = [] {
    auto* t = new NamedTable<AttrKey>("attribute key");
    t->add({attr::kThreadExtent, AttrSubjectKind::Name, false,
            "the number of GPU threads of a tag, around the loop bound to it"});
    t->add({attr::kVirtualThread, AttrSubjectKind::Name, false,
            "the number of virtual threads, around the loop bound to them"});
    t->add({attr::kPragmaPrefix, AttrSubjectKind::None, true, "a pragma on the loop it wraps"});
    return t;
  }();
  return *table;
}

}  // namespace

AttrSubjectKind subject_kind(const AttrSubject& subject) { return static_cast<AttrSubjectKind>(subject.index()); }

const char* subject_kind_name(AttrSubjectKind kind) {
  switch (kind) {
    case AttrSubjectKind::None: return "no subject";
    case AttrSubjectKind::Var: return "a variable";
    case AttrSubjectKind::Buffer: return "a buffer";
    case AttrSubjectKind::Name: return "a name";
  }
  return "?";
}

const AttrKey& register_attr_key(AttrKey key) { return keys().add(std::move(key)); }

const AttrKey& attr_key(const std::string& key) {
  if (const AttrKey* exact = keys().find(key)) return *exact;
  const AttrKey* best = nullptr;
  for (const std::string& name : keys().names()) {
    bool prefix = name.back() == '_' && key.size() > name.size() && key.compare(0, name.size(), name) == 0;
    if (prefix && (!best || name.size() > best->name.size())) best = keys().find(name);
  }
  if (best) return *best;
  return keys().get(key, "keys ending in '_' are prefixes; a layer adds its own with register_attr_key");
}

const std::vector<std::string>& thread_tags() {
  static const std::vector<std::string> tags = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
                                                "threadIdx.y", "threadIdx.z", kVirtualThreadTag};
  return tags;
}

}  // namespace tessel
