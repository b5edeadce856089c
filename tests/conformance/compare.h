#pragma once
// Compares a device's output with the reference by normalised mean squared error.

#include <string>

#include "bk/tensor.h"
#include "reference.h"

namespace bk::conformance {

struct Comparison {
  bool ok = false;
  double nmse = 0;
  std::string message;  // why it failed, naming the worst element; empty when ok
};

// NMSE = sum (got - want)^2 / sum want^2 (the plain sum when want is all zeros). A NaN or Inf
// in got never passes, whatever the limit; nor does a non-finite want (a broken case) unless
// got has the same infinity there. `output` only names the tensor in messages.
Comparison compare(const Tensor& output, const ref::Values& got, const ref::Values& want, double limit);

}  // namespace bk::conformance
