// SPDX-License-Identifier: MIT
// libbk-cuda.so's entry point: the registry calls it once and gets the CUDA reg.
#include "bk/plugin_api.h"
#include "devices/cuda/cuda_reg.h"

BK_PLUGIN_ENTRY(bk::cuda_reg)
