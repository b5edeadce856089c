// SPDX-License-Identifier: MIT
// A shared library that is not a bk plugin: it exports no entry point.
extern "C" __attribute__((visibility("default"))) int bk_something_else() { return 42; }
