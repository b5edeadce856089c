// SPDX-License-Identifier: MIT
// Fleet mode's bad-node signal: results far below the median of the same device model and test.
#include "probe/fleet_outliers.h"

#include <gtest/gtest.h>

namespace bk {
namespace {

FleetMeasure measure(int rank, std::string model, std::string test, double gflops) {
  return {rank, "node" + std::to_string(rank), "CUDA0", std::move(model), std::move(test), gflops};
}

TEST(FleetOutliers, ANodeFarBelowItsModelsMedianIsNamed) {
  const std::vector<FleetMeasure> measures = {measure(0, "H100", "matmul", 100), measure(1, "H100", "matmul", 98),
                                              measure(2, "H100", "matmul", 80), measure(3, "H100", "matmul", 101)};
  const auto outliers = find_outliers(measures, 0.15);
  ASSERT_EQ(outliers.size(), 1u);
  EXPECT_EQ(outliers[0].measure.rank, 2);
  EXPECT_DOUBLE_EQ(outliers[0].fleet_median, 99);
  EXPECT_NEAR(outliers[0].below, 19.0 / 99, 1e-12);
  EXPECT_EQ(outliers[0].group_size, 4u);
  EXPECT_TRUE(find_outliers(measures, 0.25).empty()) << "19% is within a 25% threshold";
}

TEST(FleetOutliers, ModelsAndTestsAreComparedOnlyWithThemselves) {
  // A slower model is not an outlier among faster ones, a device alone is never one, and the
  // sustained run is not compared with the short matmul.
  const std::vector<FleetMeasure> measures = {measure(0, "H100", "matmul", 100), measure(1, "H100", "matmul", 100),
                                              measure(2, "A10", "matmul", 30), measure(3, "A10", "matmul", 31),
                                              measure(4, "L4", "matmul", 5), measure(0, "H100", "sustained", 50),
                                              measure(1, "H100", "sustained", 49)};
  EXPECT_TRUE(find_outliers(measures, 0.15).empty());
}

}  // namespace
}  // namespace bk
