// SPDX-License-Identifier: MIT
#pragma once
// bkctl --version: what this build is, for people (text) and machines (bk.version/v1).

#include <cstdio>

namespace bkctl {

void print_version_text(std::FILE* out);
void print_version_json(std::FILE* out);

}  // namespace bkctl
