// Pieces shared by ResourceFlavor, ClusterQueue and Cohort: resource groups
// with their quotas, tolerations and taints, stop policies.
#include <fmt/format.h>

#include <set>

#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

ResourceQuota read_resource_quota(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"name", "nominalQuota", "borrowingLimit", "lendingLimit"}},
             ctx.warnings);
  ResourceQuota quota;
  quota.name = require(node, "name").str();
  quota.nominal_quota = require(node, "nominalQuota").quantity();
  if (node["borrowingLimit"].present()) quota.borrowing_limit = node["borrowingLimit"].quantity();
  if (node["lendingLimit"].present()) quota.lending_limit = node["lendingLimit"].quantity();
  return quota;
}

FlavorQuotas read_flavor_quotas(const YamlNode& node, ReadContext& ctx) {
  check_keys(node, {.modeled = {"name", "resources"}}, ctx.warnings);
  FlavorQuotas flavor;
  flavor.name = require(node, "name").str();
  for (const auto& item : require(node, "resources").items())
    flavor.resources.push_back(read_resource_quota(item, ctx));
  return flavor;
}

// Kueue's webhook requires each flavor to list exactly the covered resources,
// in order; the scheduler indexes quotas by that order.
void check_flavor_covers(const YamlNode& flavor_node, const FlavorQuotas& flavor,
                         const std::vector<ResourceName>& covered) {
  std::vector<ResourceName> listed;
  for (const auto& r : flavor.resources) listed.push_back(r.name);
  if (listed != covered)
    flavor_node["resources"].fail(fmt::format(
        "flavor '{}' must list exactly the coveredResources [{}] in that order, got [{}]",
        flavor.name, fmt::join(covered, ", "), fmt::join(listed, ", ")));
}

}  // namespace

std::vector<ResourceGroup> read_resource_groups(const YamlNode& node, ReadContext& ctx) {
  std::vector<ResourceGroup> groups;
  std::set<std::string> seen_resources, seen_flavors;
  for (const auto& group_node : node.items()) {
    check_keys(group_node, {.modeled = {"coveredResources", "flavors"}}, ctx.warnings);
    ResourceGroup group;
    group.covered_resources = require(group_node, "coveredResources").string_list();
    // Kueue's CRD: coveredResources and flavors have MinItems=1.
    if (group.covered_resources.empty())
      group_node["coveredResources"].fail("a resource group covers at least one resource");
    if (require(group_node, "flavors").items().empty())
      group_node["flavors"].fail("a resource group has at least one flavor");
    for (const auto& r : group.covered_resources)
      if (!seen_resources.insert(r).second)
        group_node["coveredResources"].fail(
            fmt::format("resource '{}' is covered by more than one resource group", r));
    for (const auto& flavor_node : require(group_node, "flavors").items()) {
      FlavorQuotas flavor = read_flavor_quotas(flavor_node, ctx);
      if (!seen_flavors.insert(flavor.name).second)
        flavor_node["name"].fail(fmt::format("flavor '{}' appears more than once", flavor.name));
      check_flavor_covers(flavor_node, flavor, group.covered_resources);
      group.flavors.push_back(std::move(flavor));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<Toleration> read_tolerations(const YamlNode& node, ReadContext& ctx) {
  std::vector<Toleration> out;
  for (const auto& item : node.items()) {
    check_keys(item,
               {.modeled = {"key", "operator", "value", "effect"}, .silent = {"tolerationSeconds"}},
               ctx.warnings);
    Toleration t;
    if (item["key"].present()) t.key = item["key"].str();
    if (item["operator"].present())
      t.op = item["operator"].one_of<std::string>({{"Equal", "Equal"}, {"Exists", "Exists"}});
    if (item["value"].present()) t.value = item["value"].str();
    if (item["effect"].present())
      t.effect = item["effect"].one_of<std::string>({{"NoSchedule", "NoSchedule"},
                                                     {"PreferNoSchedule", "PreferNoSchedule"},
                                                     {"NoExecute", "NoExecute"}});
    out.push_back(std::move(t));
  }
  return out;
}

StopPolicy read_stop_policy(const YamlNode& node) {
  if (!node.present()) return StopPolicy::None;
  return node.one_of<StopPolicy>({{"None", StopPolicy::None},
                                  {"Hold", StopPolicy::Hold},
                                  {"HoldAndDrain", StopPolicy::HoldAndDrain}});
}

}  // namespace kmc::model
