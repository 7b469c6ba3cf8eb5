#include "model/label_selector.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/k8s_names.hpp"
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
  if (r.op == "DoesNotExist") return !has;
  return false;  // read_selector admits no other operator
}

void check_key(const YamlNode& node, const std::string& key) {
  if (!is_qualified_name(key))
    node.fail(fmt::format(
        "'{}' is not a valid label key: a name of at most 63 alphanumeric characters, '-', '_' "
        "or '.', starting and ending with an alphanumeric, with an optional DNS subdomain "
        "prefix and '/'",
        key));
}

void check_value(const YamlNode& node, const std::string& value) {
  if (!is_label_value(value))
    node.fail(fmt::format(
        "'{}' is not a valid label value: empty, or at most 63 alphanumeric characters, '-', "
        "'_' or '.', starting and ending with an alphanumeric",
        value));
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

bool reads_more_than_the_name(const LabelSelector& selector) {
  for (const auto& [key, value] : selector.match_labels)
    if (key != kNamespaceNameLabel) return true;
  return std::any_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [](const auto& r) { return r.key != kNamespaceNameLabel; });
}

const Namespace* find_namespace(const std::vector<Namespace>& namespaces, const std::string& name) {
  for (const auto& ns : namespaces)
    if (ns.meta.name == name) return &ns;
  return nullptr;
}

Labels namespace_labels(const Namespace* ns, const std::string& name) {
  Labels labels = ns != nullptr ? ns->meta.labels : Labels{};
  labels[kNamespaceNameLabel] = name;
  return labels;
}

LabelSelector read_selector(const YamlNode& node, ReadContext& ctx) {
  LabelSelector s;
  if (!node.present()) return s;  // nil selects nothing
  check_keys(node, {.modeled = {"matchLabels", "matchExpressions"}}, ctx.warnings);
  s.present = true;
  for (const auto& e : node["matchLabels"].entries()) {
    const std::string value = e.value.present() ? e.value.str() : "";
    check_key(e.value, e.key);
    check_value(e.value, value);
    s.match_labels[e.key] = value;
  }
  for (const auto& item : node["matchExpressions"].items()) {
    check_keys(item, {.modeled = {"key", "operator", "values"}}, ctx.warnings);
    LabelSelector::Requirement r;
    const YamlNode key = require(item, "key");
    r.key = key.str();
    check_key(key, r.key);
    r.op = require(item, "operator")
               .one_of<std::string>({{"In", "In"},
                                     {"NotIn", "NotIn"},
                                     {"Exists", "Exists"},
                                     {"DoesNotExist", "DoesNotExist"}});
    const YamlNode values = item["values"];
    for (const auto& value : values.items()) {
      r.values.push_back(value.str());
      check_value(value, r.values.back());
    }
    // ValidateLabelSelectorRequirement: Kueue refuses it (its ClusterQueue
    // webhook; at startup, for its Configuration).
    const bool set_based = r.op == "In" || r.op == "NotIn";
    if (set_based && r.values.empty())
      values.fail("must be specified when `operator` is 'In' or 'NotIn'");
    if (!set_based && !r.values.empty())
      values.fail("may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    s.match_expressions.push_back(std::move(r));
  }
  return s;
}

}  // namespace kmc::model
