// Partial-order reduction in the search (checker/stubborn.hpp): whether it is
// sound for the properties asked (plan_por), and the stubborn subset of one
// state's enabled actions (reduce). The cycle proviso is applied where the
// successors are built (bfs_level.hpp: expand). Included by bfs.hpp only.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

namespace kmc::checker {

template <model::Protocol P>
void Bfs<P>::plan_por() {
  if (!opt_.footprints) return;
  if constexpr (requires(const Action& a) {
                  { p_.instance(a) } -> std::convertible_to<int>;
                  p_.candidates();
                } &&
                boost::hana::Struct<State>::value) {
    const model::Footprints& f = *opt_.footprints;
    if (f.guard.size() != p_.candidates().size()) {
      reductions_.push_back(
          "partial-order reduction not used: the footprints are not this "
          "instance's actions");
      return;
    }
    // A graph property follows subjects along every path (stuck-freedom, leads-to, recurrence):
    // a stubborn set may leave out the action that moves one, so those searches run unreduced.
    std::string refused;
    for (const auto* kind : {&stuck_, &leads_to_, &recurrence_})
      if (!kind->empty() && refused.empty())
        refused = kind->front().name() + " is decided on the whole state graph";
    std::vector<std::string> names;
    for (const auto* kind : {&always_, &sometimes_})
      for (const auto& prop : *kind) {
        names.push_back(prop.name());
        const bool known = std::any_of(f.property_reads.begin(), f.property_reads.end(),
                                       [&](const auto& r) { return r.first == prop.name(); });
        if (!known && refused.empty()) refused = prop.name() + " has no footprint";
      }
    if (!refused.empty()) {
      reductions_.push_back("partial-order reduction not used: " + refused +
                            " (it is sound for always and sometimes properties and deadlock: "
                            "check those alone with --property to use it)");
      return;
    }
    stubborn_.emplace(f, names);
  } else {
    reductions_.push_back(
        "partial-order reduction not used: this protocol names no action "
        "instances");
  }
}

template <model::Protocol P>
bool Bfs<P>::reduce(Scratch& scratch) const {
  if constexpr (requires(const Action& a) { p_.instance(a); } &&
                boost::hana::Struct<State>::value) {
    scratch.ids.clear();
    for (const auto& a : scratch.actions)
      scratch.ids.push_back(static_cast<std::uint32_t>(p_.instance(a)));
    // The state's variables in the footprints' order: every field's cells, in member order.
    scratch.flat.clear();
    boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
      for (const auto& x : boost::hana::second(acc)(scratch.cur))
        scratch.flat.push_back(static_cast<std::int64_t>(x));
    });
    if (!stubborn_->select(scratch.ids, scratch.flat, scratch.por, scratch.keep)) return false;
    scratch.all = scratch.actions;
    scratch.actions.clear();
    for (std::uint32_t pos : scratch.keep) scratch.actions.push_back(scratch.all[pos]);
    return true;
  } else {
    return false;
  }
}

}  // namespace kmc::checker
