// SPDX-License-Identifier: MIT
// The embedded schema catalog: every file in schemas/ is there, byte for byte, and can be found
// by its short name, id or file name.

#include "commands/schema/schemas.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

namespace bkctl {
namespace {

TEST(Schemas, CatalogHasTheFoundationSchemas) {
  const std::vector<SchemaInfo> catalog = schema_catalog();
  auto has = [&catalog](const std::string& id) {
    return std::any_of(catalog.begin(), catalog.end(),
                       [&id](const SchemaInfo& info) { return info.id == id; });
  };
  EXPECT_TRUE(has("bk.devices/v1"));
  EXPECT_TRUE(has("bk.alloc/v1"));
}

TEST(Schemas, EveryEmbeddedSchemaIsJsonAndNamesItsOwnId) {
  for (const SchemaInfo& info : schema_catalog()) {
    const nlohmann::json schema = nlohmann::json::parse(info.text, nullptr, false);
    ASSERT_TRUE(schema.is_object()) << info.id << " is not valid JSON";
    EXPECT_EQ(schema["properties"]["schema"]["const"], info.id) << info.id;
  }
}

TEST(Schemas, FoundByShortNameIdOrFileNameInAnyCase) {
  for (const char* name : {"devices", "DEVICES", "bk.devices/v1", "bk.devices.v1.json", " devices "}) {
    const auto info = find_schema(name);
    ASSERT_TRUE(info.has_value()) << name;
    EXPECT_EQ(info->id, "bk.devices/v1");
    EXPECT_EQ(info->short_name, "devices");
    EXPECT_EQ(info->version, 1);
  }
}

TEST(Schemas, UnknownNamesAreNotFound) {
  for (const char* name : {"", "nope", "bk.devices/v99", "devices.v1", "bk.devices"}) {
    EXPECT_FALSE(find_schema(name).has_value()) << name;
  }
}

TEST(Schemas, NamesListIsSortedAndUnique) {
  const std::string names = schema_names();
  EXPECT_NE(names.find("alloc"), std::string::npos);
  EXPECT_LT(names.find("alloc"), names.find("devices"));
}

}  // namespace
}  // namespace bkctl
