// SPDX-License-Identifier: MIT
#pragma once
// BK_API marks what libbk.so exports: the classes and functions of the public headers
// (include/bk/). libbk is built with hidden visibility, so everything else in it is internal and
// cannot be linked against, and an exported symbol is a promise to keep.

#define BK_API __attribute__((visibility("default")))
