// SPDX-License-Identifier: MIT
#include "devices/cuda/cuda_options.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "bk/error.h"

namespace bk {

CudaOptions cuda_options_from_env() {
  CudaOptions options;
  if (const char* tf32 = std::getenv("BK_CUDA_TF32"); tf32 != nullptr && *tf32 != '\0') {
    const std::string value = tf32;
    if (value != "0" && value != "1") {
      throw Error(ErrorCode::invalid_argument, fmt::format("BK_CUDA_TF32='{}' must be 0 or 1", value));
    }
    options.tf32 = value == "1";
  }
  return options;
}

}  // namespace bk
