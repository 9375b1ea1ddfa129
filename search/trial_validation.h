// Checking trial records that come from outside (`tessel records import`, JSON lines written by
// `records export` of this or an earlier Tessel, or by hand) against the task each claims to belong
// to, so that nothing a later tune, resume or lookup trusts can be poisoned by an import: a
// candidate outside the space, a configuration given as a string, unknown knobs, an index that does
// not match its knob values, negative or non-finite times, a workload key that is not the
// workload's. Lines from before schema 3 (no workload key, target, batch or candidate) are
// completed: their key computed, their target unknown.
//
// read_trial_line is the unit a fuzzer drives: it never crashes on any input, and throws UserError
// for every line it refuses.
//
//   TaskCatalog tasks;
//   std::vector<TrialRecord> records = read_trial_lines(in, "runs.jsonl", tasks);   // or throws "runs.jsonl:7: ..."
#pragma once
#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "search/records/trial_record.h"
#include "search/task/task.h"

namespace tessel::search {

// The tasks records name, each created once: (workload, space, target) -> Task. A record of an
// unknown target is checked against the host's task.
class TaskCatalog {
 public:
  const Task& task(const std::string& workload, const std::string& space, const std::string& target_key);

 private:
  std::map<std::string, std::unique_ptr<Task>> tasks_;
};

// One JSON line as a checked trial record. Throws UserError saying what is wrong (without a line
// number: the caller knows it).
TrialRecord read_trial_line(const std::string& line, TaskCatalog& tasks);

// Every non-blank line of `in`, all checked before any is returned; throws UserError
// "<source>:<line>: what is wrong" at the first bad line.
std::vector<TrialRecord> read_trial_lines(std::istream& in, const std::string& source, TaskCatalog& tasks);

}  // namespace tessel::search
