// SPDX-License-Identifier: MIT
// libFuzzer harness for the GGUF reader (probe/gguf.h). The contract under test: any bytes either
// parse into a GgufFile or throw bk::Error -- never another exception, a crash, a hang, a huge
// allocation or a sanitizer report. Built as `gguf_fuzz` with clang (-DBK_FUZZ=ON, as in
// docs/sched.md for the graph files); with any compiler, fuzz_replay.cpp runs the same entry point
// over tests/probe/gguf_corpus and deterministic mutations of it as the ctest `gguf_fuzz_replay`.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bk/error.h"
#include "probe/gguf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const bk::GgufFile file = bk::GgufFile::parse(std::as_bytes(std::span(data, size)), "fuzz.gguf");
    // What a planner reads: every typed value, every string array, every tensor's bytes.
    for (const bk::GgufKeyValue& kv : file.metadata()) {
      if (const auto* array = std::get_if<bk::GgufArray>(&kv.value);
          array != nullptr && array->element_type == bk::GgufValueType::string) {
        (void)file.get_string_array(kv.key);
      }
    }
    for (const bk::GgufTensor& t : file.tensors()) {
      if (file.has_data()) (void)file.tensor_data(t);
    }
    (void)file.tensor_bytes();
  } catch (const bk::Error&) {
    // Rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
