#version 450
#include "common.glsl"
float silu(float x) { return x / (1.0 + exp(-x)); }
#define OP(x, y) silu(x)
#include "elementwise.glsl"
