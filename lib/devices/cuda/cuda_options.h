// SPDX-License-Identifier: MIT
#pragma once
// Settings of the CUDA plugin read from the environment once, when the plugin's reg is created.
//
//   BK_CUDA_TF32=1   F32 MUL_MAT on TF32 tensor cores (10-bit mantissa operands, F32
//                    accumulation): several times faster, less precise. Default 0: full F32.
//                    A backend can also switch it with the reg's proc_address("cuda_set_tf32").

namespace bk {

struct CudaOptions {
  bool tf32 = false;
};

// Throws Error(invalid_argument) naming the variable when a value is neither 0 nor 1.
CudaOptions cuda_options_from_env();

}  // namespace bk
