// SPDX-License-Identifier: MIT
// The roofline's content for one device: see roofline_data.h.
#include "commands/bench/roofline_data.h"

#include <algorithm>

namespace bkctl::roofline {
namespace {

bool ok(const BenchResult& r) { return r.status == BenchStatus::ok && r.stats.median > 0; }

double achieved_gflops(const BenchResult& r) {
  if (r.unit == "GFLOP/s") return r.stats.median;
  if (r.unit == "GB/s") return r.stats.median * r.flops / r.bytes;
  if (r.unit == "eval/s") return r.stats.median * r.flops / 1e9;
  return 0;
}

// The dtype a point is coloured by. The memory tests (add, cpy) compute on f32 elements
// (plan.cpp), so they are f32 work; a whole graph mixes dtypes and gets a colour of its own.
std::string point_dtype(const BenchTest& test) {
  if (!test.dtype.empty()) return test.dtype;
  return test.group == "graph" ? "graph" : "f32";
}

std::vector<DataPoint> points_of(const DeviceBench& bench) {
  std::vector<DataPoint> points;
  for (const BenchResult& r : bench.results) {
    // The peak kernel is a ceiling, not a point: its FLOP per byte is meaningless.
    if (!ok(r) || r.flops <= 0 || r.bytes <= 0 || r.test.group == "peak") continue;
    const double g = achieved_gflops(r);
    if (g > 0) points.push_back({r.test.id(), point_dtype(r.test), r.flops / r.bytes, g});
  }
  return points;
}

// The best ok result of `group` (and `dtype`, where given): the one a "best measured" peak
// names. run.cpp's derive_peaks picks it the same way, so its median is the peak's value.
const BenchResult* best_of(const DeviceBench& bench, const std::string& group, const std::string& dtype) {
  const BenchResult* best = nullptr;
  for (const BenchResult& r : bench.results) {
    if (!ok(r) || r.test.group != group || (!dtype.empty() && r.test.dtype != dtype)) continue;
    if (best == nullptr || r.stats.median > best->stats.median) best = &r;
  }
  return best;
}

// Both ceilings of a dtype where they differ: the peak kernel's (what the ALUs sustain on FMA
// chains) and, where a mul_mat beat it, that mul_mat's, which the peaks (and every fraction)
// use. Drawing only the higher one would hide the kernel's.
void add_ceilings(const DeviceBench& bench, const Peak& peak, std::vector<Ceiling>& out) {
  const BenchResult* kernel = best_of(bench, "peak", peak.name);
  if (kernel != nullptr) out.push_back({peak.name, false, kernel->test.id(), kernel->stats.median});
  if (peak.source == "peak kernel") return;
  const BenchResult* best = best_of(bench, "mul_mat", peak.name);
  if (best != nullptr) out.push_back({peak.name, true, best->test.id(), peak.value});
}

}  // namespace

namespace {

// Every dtype a point can have, in legend order, with its colour (graphs: mixed dtypes).
struct DtypeStyle {
  std::string_view dtype;
  const char* color;
};
constexpr DtypeStyle kStyles[] = {{"f32", "#1f77b4"},  {"f16", "#d62728"},  {"bf16", "#2ca02c"},
                                  {"q8_0", "#9467bd"}, {"q4_0", "#ff7f0e"}, {"q4_k", "#8c564b"},
                                  {"q6_k", "#e377c2"}, {"graph", "#7f7f7f"}};

}  // namespace

const char* dtype_color(const std::string& dtype) noexcept {
  for (const DtypeStyle& s : kStyles) {
    if (s.dtype == dtype) return s.color;
  }
  return "#17becf";  // a dtype this table does not know yet
}

int dtype_rank(const std::string& dtype) noexcept {
  for (size_t i = 0; i < std::size(kStyles); ++i) {
    if (kStyles[i].dtype == dtype) return static_cast<int>(i);
  }
  return static_cast<int>(std::size(kStyles));
}

DeviceRoof device_roof(const DeviceBench& bench) {
  DeviceRoof roof{bench.device->name(), bench.device->description(), points_of(bench), {}, 0, ""};
  for (const Peak& p : bench.peaks) {
    if (p.value <= 0) continue;
    if (p.unit == "GFLOP/s") {
      add_ceilings(bench, p, roof.ceilings);
    } else if (p.name == "bandwidth") {
      roof.bandwidth = p.value;
      const BenchResult* best = best_of(bench, "bandwidth", "");
      roof.bandwidth_test = best != nullptr ? best->test.id() : "";
    }
  }
  std::stable_sort(roof.ceilings.begin(), roof.ceilings.end(),
                   [](const Ceiling& a, const Ceiling& b) { return a.gflops > b.gflops; });
  return roof;
}

}  // namespace bkctl::roofline
