#include "protocols/kube_scheduler/spec.hpp"

#include "model/fingerprint.hpp"

namespace kmc::protocols::ks {

model::Layout Spec::layout(const Params& p) {
  using model::FieldKind;
  model::Layout l;
  std::vector<std::string> jobs;
  int most = 1;
  for (const auto& j : p.jobs) jobs.push_back(j.name), most = std::max(most, j.pods);
  l.axes = {{"job", jobs, -1, {}, 0}, {"node", p.nodes, -1, {}, 0}};
  model::Field phase;
  phase.name = "phase", phase.axes = {0}, phase.kind = FieldKind::Enum;
  phase.lo = kWaiting, phase.hi = kDone, phase.names = {"Waiting", "Running", "Done"};
  model::Field bound;
  bound.name = "bound", bound.axes = {0, 1}, bound.kind = FieldKind::Int;
  bound.lo = 0, bound.hi = most;
  l.fields = {phase, bound};
  // The scheduler binds whatever fits, weakly fair; jobs may run forever.
  l.families = {{"kube-scheduler", 1}, {"completion", 0}};
  const model::ActionKind::Arg job{"job", 0}, node{"node", 1};
  l.actions = {{"Bind", {job, node}, 0, "kube-scheduler"}, {"Finish", {job}, 1, "workload"}};
  return l;
}

std::vector<Action> Spec::candidates(const Params& p) {
  std::vector<Action> out;
  for (int j = 0; j < p.J(); ++j) {
    for (int n = 0; n < p.N(); ++n)
      out.push_back({kBind, static_cast<std::int16_t>(j), static_cast<std::int16_t>(n),
                     static_cast<int>(out.size())});
    out.push_back({kFinish, static_cast<std::int16_t>(j), -1, static_cast<int>(out.size())});
  }
  return out;
}

State<std::int64_t> Spec::initial(const Params& p) {
  State<std::int64_t> s;
  s.phase.assign(p.J(), kWaiting);
  s.bound.assign(static_cast<std::size_t>(p.J()) * p.N(), 0);
  return s;
}

std::uint64_t Spec::identity(const Params& p) {
  model::Hasher h;
  model::hash_append(h, p.resources), model::hash_append(h, p.nodes);
  model::hash_append(h, p.allocatable);
  for (const auto& j : p.jobs) {
    model::hash_append(h, j.name), model::hash_append(h, j.req);
    h.word(static_cast<std::uint64_t>(j.pods));
  }
  return model::mix64(h.h);
}

}  // namespace kmc::protocols::ks
