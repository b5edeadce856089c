// SPDX-License-Identifier: MIT
#pragma once
// NMSE: the one comparison of a device's output with the float64 reference
// (verify/reference.h), against a limit from verify/limits.h. The conformance suite, `bkctl
// smoke`, `bkctl bench` and `bkctl sched --run` all judge with it.
//
// The rule, for got (what the device computed) and want (the reference), element by element:
//   NMSE = sum (got - want)^2 / sum want^2, or the plain sum of squared differences when want is
//   all zeros (+0 or -0: a zero reference asks for zeros; -0.0 and 0.0 are equal).
//   - A NaN or an infinity in got never passes, whatever the limit, except an infinity that
//     equals want's at the same place (a masked score that stays -inf).
//   - A non-finite want never passes either: a NaN, or an infinity that got does not match, means
//     the case or the reference is broken, not the device. A matched infinity adds nothing to
//     either sum.
//   - A finite got so far off that the squares overflow gives NMSE +inf: it fails.
//   - It passes when NMSE <= limit, so a limit of 0 admits only exact values.
// An empty output, or got and want of different lengths, is the caller's mistake, not a
// verdict: Error(invalid_argument).
//
// Pure: no state, safe from any thread.

#include <cstddef>
#include <span>
#include <string>

#include "bk/tensor.h"

namespace bk::verify {

struct NmseCheck {
  double nmse = 0;  // NaN when a non-finite element decided the verdict (no NMSE exists)
  double limit = 0;
  bool ok = false;
  size_t worst = 0;     // the element the message names, in logical order
  std::string message;  // why it failed: the tensor, the worst element, its value and the
                        // reference's; empty when ok
};

// Compares got with want, both in logical order (element (i0, i1, i2, i3) at
// i0 + ne0 * (i1 + ne1 * (i2 + ne2 * i3))). `output` only names the tensor and the element's
// index in messages; its shape should hold got.size() elements.
NmseCheck check_nmse(std::span<const double> got, std::span<const double> want, double limit,
                     const Tensor& output);

}  // namespace bk::verify
