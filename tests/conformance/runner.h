// SPDX-License-Identifier: MIT
#pragma once
// Runs one conformance case on one device and decides its verdict. The gtest registration
// (conformance_main.cpp) maps verdicts onto passed / failed / skipped tests; keeping the
// decision here lets the suite's own tests check it with a test double device.

#include <cstdint>
#include <string>

#include "bk/device.h"
#include "cases.h"

namespace bk::conformance {

enum class Verdict {
  passed,
  failed,
  unsupported,       // the device declares a node unsupported: reported as skipped, with its reason
  expected_failure,  // failed, and the device declares it a known failure: reported as skipped
  unexpected_pass,   // passed although declared a known failure: fails the run
};
const char* verdict_name(Verdict verdict) noexcept;

struct Outcome {
  Verdict verdict = Verdict::failed;
  std::string message;  // names the device, the case, the node or output and the seed
};

// Builds the case's graph; asks the device about every node; places the graph in the device's
// memory, poisons it, writes fresh random inputs from `seed`, computes on `backend` (a stream of
// `device`), reads the outputs back and judges them against the float64 reference by NMSE, each
// against the graph's limit (probe/verify). Errors thrown by the device become a failed
// outcome; nothing escapes.
Outcome run_case(Device& device, Backend& backend, const Case& c, uint64_t seed);

// The seed for one run: $BK_CONFORMANCE_SEED when set (to replay a failure), else fresh.
uint64_t run_seed();

}  // namespace bk::conformance
