// libFuzzer target: `tessel records import`, the line-by-line reading of exported trials into a
// records database (search/records). Every line is a trial record or the whole import is refused
// with a UserError naming the line; accepted records are appended and read back unchanged.
// Any other exception, a crash or a sanitizer report is a bug.
// Seeds: exported records (seeds/records_import.jsonl, a few lines per seed).
//
// import_lines() below is the import as tools/records_command.cpp does it today; when the records
// layer exposes its validating line reader, call that instead.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "search/records/records_db.h"
#include "search/records/trial_record.h"
#include "support/error.h"

namespace {

using tessel::search::TrialRecord;

std::vector<TrialRecord> import_lines(const std::string& text) {
  std::vector<TrialRecord> records;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded()) tessel::user_error("fuzz.jsonl:", number, ": not a JSON object");
    records.push_back(TrialRecord::from_json(json));
  }
  return records;
}

// Every field a record keeps, without the time the database stamps on it.
nlohmann::ordered_json kept(const TrialRecord& r) {
  nlohmann::ordered_json json = r.to_json();
  json.erase("created_at");
  return json;
}

// One scratch database per fuzzing process, emptied before each input.
const std::string& scratch_db() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("tessel_fuzz_records_" + std::to_string(::getpid()) + ".db")).string();
  return path;
}

void remove_scratch() {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(scratch_db() + suffix);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<TrialRecord> records;
  try {
    records = import_lines(text);
  } catch (const tessel::UserError&) {
    return 0;
  }
  remove_scratch();
  try {
    tessel::search::RecordsDb db = tessel::search::RecordsDb::open(scratch_db());
    db.append(records);
    std::vector<TrialRecord> stored = db.all();
    TESSEL_CHECK(stored.size() == records.size(), records.size(), " records imported, ", stored.size(), " stored");
    for (size_t i = 0; i < records.size(); ++i)
      TESSEL_CHECK(kept(stored[i]) == kept(records[i]), "record ", i + 1, " changed in the database: ",
                   kept(records[i]).dump(), " came back as ", kept(stored[i]).dump());
  } catch (const tessel::UserError&) {
  }
  return 0;
}
