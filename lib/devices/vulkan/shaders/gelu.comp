// SPDX-License-Identifier: MIT
#version 450
#include "common.glsl"
// The tanh approximation, 0.5 x (1 + tanh(u)), written as x / (1 + exp(-2u)) (the same
// function): 1 + tanh(u) cancels catastrophically for negative x, the quotient does not, and
// exp overflowing to inf still gives the right limit, -0.
float gelu(float x) {
  const float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
vec4 gelu(vec4 x) {
  const vec4 u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u));
}
#define OP(x, y) gelu(x)
#include "elementwise.glsl"
