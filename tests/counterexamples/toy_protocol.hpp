// A toy protocol, defined the way docs/adding-a-protocol.md says, with no
// MultiKueue code: jobs placed on nodes of one slot each by a scheduler,
// started by a kubelet and finished by the workload itself. The broken
// variant lets the scheduler place a job on a busy node, which
// one-job-per-node must catch. Everything the pipeline needs (actions,
// names, picks, fairness families, typed trace cells, the people's view) is
// derived from this definition by model::Instance.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "model/fingerprint.hpp"
#include "model/instance.hpp"
#include "model/property.hpp"
#include "model/spec.hpp"

namespace toy {

enum Phase : std::int64_t { kWaiting, kPlaced, kRunning, kDone };
enum Axis : int { kJob, kNode };
enum Kind : std::int16_t { kPlace, kStart, kFinish };

struct Params {
  std::vector<std::string> jobs, nodes;
  bool broken = false;  // the scheduler ignores a node's load
  int J() const { return static_cast<int>(jobs.size()); }
  int N() const { return static_cast<int>(nodes.size()); }
};

template <class V>
struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<V>, phase),  // [job] Phase
                           (std::vector<V>, node),          // [job] the node it was placed on, -1
                           (std::vector<V>, load)           // [node] jobs placed there and not done
  );
  bool operator==(const State&) const = default;
};

struct Action {
  Kind kind;
  std::int16_t job = -1, node = -1;
  int id = -1;
};

// Guards and updates once over V: ite() for choices on values, `if` only on
// parameters and action fields.
template <class V>
class Rules {
 public:
  using B = decltype(std::declval<V>() == std::declval<V>());
  Rules(const Params& p, kmc::model::Values<V> values) : p_(p), val_(values) {}

  B enabled(const State<V>& s, const Action& a) const {
    const V& phase = s.phase[a.job];
    switch (a.kind) {
      case kPlace:
        return phase == kWaiting && (p_.broken ? val_.truth(true) : s.load[a.node] == 0);
      case kStart:
        return phase == kPlaced;
      case kFinish:
        return phase == kRunning;
    }
    return val_.truth(false);
  }
  void apply_in_place(State<V>& s, const Action& a) const {
    using kmc::model::ite;
    switch (a.kind) {
      case kPlace:
        s.phase[a.job] = kPlaced;
        s.node[a.job] = a.node;
        s.load[a.node] = s.load[a.node] + 1;
        break;
      case kStart:
        s.phase[a.job] = kRunning;
        break;
      case kFinish:
        for (int n = 0; n < p_.N(); ++n)
          s.load[n] = ite(s.node[a.job] == n, s.load[n] - 1, s.load[n]);
        s.phase[a.job] = kDone;
        break;
    }
  }

 private:
  const Params& p_;
  kmc::model::Values<V> val_;
};

struct Spec {
  using Params = toy::Params;
  template <class V>
  using State = toy::State<V>;
  using Action = toy::Action;
  template <class V>
  using Rules = toy::Rules<V>;

  static constexpr const char* name = "toy";

  // Jobs are the manager's Workloads, nodes the fleet's workers.
  static Params compile(const kmc::model::Scenario& sc) {
    Params p;
    for (const auto& wl : sc.manager.workloads) p.jobs.push_back(wl.meta.name);
    for (const auto& w : sc.fleet.workers) p.nodes.push_back(w.name);
    return p;
  }
  static kmc::model::Layout layout(const Params& p) {
    using kmc::model::FieldKind;
    kmc::model::Layout l;
    l.axes = {{"job", p.jobs, -1, {}, 0}, {"node", p.nodes, -1, {}, 0}};
    auto field = [](const char* name, std::vector<int> axes, FieldKind kind, std::int64_t lo,
                    std::int64_t hi) {
      kmc::model::Field f;
      f.name = name, f.axes = std::move(axes), f.kind = kind, f.lo = lo, f.hi = hi;
      return f;
    };
    auto phase = field("phase", {kJob}, FieldKind::Enum, kWaiting, kDone);
    phase.names = {"Waiting", "Placed", "Running", "Done"};
    auto node = field("node", {kJob}, FieldKind::Index, -1, p.N() - 1);
    node.index_axis = kNode;
    l.fields = {phase, node, field("load", {kNode}, FieldKind::Int, 0, p.J())};
    l.families = {{"scheduler", 1}, {"kubelet", 1}, {"completion", 0}};
    const kmc::model::ActionKind::Arg job{"job", kJob}, on{"node", kNode};
    l.actions = {{"Place", {job, on}, 0, "scheduler"},
                 {"Start", {job}, 1, "kubelet"},
                 {"Finish", {job}, 2, "workload"}};
    return l;
  }
  static std::vector<Action> candidates(const Params& p) {
    std::vector<Action> out;
    auto add = [&](Kind k, int j, int n) {
      out.push_back(Action{k, static_cast<std::int16_t>(j), static_cast<std::int16_t>(n),
                           static_cast<int>(out.size())});
    };
    for (int j = 0; j < p.J(); ++j) {
      for (int n = 0; n < p.N(); ++n) add(kPlace, j, n);
      add(kStart, j, -1);
      add(kFinish, j, -1);
    }
    return out;
  }
  static State<std::int64_t> initial(const Params& p) {
    State<std::int64_t> s;
    s.phase.assign(p.J(), kWaiting);
    s.node.assign(p.J(), -1);
    s.load.assign(p.N(), 0);
    return s;
  }
  static kmc::model::ActionRef ref(const Params&, const Action& a) {
    if (a.kind == kPlace) return {a.kind, {a.job, a.node}};
    return {a.kind, {a.job}};
  }
  static std::uint64_t identity(const Params& p) {
    kmc::model::Hasher h;
    kmc::model::hash_append(h, p.jobs);
    kmc::model::hash_append(h, p.nodes);
    h.word(p.broken);
    return kmc::model::mix64(h.h);
  }
};

using Instance = kmc::model::Instance<Spec>;
using Property = kmc::model::Property<Instance::State>;

// Registry order: safety, the guard against vacuity, then liveness (checked only when named).
inline std::vector<Property> properties(const Instance& p) {
  const int J = p.params().J(), N = p.params().N();
  return {Property::always("one-job-per-node", "no node holds two jobs at once",
                           {.holds =
                                [N](const Instance::State& s) {
                                  for (int n = 0; n < N; ++n)
                                    if (s.load[n] > 1) return false;
                                  return true;
                                }}),
          Property::sometimes("some-job-done", "some job is done",
                              {.holds =
                                   [J](const Instance::State& s) {
                                     for (int j = 0; j < J; ++j)
                                       if (s.phase[j] == kDone) return true;
                                     return false;
                                   }}),
          Property::leads_to(
              "every-job-done", "every waiting job is eventually done",
              {.subjects = J,
               .premise = [](const Instance::State& s, int j) { return s.phase[j] == kWaiting; },
               .goal = [](const Instance::State& s, int j) { return s.phase[j] == kDone; }})};
}

}  // namespace toy
