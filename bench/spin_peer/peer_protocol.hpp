// What kmc checks on the SPIN peer: SEMANTICS.md §1.4's safety properties
// S1 and S2, and its deadlock D as the end states that are not valid. These
// are what model.pml asserts (INV=1) and what pan reports as invalid end
// states, so the two checkers answer the same questions. No `sometimes`
// property: the pinned state counts already fail on a model that reaches
// nothing, and an extra predicate per state would be work SPIN does not do.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/instance.hpp"
#include "model/property.hpp"
#include "spin_peer/peer_spec.hpp"

namespace spin_peer {

using Instance = kmc::model::Instance<Spec>;
using PeerState = Instance::State;
using Property = kmc::model::Property<PeerState>;

inline std::vector<Property> properties(const Params& p) {
  const int J = p.J, W = p.W;
  return {Property::always(
              "no-double-admission", "S1: no job is provisioned or running on two workers at once",
              {.holds =
                   [J, W](const PeerState& s) {
                     for (int j = 0; j < J; ++j) {
                       int admitted = 0;
                       for (int w = 0; w < W; ++w)
                         admitted += s.rw[j * W + w] == kProvisioned || s.rw[j * W + w] == kRunning;
                       if (admitted > 1) return false;
                     }
                     return true;
                   }}),
          Property::always("no-quota-overcommit",
                           "S2: no worker's quota and not the manager's quota is overcommitted",
                           {.holds = [p](const PeerState& s) {
                             // Rules keeps a reference to its Params: build it on the captured
                             // copy.
                             const Rules<std::int64_t> r(p, kmc::model::ExplicitValues{});
                             for (int w = 0; w < p.W; ++w)
                               if (r.wq(s, w) > p.Q[w]) return false;
                             return r.mq(s) <= p.MQ;
                           }})};
}

// The instance with its properties and its valid end states: what
// checker::Bfs takes. A state where no action is enabled is a valid end when
// every job has finished (model.pml's TERM=1 `assert(nfin == J)`), else a deadlock.
class Peer : public Instance {
 public:
  explicit Peer(Params params)
      : Instance(std::move(params)), props_(spin_peer::properties(this->params())) {}

  std::vector<Property> properties() const { return props_; }
  bool valid_end(const PeerState& s) const {
    return spin_peer::Rules<std::int64_t>(params(), kmc::model::ExplicitValues{}).nfin(s) ==
           params().J;
  }

 private:
  std::vector<Property> props_;
};

}  // namespace spin_peer
