// SPDX-License-Identifier: MIT
#pragma once
// What the roofline (roofline_svg.cpp) draws for one device, taken from its results and peaks:
// the points, the compute ceilings and the bandwidth slope, each with where it comes from.

#include <string>
#include <vector>

#include "commands/bench/cli.h"

namespace bkctl::roofline {

// A test that does arithmetic, at its arithmetic intensity and achieved rate.
struct DataPoint {
  std::string label;  // the test id: "mul_mat/f16/512"
  std::string dtype;  // colour key: "f32", "f16", "bf16", or "graph" (mixed dtypes)
  double ai = 0;      // FLOP per byte moved
  double gflops = 0;  // achieved GFLOP/s
};

// A horizontal compute ceiling. A dtype has the peak kernel's ceiling, the best-measured one (a
// mul_mat that beat the kernel, or the only one where there is no kernel), or both.
struct Ceiling {
  std::string dtype;
  bool best_measured = false;  // false: the peak kernel
  std::string test;            // the test it comes from: "peak/f32", "mul_mat/f32/512"
  double gflops = 0;
};

struct DeviceRoof {
  std::string device;       // the device's name
  std::string description;  // for the panel's title
  std::vector<DataPoint> points;
  std::vector<Ceiling> ceilings;  // highest first
  double bandwidth = 0;           // GB/s; 0: nothing measured it
  std::string bandwidth_test;     // "add/4096"
};

DeviceRoof device_roof(const DeviceBench& bench);

// The fixed colour of a dtype, the same in every chart: f32 blue, f16 red, bf16 green, q8_0
// purple, q4_0 orange, q4_k brown, q6_k pink, graph grey.
const char* dtype_color(const std::string& dtype) noexcept;

// The order dtypes are listed in (legend, ceilings of equal value): floats, quantized, graph.
int dtype_rank(const std::string& dtype) noexcept;

}  // namespace bkctl::roofline
