// SPDX-License-Identifier: MIT
#include "probe/fleet_outliers.h"

#include <map>
#include <utility>

#include "probe/stats.h"

namespace bk {
std::vector<FleetOutlier> find_outliers(const std::vector<FleetMeasure>& measures, double threshold) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> groups;
  for (const FleetMeasure& m : measures) groups[{m.description, m.test}].push_back(m.gflops);
  std::vector<FleetOutlier> out;
  for (const FleetMeasure& m : measures) {
    const std::vector<double>& group = groups.at({m.description, m.test});
    if (group.size() < 2) continue;
    const double median = summarize(group).median;
    const double below = median > 0 ? 1 - m.gflops / median : 0;
    if (below > threshold) out.push_back({m, median, below, group.size()});
  }
  return out;
}

}  // namespace bk
