// A ClusterQueue's namespaceSelector (ValidateAdmissibility): Kueue admits only
// workloads of the namespaces it selects; a nil one (not written) selects none.
// Every other one is NamespaceMismatch at each cycle that pops it.
#include <fmt/format.h>

#include <algorithm>

#include "model/label_selector.hpp"
#include "protocols/kueue_admission/compile_parts.hpp"

namespace kmc::protocols::ka {

namespace {

// Once per place and message: one ClusterQueue meets many workloads of a namespace.
void warn_once(AdmissionParams& p, model::Diagnostic d) {
  const bool seen = std::any_of(p.warnings.begin(), p.warnings.end(), [&](const auto& w) {
    return w.message == d.message && w.pos.file == d.pos.file && w.pos.line == d.pos.line;
  });
  if (!seen) p.warnings.push_back(std::move(d));
}

}  // namespace

bool namespace_selected(const model::ClusterManifests& m, const model::ClusterQueue& q,
                        const model::Workload& wl, AdmissionParams& p) {
  const std::string& ns = wl.meta.namespace_;
  const model::Namespace* object = model::find_namespace(m.namespaces, ns);
  if (object == nullptr && model::reads_more_than_the_name(q.namespace_selector))
    warn_once(p, model::ignored_input(
                     q.meta.pos, "spec.namespaceSelector",
                     "Namespace missing that a ClusterQueue's namespaceSelector reads",
                     fmt::format("admission may differ because ClusterQueue {}'s namespaceSelector "
                                 "reads labels of Namespace '{}', which is not in the input: kmc "
                                 "takes it to have none but its name label; add the Namespace",
                                 q.meta.name, ns)));
  if (model::selector_matches(q.namespace_selector, model::namespace_labels(object, ns)))
    return true;
  warn_once(p, model::Diagnostic{
                   q.meta.pos, "spec.namespaceSelector",
                   fmt::format("ClusterQueue {}'s namespaceSelector {} namespace '{}': Kueue never "
                               "admits the workloads queued to it from there (NamespaceMismatch)",
                               q.meta.name,
                               q.namespace_selector.present
                                   ? "does not select"
                                   : "is not set, so it selects no namespace, not even",
                               ns)});
  return false;
}

}  // namespace kmc::protocols::ka
