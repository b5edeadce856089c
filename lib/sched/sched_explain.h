// SPDX-License-Identifier: MIT
#pragma once
// Words for the decision record (sched_report.h): the sentence for a tensor's cause, and why a
// higher-priority backend did not get it. Both read the final state of a schedule.

#include <string>

#include "bk/sched_report.h"
#include "sched/sched_state.h"

namespace bk {

std::string node_sentence(const SchedState& s, int32_t id);
// Why backend b (of higher priority than the chosen one) does not have tensor id.
PassedOver passed_over(const SchedState& s, int32_t id, int b);

}  // namespace bk
