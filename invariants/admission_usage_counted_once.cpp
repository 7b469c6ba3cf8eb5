// I3, exact accounting: every ClusterQueue's usage in the cache equals the
// requests of the workloads holding a reservation there, each counted once.
#include "invariants/admission_registry.hpp"

namespace kmc::invariants {

AdmissionProperty usage_counted_once(const AdmissionInstance& p) {
  const auto* params = &p.params();
  return AdmissionProperty::always(
      "usage-counted-once",
      "every ClusterQueue's usage is the sum of its holders' requests, each counted once",
      {.holds = [params](const AdmissionInstance::State& s) {
        const auto& q = *params;
        std::vector<std::int64_t> expected(s.usage.size(), 0);
        const int k = q.F() * q.R();
        for (int w = 0; w < q.W(); ++w)
          if (protocols::ka::Scheduler::holds(s, w))
            for (int r = 0; r < q.R(); ++r)
              expected[q.workloads[w].cq * k +
                       q.cell(q.workloads[w].cq, static_cast<int>(s.flavor[w]), r)] +=
                  q.workloads[w].req[r];
        return expected == s.usage;
      }});
}

}  // namespace kmc::invariants
