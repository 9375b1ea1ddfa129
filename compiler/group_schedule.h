// How a fused group of a model is scheduled, chosen visibly: the tuned configuration of its
// anchor's workload (compiler/anchor_workload.h) from a records database, else the configuration
// of the nearest shape of the same operator when its knob values fit, else the anchor's default
// schedule. A configuration is applied only when the group's anchor is the very stage its template
// schedules (ScheduleTemplate::kernel_mismatch: the anchor's stage, or a fused block's chain of
// convolutions); otherwise the group runs its default and the
// choice says why. Records are found by the anchor operator's workload key, never by the fused
// expression, so a change to a fusion pass does not orphan a database. A record whose final
// selection chose the template's default runs today's default schedule.
//
//   search::TunedRecords records = search::TunedRecords::read("runs.db");
//   GroupSchedule choice = choose_group_schedule(g, group, output, kernel, target, &records);
//   std::cout << choice.label();   // "tuned (record #42)", "nearest (record #7 of shape ...)", "default (...)"
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/graph/graph.h"
#include "ir/schedule.h"
#include "ops/graph/fused_kernel.h"
#include "passes/graph/fused_group.h"
#include "search/spaces/schedule_template.h"
#include "search/tuned_config.h"
#include "target/target.h"

namespace tessel {

struct GroupSchedule {
  std::string status = "default";  // "tuned", "nearest" or "default"
  std::string workload;            // the anchor's workload ("conv2d:1,64,56,56,64,3,1,1"); empty: none
  double flops = 0;                // the workload's nominal operations, for profiles; 0: none
  std::string record;              // the record applied (or found and refused): its point, "#42"
  std::string record_shape;        // "nearest": the shape the record was tuned for
  std::string reason;              // "default" with a workload: why no record applied
  std::string anchor_tag;          // the stage the default schedule is registered for
  // The record is a final selection's choice of the template's default: the group runs today's
  // default schedule (no `schedule`), which may differ from the default of the day it was tuned.
  bool default_won = false;
  std::optional<Schedule> schedule;  // the tuned schedule, inlining done; none: use the default
  // The kernel the tuned schedule is for, when the configuration changes the computation (a dense
  // anchor packed with the configuration's panel width), the group's prefetches included; none:
  // the kernel given.
  std::optional<ops::GroupKernel> kernel;

  bool tunable() const { return !workload.empty(); }
  // "tuned (record #42)", "nearest (record #7 of shape conv2d:1,64,56,56,64,3,1,1)",
  // "default (conv2d_nchwc)", "default (conv2d; no record for conv2d:...)".
  std::string label() const;
  nlohmann::json to_json() const;  // status, workload, record, record_shape, reason, default_won (those set)
};

// The schedule of `kernel`, the kernel of `group` of `g` computing `output`, for `target`, from
// `records` (null: no database, every group its default).
GroupSchedule choose_group_schedule(const graph::Graph& g, const graph::FusedGroup& group, graph::ValueId output,
                                    const ops::GroupKernel& kernel, const Target& target,
                                    const search::TunedRecords* records);

// `choice` with its record set aside: the group's default schedule, `why` as the reason.
GroupSchedule set_aside(GroupSchedule choice, const std::string& why);

// The stages of `kernel` a schedule template sees (ScheduleTemplate::kernel_mismatch, schedule_kernel).
search::KernelStages kernel_stages(const ops::GroupKernel& kernel);

}  // namespace tessel
