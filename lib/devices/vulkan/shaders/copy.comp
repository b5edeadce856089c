// SPDX-License-Identifier: MIT
#version 450
// cpy and cont between tensors of one shape (cont of a permuted view, a cast): the element-wise
// kernels with d = a, converted to d's dtype by store_d. Walking rows instead of unflattening
// every element (cpy.comp, for copies that also reshape) saves six integer divisions per
// element, which llvmpipe does lane by lane.
#include "common.glsl"
#define OP(x, y) (x)
#include "elementwise.glsl"
