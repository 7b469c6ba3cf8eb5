// metadata as kubectl prints it: name, namespace, labels and annotations are
// read; Kubernetes bookkeeping (uid, resourceVersion, managedFields, ...) is
// accepted silently because every `kubectl get -o yaml` dump carries it.
#include <fmt/format.h>

#include <cstdio>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// civil-days formula), so timestamps need neither timegm nor a time zone.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

std::int64_t parse_rfc3339_s(const YamlNode& node) {
  const std::string text = node.str();
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, consumed = 0;
  const int n = std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour,
                            &minute, &second, &consumed);
  const auto bad = [&] {
    node.fail(fmt::format("invalid timestamp '{}'; expected RFC 3339 such as 2025-01-31T12:00:00Z",
                          text));
  };
  if (n != 6 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60)
    bad();
  std::size_t i = static_cast<std::size_t>(consumed);
  if (i < text.size() && text[i] == '.') {  // fractional seconds: kmc counts whole seconds
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  std::int64_t offset_s = 0;
  const std::string zone = text.substr(i);
  int zh = 0, zm = 0;
  if (zone == "Z" || zone == "z") {
    offset_s = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
             std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) == 2) {
    offset_s = (zone[0] == '-' ? -1 : 1) * (zh * 3600 + zm * 60);
  } else {
    bad();
  }
  const std::int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
}

Labels read_labels(const YamlNode& node) {
  return node.string_map();
}

ObjectMeta read_meta(const YamlNode& object, ReadContext& ctx, bool namespaced,
                     std::initializer_list<std::string_view> extra_top_level) {
  KeyPolicy top{.modeled = {"apiVersion", "kind", "metadata", "spec", "status"}};
  top.modeled.insert(top.modeled.end(), extra_top_level.begin(), extra_top_level.end());
  check_keys(object, top, ctx.warnings);

  const YamlNode metadata = require(object, "metadata");
  check_keys(metadata,
             {.modeled = {"name", "generateName", "namespace", "labels", "annotations",
                          "creationTimestamp", "ownerReferences"},
              .silent = {"uid", "resourceVersion", "generation", "managedFields", "finalizers",
                         "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}},
             ctx.warnings);
  ObjectMeta meta;
  meta.pos = object.pos();
  // `kubectl create` of a manifest with generateName only (Kueue's sample Jobs)
  // lets the API server pick the name; the loader picks a deterministic one
  // once it knows every other name (ManifestLoader).
  if (metadata["generateName"].present()) meta.generate_name = metadata["generateName"].str();
  if (metadata["name"].present() || meta.generate_name.empty())
    meta.name = require(metadata, "name").str();
  // An empty name (`name: ""`, or a bare tag such as `name: !x`) names nothing: Kubernetes
  // refuses it unless generateName is there to make one (found by fuzz_manifests).
  if (meta.name.empty() && meta.generate_name.empty())
    metadata["name"].fail(
        "must not be empty; Kubernetes names every object, or generates a "
        "name from metadata.generateName");
  if (namespaced) {
    // kubectl apply puts an object without a namespace into "default".
    meta.namespace_ = metadata["namespace"].present() ? metadata["namespace"].str() : "default";
  }
  meta.labels = read_labels(metadata["labels"]);
  meta.annotations = read_labels(metadata["annotations"]);
  const YamlNode created = metadata["creationTimestamp"];
  meta.creation_order = created.present() ? parse_rfc3339_s(created) : ctx.load_index;
  for (const auto& owner : metadata["ownerReferences"].items()) {
    if (!owner["kind"].present()) continue;
    meta.owner_kinds.push_back(owner["kind"].str());
    if (owner["name"].present())
      meta.owners.push_back({owner["kind"].str(), owner["name"].str(),
                             owner["apiVersion"].present() ? owner["apiVersion"].str() : ""});
  }
  return meta;
}

}  // namespace kmc::model
