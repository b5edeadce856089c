// SPDX-License-Identifier: MIT
#pragma once
// The memory check behind `bkctl alloc`. The pattern logic lives in lib/probe/mem_pattern.h
// (shared with `bkctl smoke`); alloc uses its random pattern, whose contract that header states.
// These names keep the app's and its tests' spelling.

#include "probe/mem_pattern.h"

namespace bkctl {

using bk::kPatternChunkBytes;
using bk::pattern_word;
using bk::PatternMismatch;
using bk::PatternStaging;
using bk::verify_pattern;
using bk::VerifyResult;
using bk::write_pattern;

}  // namespace bkctl
