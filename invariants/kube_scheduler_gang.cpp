// The baseline's properties. The gang deadlock of seeds 2 and 4: pods bound
// one at a time, with no notion of the Job they belong to, can leave two
// Jobs each holding part of what both need, and neither ever runs. Kueue's
// all-or-nothing admission exists to rule this out.
#include <fmt/format.h>

#include "invariants/kube_scheduler_registry.hpp"
#include "invariants/kube_scheduler_safety.hpp"
#include "model/user_properties.hpp"

namespace kmc::invariants {

std::vector<SchedulerProperty> kube_scheduler_properties(const SchedulerInstance& p) {
  using protocols::ks::kWaiting;
  const auto* params = &p.params();
  auto bound = [params](const SchedulerInstance::State& s, int j) {
    return protocols::ks::Rules<std::int64_t>(*params, {}).bound(s, j);
  };
  std::vector<SchedulerProperty> props{
      SchedulerProperty::always(
          "node-within-allocatable", "no node has more bound to it than it can allocate",
          {.holds =
               [params](const SchedulerInstance::State& s) {
                 return ks::node_within_allocatable<std::int64_t>(*params, s, {});
               }}),
      SchedulerProperty::stuck_free(
          "no-gang-deadlock", "no Job waits forever with part of its pods bound",
          {.subjects = params->J(),
           .key =
               [bound](const SchedulerInstance::State& s, int j) {
                 return static_cast<std::uint64_t>(s.phase[j] * 1000 + bound(s, j));
               },
           .should_move = [bound](const SchedulerInstance::State& s,
                                  int j) { return s.phase[j] == kWaiting && bound(s, j) > 0; }},
          [params, bound](const SchedulerInstance::State& s, int j) {
            return fmt::format("{} has {} of its {} pods bound and no node fits another",
                               params->jobs[j].name, bound(s, j), params->jobs[j].pods);
          }),
      SchedulerProperty::sometimes("some-job-runs", "some Job has all its pods bound and runs",
                                   {.holds = [params](const SchedulerInstance::State& s) {
                                     return ks::some_job_runs<std::int64_t>(*params, s, {});
                                   }})};
  return model::with_user_properties(std::move(props), p, params->user_properties);
}

}  // namespace kmc::invariants
