// SPDX-License-Identifier: MIT
#version 450
#include "common.glsl"
#define BINARY
#define OP(x, y) ((x) * (y))
#include "elementwise.glsl"
