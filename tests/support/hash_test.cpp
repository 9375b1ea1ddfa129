// FNV-1a (support/hash.h): the published test vectors, and hashing in pieces.
#include <catch2/catch.hpp>

#include "support/hash.h"

using namespace tessel;

TEST_CASE("fnv1a64 gives the published FNV-1a values", "[hash]") {
  CHECK(fnv1a64_hex("") == "cbf29ce484222325");
  CHECK(fnv1a64_hex("a") == "af63dc4c8601ec8c");
  CHECK(fnv1a64_hex("foobar") == "85944171f73967e8");
}

TEST_CASE("fnv1a64 of pieces equals that of the whole", "[hash]") {
  CHECK(fnv1a64("bar", fnv1a64("foo")) == fnv1a64("foobar"));
  CHECK(hex64(0) == "0000000000000000");
  CHECK(fnv1a64_hex(std::string("a\0b", 3)) != fnv1a64_hex("a"));
}
