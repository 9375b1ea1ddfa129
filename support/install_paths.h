// Where an installed Tessel keeps its data files (the recorded sets, the plot script): share/tessel
// beside the lib/ folder that holds libtessel; and its helper programs (tessel-runner): bin/ beside
// lib/, or libtessel's own folder in a build tree. Both are found from libtessel's own location at
// run time, not from the install prefix compiled in, so an installed tree works wherever it is
// copied to.
#pragma once
#include <filesystem>
#include <string>

namespace tessel {

// <prefix>/share/tessel when libtessel is loaded from <prefix>/lib and that folder exists; else empty
// (e.g. when running from a build tree, whose files are found in the source tree instead).
std::filesystem::path installed_data_dir();

// The program `name` that comes with this libtessel: <libtessel's folder>/name (a build tree) or
// <libtessel's folder>/../bin/name (an installed tree), whichever exists first; else empty.
std::filesystem::path installed_program(const std::string& name);

}  // namespace tessel
