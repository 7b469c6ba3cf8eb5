// ValidateAdmissibility's namespace check (model/cluster_queue_namespaces.hpp).
#include "model/cluster_queue_namespaces.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/label_selector.hpp"

namespace kmc::model {

namespace {

// Once per place and message: one ClusterQueue meets many workloads of a namespace.
void warn_once(Warnings& warnings, Diagnostic d) {
  const bool seen = std::any_of(warnings.begin(), warnings.end(), [&](const auto& w) {
    return w.message == d.message && w.pos.file == d.pos.file && w.pos.line == d.pos.line;
  });
  if (!seen) warnings.push_back(std::move(d));
}

}  // namespace

bool cluster_queue_selects(const ClusterManifests& m, const ClusterQueue& q, const std::string& ns,
                           Warnings& warnings) {
  const Namespace* object = find_namespace(m.namespaces, ns);
  if (object == nullptr && reads_more_than_the_name(q.namespace_selector))
    warn_once(warnings,
              ignored_input(
                  q.meta.pos, "spec.namespaceSelector",
                  "Namespace missing that a ClusterQueue's namespaceSelector reads",
                  fmt::format("admission may differ because ClusterQueue {}'s namespaceSelector "
                              "reads labels of Namespace '{}', which is not in the input: kmc "
                              "takes it to have none but its name label; add the Namespace",
                              q.meta.name, ns)));
  if (selector_matches(q.namespace_selector, namespace_labels(object, ns))) return true;
  warn_once(
      warnings,
      Diagnostic{q.meta.pos, "spec.namespaceSelector",
                 fmt::format("ClusterQueue {}'s namespaceSelector {} namespace '{}': Kueue never "
                             "admits the workloads queued to it from there (NamespaceMismatch)",
                             q.meta.name,
                             q.namespace_selector.present
                                 ? "does not select"
                                 : "is not set, so it selects no namespace, not even",
                             ns)});
  return false;
}

}  // namespace kmc::model
