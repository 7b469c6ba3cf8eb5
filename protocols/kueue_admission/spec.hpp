// Kueue admission in one cluster as a protocol definition (model/spec.hpp):
// parameters (params.hpp), state (state.hpp), rules (rules.hpp), and here
// the axes and fields of its state, the action table, the candidate
// actions and the initial state. Instance is what the checker takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/instance.hpp"
#include "model/spec.hpp"
#include "protocols/kueue_admission/params.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/state.hpp"

namespace kmc::protocols::ka {

enum AxisId : int {
  kAxisWorkload,
  kAxisClusterQueue,
  kAxisFlavor,
  kAxisResource,
  kAxisBudget,
  kAxisCheck,
  kAxisScheduler,
};

struct Spec {
  using Params = AdmissionParams;
  template <class V>
  using State = ka::State<V>;
  using Action = ka::Action;
  template <class V>
  using Rules = ka::Rules<V>;

  static constexpr const char* name = "kueue-admission";

  static Params compile(const model::Scenario& scenario) { return compile_admission(scenario); }
  static model::Layout layout(const Params& p);
  static std::vector<Action> candidates(const Params& p);
  static State<std::int64_t> initial(const Params& p);
  static model::ActionRef ref(const Params& p, const Action& a);
  static std::uint64_t identity(const Params& p);
  // Which edit of environment.queueEdits a QueueEdited step applies, in words
  // ("ClusterQueue legacy deleted"); empty for the other actions (queue_edit_note.cpp).
  static std::string note(const Params& p, const State<std::int64_t>& before, const Action& a);
};

using Instance = model::Instance<Spec>;

}  // namespace kmc::protocols::ka
