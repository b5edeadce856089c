// SPDX-License-Identifier: MIT
#version 450
// f0: the factor.
#include "common.glsl"
#define OP(x, y) ((x) * args.f0)
#include "elementwise.glsl"
