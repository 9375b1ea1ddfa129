// Catch2 entry point shared by every per-layer test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
