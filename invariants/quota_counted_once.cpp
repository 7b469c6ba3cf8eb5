// I3, exact accounting, and what Kueue promises across clusters.
//
// Every ClusterQueue's stored usage equals the requests of the distinct
// workloads holding a reservation there, each counted once (on the manager:
// the job's local Workload; on a worker: its copy). Across workers Kueue
// promises less: while dispatch is in flight AllAtOnce lets every copy
// reserve (K36, by design); once the manager has selected a worker, the job
// holds worker quota on that worker only. The predicate is
// multikueue_safety.hpp's, shared with the SMT engines.
#include "invariants/multikueue_registry.hpp"
#include "invariants/multikueue_safety.hpp"

namespace kmc::invariants {

MkProperty quota_counted_once(const protocols::MultiKueue& p) {
  return MkProperty::always("quota-counted-once",
                            "every ClusterQueue's usage is the sum of its distinct holders, and a "
                            "job selected for a worker holds "
                            "worker quota nowhere else",
                            {.holds = [&p](const protocols::MultiKueue::State& s) {
                              return mk::quota_counted_once<std::int64_t>(p.params(), s, {});
                            }});
}

}  // namespace kmc::invariants
