// SPDX-License-Identifier: MIT
#pragma once
// The capability matrix behind `bkctl ops`: for every op of the op set in every float dtype it
// takes (cpy: every source -> destination pair), a small probe node built with core/ops.h, and
// what each device answers for it (supports_op, unsupported_reason). Probes are only described,
// never allocated or computed, so building the matrix is cheap.

#include <string>
#include <vector>

#include "bk/device.h"
#include "bk/dtype.h"
#include "bk/op.h"

namespace bkctl {

struct OpProbe {
  bk::Op op;
  bk::DType dtype;    // the dtype the op is about: a's, mul_mat's weights, get_rows' table, cpy's source
  bk::DType to;       // cpy: the destination dtype; otherwise equal to dtype
  std::string label;  // "f16", or "f16->bf16" for cpy
};

struct OpVerdict {
  bool supported = false;
  std::string reason;  // empty when supported
};

// Every probe, ops in op.h order, dtypes f32, f16, bf16.
std::vector<OpProbe> op_probes();
// What `device` answers for the probe. Throws nothing a device's supports_op does not throw.
OpVerdict probe_device(const bk::Device& device, const OpProbe& probe);

}  // namespace bkctl
