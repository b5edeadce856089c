// SPDX-License-Identifier: MIT
// Runs the graph-file fuzz entry point without libFuzzer: over every file of the corpus
// directory given as argv[1], and over deterministic mutations of each (every truncation
// point, byte flips, bytes deleted and duplicated), so that CI exercises the harness with GCC.
// Any exception other than bk::Error escapes and fails the test; so does a sanitizer report.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void feed(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

// The mutations libFuzzer starts with, done exhaustively on small inputs and strided on large.
size_t mutate_and_feed(const std::string& seed) {
  const size_t stride = seed.size() / 512 + 1;
  const char specials[] = {'\0', '"', '[', ']', '{', '}', ',', ':', '9', '-', '\x7f', '\xff'};
  size_t runs = 0;
  for (size_t i = 0; i < seed.size(); i += stride) {
    feed(seed.substr(0, i));
    std::string deleted = seed;
    deleted.erase(i, 1);
    feed(deleted);
    std::string doubled = seed;
    doubled.insert(i, seed.substr(i, 8));
    feed(doubled);
    for (char c : specials) {
      std::string flipped = seed;
      flipped[i] = c;
      feed(flipped);
    }
    runs += 3 + sizeof(specials);
  }
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  size_t files = 0, runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string seed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    feed(seed);
    runs += 1 + mutate_and_feed(seed);
    ++files;
  }
  if (files == 0) {
    std::fprintf(stderr, "no corpus files in %s\n", argv[1]);
    return 1;
  }
  std::printf("%zu corpus files, %zu inputs, all parsed or rejected with bk::Error\n", files, runs);
  return 0;
}
