// I7 (K12, kubernetes-sigs/kueue#15148): no Workload is built for a pod group
// that is already being torn down. A user deleted the group (its Workload and
// pods); while its pods are still terminating (a zombie, when the kubelet is
// gone), a restarted Kueue before #15154 replays them as new and builds a
// Workload for them, pinned to their node: a head that can never be placed.
#include "invariants/admission_registry.hpp"

namespace kmc::invariants {

AdmissionProperty no_workload_for_terminating_pods(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::always(
      "no-workload-for-terminating-pods",
      "no Workload is built for a deleted pod group whose pods are still terminating",
      {.holds = [params](const AdmissionInstance::State& s) {
        for (int w = 0; w < params->W(); ++w)
          if (params->workloads[w].readopts >= 0 && s.phase[w] != protocols::ka::kAbsent &&
              s.phase[w] != protocols::ka::kDeleted)
            return false;
        return true;
      }});
}

}  // namespace kmc::invariants
