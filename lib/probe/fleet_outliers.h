// SPDX-License-Identifier: MIT
#pragma once
// The classic bad-node signal of a fleet run (`mpirun ... bkctl smoke`): a device measured well
// below the same kind of device on the other nodes. Measurements are grouped by device model
// (its description) and test (matmul, sustained); within a group of two or more, a measurement
// more than `threshold` below the group's median is an outlier. Pure functions.

#include <string>
#include <vector>

namespace bk {

struct FleetMeasure {
  int rank = 0;
  std::string host;
  std::string device;       // "CUDA0"
  std::string description;  // the model: "NVIDIA H200"
  std::string test;         // "matmul", "sustained"
  double gflops = 0;        // the check's median
};

struct FleetOutlier {
  FleetMeasure measure;
  double fleet_median = 0;  // of its group
  double below = 0;         // 1 - gflops / fleet_median
  size_t group_size = 0;
};

// In the measures' order.
std::vector<FleetOutlier> find_outliers(const std::vector<FleetMeasure>& measures, double threshold);

}  // namespace bk
