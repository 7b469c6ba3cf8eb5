#include "model/label_selector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/manifest_readers.hpp"

namespace kmc::model {

namespace {

bool requirement_matches(const LabelSelector::Requirement& r, const Labels& labels) {
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const bool in = has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  if (r.op == "In") return in;
  if (r.op == "NotIn") return !in;
  if (r.op == "Exists") return has;
  return !has;  // DoesNotExist; read_selector admits no other operator
}

}  // namespace

bool selector_matches(const LabelSelector& selector, const Labels& labels) {
  if (!selector.present) return false;
  for (const auto& [key, value] : selector.match_labels) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const auto& r) { return requirement_matches(r, labels); });
}

std::vector<std::string> selector_keys(const LabelSelector& selector) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : selector.match_labels) keys.push_back(key);
  for (const auto& r : selector.match_expressions) keys.push_back(r.key);
  return keys;
}

Labels namespace_labels(const std::vector<Namespace>& namespaces, const std::string& name) {
  Labels labels;
  for (const auto& ns : namespaces)
    if (ns.meta.name == name) labels = ns.meta.labels;
  labels[kNamespaceNameLabel] = name;
  return labels;
}

LabelSelector read_selector(const YamlNode& node, ReadContext& ctx) {
  LabelSelector s;
  if (!node.present()) return s;  // nil selects nothing
  check_keys(node, {.modeled = {"matchLabels", "matchExpressions"}}, ctx.warnings);
  s.present = true;
  s.match_labels = read_labels(node["matchLabels"]);
  for (const auto& item : node["matchExpressions"].items()) {
    check_keys(item, {.modeled = {"key", "operator", "values"}}, ctx.warnings);
    LabelSelector::Requirement r;
    r.key = require(item, "key").str();
    r.op = require(item, "operator")
               .one_of<std::string>({{"In", "In"},
                                     {"NotIn", "NotIn"},
                                     {"Exists", "Exists"},
                                     {"DoesNotExist", "DoesNotExist"}});
    const YamlNode values = item["values"];
    r.values = values.string_list();
    // ValidateLabelSelectorRequirement: the API server refuses the object.
    const bool set_based = r.op == "In" || r.op == "NotIn";
    if (set_based && r.values.empty())
      values.fail(fmt::format("must be specified when `operator` is '{}'", r.op));
    if (!set_based && !r.values.empty())
      values.fail(fmt::format("may not be specified when `operator` is '{}'", r.op));
    s.match_expressions.push_back(std::move(r));
  }
  return s;
}

}  // namespace kmc::model
