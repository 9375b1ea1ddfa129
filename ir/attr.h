// Attribute keys: the meaning of an attribute statement (AttrStmt in ir/stmt.h), which says "this
// region is special" with a key, the subject it refers to and a value, over a body (TVM's
// AttrStmt). Each key is declared once with the kind of subject it takes and whether it is a
// hint: a back end that does not know a hint runs the body as if the attribute were absent; any
// other unknown key makes it refuse the function. Built-in keys:
//
//   thread_extent   subject: a thread tag ("threadIdx.x", "blockIdx.y"); value: the number of
//                   threads. Wraps the ThreadBinding loop of that tag (Stage::bind).
//   virtual_thread  subject: the tag "vthread"; value: the number of virtual threads, which an
//                   accelerator or GPU pass interleaves. Wraps the ThreadBinding loop of that tag.
//   pragma_<name>   no subject; value: the pragma's argument. A hint about the loop it wraps
//                   (Stage::pragma).
//
// A key ending in '_' is a prefix: it declares every key that starts with it. Later layers add
// keys with register_attr_key (a GPU "storage_sync" scope, an accelerator's "coproc_scope").
#pragma once
#include <string>
#include <variant>
#include <vector>

#include "ir/expr.h"

namespace tessel {

// What an attribute is about: nothing (the statement it wraps), a variable, a buffer, or a name
// such as a thread tag.
using AttrSubject = std::variant<std::monostate, Var, Buffer, std::string>;
enum class AttrSubjectKind : uint8_t { None, Var, Buffer, Name };  // the variant's alternatives, in order
AttrSubjectKind subject_kind(const AttrSubject& subject);
const char* subject_kind_name(AttrSubjectKind kind);  // "no subject", "a variable", ...

struct AttrKey {
  std::string name;  // the key, or a prefix ending in '_'
  AttrSubjectKind subject = AttrSubjectKind::None;
  bool hint = false;        // back ends may ignore it (and run the body as is) when they do not know it
  std::string description;  // one line, for messages
};

namespace attr {
inline constexpr const char* kThreadExtent = "thread_extent";
inline constexpr const char* kVirtualThread = "virtual_thread";
inline constexpr const char* kPragmaPrefix = "pragma_";
}  // namespace attr

// Adds a key; throws UserError if it is taken.
const AttrKey& register_attr_key(AttrKey key);
// The declaration of `key` (an exact entry, else the longest prefix entry it starts with); throws
// UserError listing the known keys.
const AttrKey& attr_key(const std::string& key);

// The thread tags Stage::bind accepts: threadIdx.{x,y,z}, blockIdx.{x,y,z} and vthread.
const std::vector<std::string>& thread_tags();
inline constexpr const char* kVirtualThreadTag = "vthread";

}  // namespace tessel
