// SPDX-License-Identifier: MIT
// libFuzzer harness for the graph-file parser (bkctl sched --graph-file). The contract under
// test: any bytes either parse into a graph or throw bk::Error -- never another exception, a
// crash, a hang or a sanitizer report. Built as `graph_file_fuzz` with clang (-DBK_FUZZ=ON, see
// docs/sched.md); with any compiler, fuzz_replay.cpp runs the same entry point over the corpus
// and deterministic mutations of it as the ctest `graph_file_fuzz_replay`.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bk/error.h"
#include "probe/graph_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const bk::Graph graph = bk::parse_graph_json(text, "fuzz.json");
    (void)graph.nodes();
  } catch (const bk::Error&) {
    // Rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
