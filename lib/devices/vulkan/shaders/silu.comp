// SPDX-License-Identifier: MIT
#version 450
#include "common.glsl"
float silu(float x) { return x / (1.0 + exp(-x)); }
vec4 silu(vec4 x) { return x / (1.0 + exp(-x)); }
#define OP(x, y) silu(x)
#include "elementwise.glsl"
