// The check every layer's error tests share: an action must throw tessel::UserError whose message
// names what went wrong (each fragment must appear in it), never crash or succeed.
#pragma once
#include <initializer_list>
#include <string>

#include <catch2/catch.hpp>

#include "support/error.h"

namespace tessel::test {

template <typename F>
void require_user_error(F action, std::initializer_list<const char*> fragments) {
  try {
    action();
  } catch (const UserError& e) {
    std::string msg = e.what();
    INFO("message: " << msg);
    for (const char* fragment : fragments) CHECK(msg.find(fragment) != std::string::npos);
    return;
  }
  FAIL("expected a UserError");
}

template <typename F>
void require_user_error(F action, const char* fragment) {
  require_user_error(action, {fragment});
}

}  // namespace tessel::test
