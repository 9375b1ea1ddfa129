// `tessel records`: reads and moves the trials of a records database (search/records/).
//   tessel records list   --db FILE [--workload W] [--json]   every trial
//   tessel records best   --db FILE [--json]                  the fastest correct trial per task
//   tessel records chosen --db FILE [--json]                  the final selection's choice per task
//   tessel records export --db FILE [--out FILE]              JSON lines (stdout by default)
//   tessel records import --db FILE FILE.jsonl                appends JSON lines, each checked first
// Reading never writes to the database (an older schema is upgraded in memory); export reads a
// damaged file as far as it can, which is how one is recovered (docs/records.md).
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "search/records/records_db.h"
#include "search/trial_validation.h"
#include "search/spaces/workload_spec.h"
#include "support/error.h"
#include "tools/commands.h"

namespace tessel::tools {

namespace {

struct RecordsArgs {
  std::string db, workload, out, in;
  bool json = false;
};
using ArgsPtr = std::shared_ptr<RecordsArgs>;

search::RecordsDb open_existing(const std::string& path) {
  return search::RecordsDb::open(path, search::RecordsDb::Access::ReadOnly);
}

void print_rows(const std::vector<search::TrialRecord>& records, bool json) {
  if (json) {
    for (const auto& r : records) std::cout << r.to_json().dump() << "\n";
    return;
  }
  std::cout << std::left << std::setw(24) << "workload" << std::setw(22) << "target" << std::setw(10) << "space"
            << std::setw(30) << "strategy" << std::setw(6) << "seed" << std::setw(7) << "trial" << std::setw(15)
            << "status" << std::setw(12) << "median_us" << "GFLOP/s\n";
  for (const auto& r : records)
    std::cout << std::setw(24) << r.run.workload << std::setw(22) << r.run.target << std::setw(10) << r.run.space
              << std::setw(30) << r.run.strategy << std::setw(6) << r.run.seed << std::setw(7) << r.trial
              << std::setw(15) << search::status_name(r.result.status) << std::setw(12) << r.result.timing.median_us
              << r.gflops << "\n";
}

void list(const RecordsArgs& a) {
  search::RecordsDb db = open_existing(a.db);
  std::vector<search::TrialRecord> records = db.all();
  if (!a.workload.empty()) {  // by what it computes: C6 also lists the trials tuned as conv2d:1,128,...
    std::string key = search::parse_workload(a.workload).key();
    std::erase_if(records, [&](const search::TrialRecord& r) { return r.run.workload_key != key; });
  }
  print_rows(records, a.json);
}

void best(const RecordsArgs& a) { print_rows(open_existing(a.db).best_per_task(), a.json); }

void chosen(const RecordsArgs& a) {
  std::vector<search::SelectionRecord> choices = open_existing(a.db).chosen_per_task();
  if (a.json) {
    for (const auto& c : choices) std::cout << c.to_json().dump() << "\n";
    return;
  }
  std::cout << std::left << std::setw(24) << "workload" << std::setw(22) << "target" << std::setw(10) << "space"
            << std::setw(30) << "strategy" << std::setw(6) << "seed" << std::setw(10) << "config" << std::setw(9)
            << "origin" << std::setw(8) << "rounds" << std::setw(12) << "median_us" << "GFLOP/s\n";
  for (const auto& c : choices)
    std::cout << std::setw(24) << c.run.workload << std::setw(22) << c.run.target << std::setw(10) << c.run.space
              << std::setw(30) << c.run.strategy << std::setw(6) << c.run.seed << std::setw(10) << c.candidate.str()
              << std::setw(9) << c.origin << std::setw(8) << c.rounds << std::setw(12) << c.median_us << c.gflops
              << "\n";
}

void export_lines(const RecordsArgs& a) {
  search::RecordsDb db = open_existing(a.db);
  std::ofstream file;
  if (!a.out.empty()) {
    file.open(a.out);
    if (!file) user_error("cannot write '", a.out, "'");
  }
  std::ostream& out = a.out.empty() ? std::cout : file;
  size_t exported = 0;
  try {
    db.for_each([&](const search::TrialRecord& r) {
      out << r.to_json().dump() << "\n";
      ++exported;
    });
  } catch (const UserError& e) {
    out.flush();
    user_error("exported ", exported, " trials; the rest of '", a.db, "' cannot be read: ", e.what());
  }
}

void import_lines(const RecordsArgs& a) {
  std::ifstream in(a.in);
  if (!in) user_error("cannot read '", a.in, "'");
  search::TaskCatalog tasks;
  std::vector<search::TrialRecord> records = search::read_trial_lines(in, a.in, tasks);
  search::RecordsDb::open(a.db).append(records);  // all lines checked first: nothing half-imported
  std::cerr << "imported " << records.size() << " trials into " << a.db << "\n";
}

CLI::App* subcommand(CLI::App* parent, const char* name, const char* help, const ArgsPtr& args,
                     void (*action)(const RecordsArgs&)) {
  auto* cmd = parent->add_subcommand(name, help);
  cmd->add_option("--db", args->db, "records database")->required();
  cmd->callback([args, action] { action(*args); });
  return cmd;
}

}  // namespace

void add_records_command(CLI::App& app) {
  auto* records = app.add_subcommand("records", "list, rank, export and import tuning records");
  records->require_subcommand(1);
  auto args = std::make_shared<RecordsArgs>();
  auto* l = subcommand(records, "list", "every trial", args, list);
  l->add_option("--workload", args->workload, "only this workload");
  l->add_flag("--json", args->json, "one JSON object per trial");
  subcommand(records, "best", "the fastest correct trial of each task", args, best)
      ->add_flag("--json", args->json, "one JSON object per task");
  subcommand(records, "chosen", "the configuration each task's final selection chose (tessel tune --select)", args,
             chosen)
      ->add_flag("--json", args->json, "one JSON object per task");
  subcommand(records, "export", "every trial as JSON lines", args, export_lines)
      ->add_option("--out", args->out, "file to write (default: stdout)");
  subcommand(records, "import", "append trials from JSON lines", args, import_lines)
      ->add_option("file", args->in, "JSON-lines file")->required();
}

}  // namespace tessel::tools
