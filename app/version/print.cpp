// SPDX-License-Identifier: MIT
// `bkctl --version [--json]`: the build, as text (help2man reads its first line) or as schema
// bk.version/v1.
#include "version/print.h"

#include <fmt/format.h>

#include "output/json_out.h"
#include "version/build_info.h"

namespace bkctl {
namespace {

std::string joined(const std::vector<std::string>& items) {
  return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace

void print_version_text(std::FILE* out) {
  const BuildInfo info = build_info();
  fmt::print(out, "bkctl {}\n", info.version);
  fmt::print(out, "commit:   {}\n", info.commit);
  fmt::print(out, "build:    {}\n", info.build_type);
  fmt::print(out, "compiler: {}\n", info.compiler);
  fmt::print(out, "plugins:  {} (built)\n", joined(info.plugins));
  fmt::print(out, "License MIT. https://spdx.org/licenses/MIT.html\n");
}

void print_version_json(std::FILE* out) {
  const BuildInfo info = build_info();
  ojson doc = json_document("bk.version/v1");
  doc["bkctl_version"] = info.version;
  doc["commit"] = info.commit;
  doc["build_type"] = info.build_type;
  doc["compiler"] = info.compiler;
  doc["plugins_built"] = info.plugins;
  print_json(doc, out);
}

}  // namespace bkctl
