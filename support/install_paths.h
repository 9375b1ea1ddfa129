// Where an installed Tessel keeps its data files (the recorded sets, the plot script): share/tessel
// beside the lib/ folder that holds libtessel. It is found from libtessel's own location at run time,
// not from the install prefix compiled in, so an installed tree works wherever it is copied to.
#pragma once
#include <filesystem>

namespace tessel {

// <prefix>/share/tessel when libtessel is loaded from <prefix>/lib and that folder exists; else empty
// (e.g. when running from a build tree, whose files are found in the source tree instead).
std::filesystem::path installed_data_dir();

}  // namespace tessel
