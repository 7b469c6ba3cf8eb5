// The MultiKueue protocol as a definition (model/spec.hpp): its parameters
// (multikueue_params.hpp), state (multikueue_state.hpp), rules
// (multikueue_rules.hpp), and here the rest: the axes and fields of its
// state, its action table, its candidate actions and its initial state.
// protocols/multikueue.hpp's MultiKueue is the explicit instance derived
// from it; the symbolic instance takes the same rules over Z3 terms.
#pragma once

#include <cstdint>
#include <vector>

#include "model/spec.hpp"
#include "model/symmetry.hpp"
#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_rules.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::protocols {

// The axes of a MultiKueue state, in Layout::axes' order.
enum MkAxis : int {
  kAxisJob,
  kAxisWorker,
  kAxisClusterQueue,
  kAxisFlavor,
  kAxisResource,
  kAxisSlot,
  kAxisBudget
};

struct MkSpec {
  using Params = MkParams;
  template <class V>
  using State = MkState<V>;
  using Action = MkAction;
  template <class V>
  using Rules = MkRules<V>;

  static constexpr const char* name = "multikueue";

  static Params compile(const model::Scenario& scenario) { return compile_multikueue(scenario); }
  static model::Layout layout(const Params& p);
  // Every action the parameters allow, in a fixed order (the checker's
  // enumeration order, so it decides which shortest trace is found).
  static std::vector<Action> candidates(const Params& p);
  static State<std::int64_t> initial(const Params& p);
  static model::ActionRef ref(const Params& p, const Action& a);
  static std::uint64_t identity(const Params& p);
  // Interchangeable workers, for symmetry reduction (multikueue_symmetry.cpp).
  static model::Symmetry symmetry(const Params& p);
};

}  // namespace kmc::protocols
