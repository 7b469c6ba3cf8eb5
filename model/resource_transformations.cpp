// What Kueue counts of a pod's requests: the Configuration's
// resources.excludeResourcePrefixes drop requests, then
// resources.transformations turn each input into outputs (pkg/workload/
// workload.go at the reference commit: dropExcludedResources, then
// applyResourceTransformations, per pod, before the pod count multiplies it).
//
// Kueue multiplies exact decimals and rounds only when it turns the final
// quantity into an integer (ResourceValue). kmc counts in milli-units, which
// is exact for those sums as long as every product is a whole number of
// milli-units; a product finer than that would round differently in kmc, so
// it is refused naming the output field, never counted otherwise.
#include <fmt/format.h>

#include <algorithm>

#include "model/assert.hpp"
#include "model/manifest_readers.hpp"

namespace kmc::model {
namespace {

Quantity multiply(Quantity value, Quantity factor, const Diagnostic& where,
                  const std::string& what) {
  std::int64_t product = 0;
  const auto refuse = [&](const std::string& why) {
    Diagnostic d = where;
    d.message = fmt::format("{}: {} × {} {}; kmc cannot count this as Kueue does", what,
                            value.to_string(), factor.to_string(), why);
    throw InputError(std::move(d));
  };
  if (__builtin_mul_overflow(value.milli, factor.milli, &product))
    refuse("is beyond what an int64 of milli-units holds");
  if (product % 1000 != 0) refuse("is not a whole number of milli-units");
  return Quantity{product / 1000};
}

Quantity add(Quantity a, Quantity b, const Diagnostic& where, const std::string& what) {
  Quantity sum;
  if (__builtin_add_overflow(a.milli, b.milli, &sum.milli)) {
    Diagnostic d = where;
    d.message = fmt::format("{}: the outputs add up to more than 9.2e15 units", what);
    throw InputError(std::move(d));
  }
  return sum;
}

bool excluded(const ResourceName& name, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return name.starts_with(p); });
}

const ResourceTransformation* transformation_of(const ResourceName& input,
                                                const ResourceSettings& settings) {
  for (const auto& t : settings.transformations)
    if (t.input == input) return &t;
  return nullptr;
}

// Where an output of this name is configured: every generated name has one.
const Diagnostic& output_where(const ResourceName& name, const ResourceSettings& settings) {
  for (const auto& t : settings.transformations)
    for (const auto& out : t.outputs)
      if (out.name == name) return out.where;
  KMC_ASSERT_MSG(false, "a generated resource without an output that names it");
  return settings.transformations.front().outputs.front().where;
}

// One pod's requests, as Kueue counts them against quota.
ResourceList counted_requests(const ResourceList& requests, const ResourceSettings& settings,
                              const std::string& who) {
  ResourceList kept;
  for (const auto& [name, q] : requests)
    if (!excluded(name, settings.exclude_resource_prefixes)) kept[name] = q;
  // Outputs are summed apart from the requests, so a negative output (an
  // allowance) cancels other outputs but never a request of the same name.
  ResourceList retained, generated;
  for (const auto& [name, q] : kept) {
    const ResourceTransformation* t = transformation_of(name, settings);
    if (t == nullptr) {
      retained[name] = q;
      continue;
    }
    Quantity base = q;  // multiplyBy scales the outputs only, never the retained input
    if (!t->multiply_by.empty()) {
      if (auto by = kept.find(t->multiply_by); by != kept.end() && !t->outputs.empty())
        base = multiply(q, by->second, t->outputs.front().where, who);
    }
    for (const auto& out : t->outputs)
      generated[out.name] =
          add(generated[out.name], multiply(base, out.per_unit, out.where, who), out.where, who);
    if (t->strategy == TransformationStrategy::Retain) retained[name] = q;
  }
  for (auto& [name, q] : generated) {
    q = std::max(q, Quantity{});  // Kueue floors each generated total at zero
    retained[name] = add(retained[name], q, output_where(name, settings), who);
  }
  return retained;
}

}  // namespace

void apply_resource_settings(const ResourceSettings& settings, Workload& workload) {
  if (settings.exclude_resource_prefixes.empty() && settings.transformations.empty()) return;
  for (auto& pod_set : workload.pod_sets) {
    const std::string who = fmt::format("{} {}/{} pod set {}", workload.source_kind,
                                        workload.meta.namespace_, workload.meta.name, pod_set.name);
    pod_set.requests = counted_requests(pod_set.requests, settings, who);
  }
}

}  // namespace kmc::model
