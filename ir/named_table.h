// A small table of named facts that the IR declares and later layers extend: the intrinsics
// (ir/intrinsic.h), the memory scopes (ir/memory_scope.h) and the attribute keys (ir/attr.h).
// Unlike the plugin registry (support/registry.h), whose entries are components created with
// parameters, these entries are plain descriptions that IR nodes point to. Entries are never
// removed or moved, so a pointer to one stays valid for the life of the process; adding and
// finding are safe from several threads (plugins may register while other threads compile).
#pragma once
#include <algorithm>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "support/error.h"

namespace tessel {

// Info must have a `std::string name` member.
template <typename Info>
class NamedTable {
 public:
  // `what` names an entry in messages: "intrinsic", "memory scope", "attribute key".
  explicit NamedTable(std::string what) : what_(std::move(what)) {}

  // Adds an entry; throws UserError if the name is empty or already taken.
  const Info& add(Info info) {
    std::lock_guard lock(mutex_);
    if (info.name.empty()) user_error("a ", what_, " needs a non-empty name");
    if (find_locked(info.name))
      user_error(what_, " '", info.name, "' is already registered; choose another name");
    return entries_.emplace_back(std::move(info));
  }

  // The entry named `name`, or nullptr.
  const Info* find(const std::string& name) const {
    std::lock_guard lock(mutex_);
    return find_locked(name);
  }

  // The entry named `name`; throws UserError listing the known names (and `hint`, if given).
  const Info& get(const std::string& name, const std::string& hint = "") const {
    if (const Info* info = find(name)) return *info;
    std::string known;
    for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
    user_error("unknown ", what_, " '", name, "'; known: ", known, hint.empty() ? "" : "; " + hint);
  }

  // Every name, in registration order.
  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> result;
    for (const Info& e : entries_) result.push_back(e.name);
    return result;
  }

 private:
  const Info* find_locked(const std::string& name) const {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Info& e) { return e.name == name; });
    return it == entries_.end() ? nullptr : &*it;
  }

  std::string what_;
  mutable std::mutex mutex_;
  std::deque<Info> entries_;
};

}  // namespace tessel
