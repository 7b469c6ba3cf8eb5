// The explicit instance of a protocol, derived from its definition
// (model/spec.hpp) by generic code: the state machine the checker takes
// (model::TransitionSystem), action names and picks for traces, fairness
// families, and the layout every derived view reads. A protocol writes none
// of this by hand.
#pragma once

#include <array>
#include <boost/hana.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/assert.hpp"
#include "model/fingerprint.hpp"
#include "model/packing.hpp"
#include "model/spec.hpp"
#include "model/symmetry.hpp"

namespace kmc::model {

template <ProtocolSpec S>
class Instance {
 public:
  using Spec = S;
  using Params = typename S::Params;
  using State = typename S::template State<std::int64_t>;
  using Action = typename S::Action;
  using Rules = typename S::template Rules<std::int64_t>;

  explicit Instance(Params params)
      : p_(std::move(params)),
        layout_(S::layout(p_)),
        packing_(Packing::of(layout_)),
        candidates_(S::candidates(p_)) {
    for (const auto& a : candidates_) {
      KMC_ASSERT_MSG(a.id == static_cast<int>(family_.size()), "a candidate's id is its index");
      family_.push_back(layout_.actions.at(S::ref(p_, a).kind).family);
    }
    check_layout(S::initial(p_));
    if constexpr (requires { S::symmetry(p_); }) canon_ = Canonicalizer(layout_, S::symmetry(p_));
  }

  std::vector<State> init_states() const { return {S::initial(p_)}; }
  void actions(const State& s, std::vector<Action>& out) const {
    const Rules rules(p_, ExplicitValues{});
    for (const auto& a : candidates_)
      if (rules.enabled(s, a)) out.push_back(a);
  }
  State next(const State& s, const Action& a) const {
    State t = s;
    Rules(p_, ExplicitValues{}).apply_in_place(t, a);
    return t;
  }
  // next() into `out`, reusing its storage: the checker's hot path.
  void next_into(const State& s, const Action& a, State& out) const {
    out = s;  // copy-assignment keeps out's capacity: no allocation after the first
    Rules(p_, ExplicitValues{}).apply_in_place(out, a);
  }
  std::uint64_t fingerprint(const State& s) const { return model::fingerprint(s); }
  // The fixed-size encoding the checker stores, from the layout's declared ranges.
  const Packing& packing() const { return packing_; }

  // Symmetry reduction (model/symmetry.hpp): whether the spec declared
  // interchangeable entities for these parameters, what they are (and why
  // others are not), and s mapped to the representative of its orbit.
  bool symmetric() const { return canon_.active(); }
  std::vector<std::string> symmetry_summary() const { return canon_.summary(); }
  std::vector<std::string> symmetry_axes() const { return canon_.moved_axes(); }
  std::vector<std::string> symmetry_notes() const { return canon_.symmetry().notes; }
  void canonicalize(State& s) const {
    constexpr std::size_t n = decltype(boost::hana::length(boost::hana::accessors<State>()))::value;
    std::array<std::int64_t*, n> fields{};
    std::size_t k = 0;
    boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
      fields[k++] = boost::hana::second(acc)(s).data();
    });
    canon_.canonicalize(fields.data());
  }

  // "Kind(arg, arg)", in the scenario's names.
  std::string action_name(const Action& a) const {
    const auto [kind, args] = S::ref(p_, a);
    std::string out = layout_.actions[kind].name;
    const auto pk = picks(a);
    for (std::size_t i = 0; i < pk.size(); ++i) out += (i ? ", " : "(") + pk[i].second;
    return pk.empty() ? out : out + ")";
  }
  // The nondeterministic choices an action made: (argument name, entity name).
  std::vector<std::pair<std::string, std::string>> picks(const Action& a) const {
    const auto ref = S::ref(p_, a);
    const auto& kind = layout_.actions[ref.kind];
    KMC_ASSERT(ref.args.size() == kind.args.size());
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < kind.args.size(); ++i) {
      if (ref.args[i] < 0) continue;  // an argument this action does not use
      const Axis& axis = layout_.axes[kind.args[i].axis];
      out.emplace_back(kind.args[i].name, axis.label(ref.args[i], parent_arg(kind, ref, axis)));
    }
    return out;
  }
  std::string kind_name(const Action& a) const { return layout_.actions[S::ref(p_, a).kind].name; }
  // What action a does from state `before`, in words, where its name and picks
  // do not say it: the spec's note(params, before, a), where it has one.
  std::string step_note(const State& before, const Action& a) const {
    if constexpr (requires { S::note(p_, before, a); })
      return S::note(p_, before, a);
    else
      return {};
  }
  // Who takes the action (the action table's controller group): a lane of a sequence diagram.
  std::string controller(const Action& a) const {
    return layout_.actions[S::ref(p_, a).kind].controller;
  }

  // Fairness: per family (the action table's), or per instance (each candidate).
  int family(const Action& a) const { return family_[a.id]; }
  int instance(const Action& a) const { return a.id; }
  std::vector<std::string> families() const {
    std::vector<std::string> out;
    for (const auto& f : layout_.families) out.push_back(f.name);
    return out;
  }
  std::vector<int> default_fairness() const {
    std::vector<int> out;
    for (const auto& f : layout_.families) out.push_back(f.default_fairness);
    return out;
  }

  // The state as typed cells (field, entity names, value), for traces,
  // rendering, replay and validation; and their schema.
  std::vector<Cell> cells(const State& s) const {
    std::vector<Cell> out;
    std::size_t k = 0;
    boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
      append_cells(layout_, layout_.fields[k++], boost::hana::second(acc)(s), out);
    });
    return out;
  }
  std::vector<FieldSchema> cell_fields() const { return schema_of(layout_); }
  // The state for people, when the protocol words it no better: each cell as
  // "field[entity]" and its value. A protocol may hide this with its own.
  std::vector<std::pair<std::string, std::string>> describe(const State& s) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& c : cells(s))
      out.emplace_back(key_text(c.field, c.entity), to_string(c.value));
    return out;
  }

  const Params& params() const { return p_; }
  const Layout& layout() const { return layout_; }
  const std::vector<Action>& candidates() const { return candidates_; }
  // Every parameter, hashed: two instances with the same identity behave alike.
  std::uint64_t identity() const { return S::identity(p_); }

 private:
  // A dependent axis's label needs its parent's entity: the argument on the parent axis.
  static int parent_arg(const ActionKind& kind, const ActionRef& ref, const Axis& axis) {
    if (axis.parent < 0) return -1;
    for (std::size_t i = 0; i < kind.args.size(); ++i)
      if (kind.args[i].axis == axis.parent) return ref.args[i];
    return -1;
  }
  // The State's members are the layout's fields, in order, each as long as its axes say.
  void check_layout(const State& s) const {
    std::size_t k = 0;
    boost::hana::for_each(boost::hana::accessors<State>(), [&](const auto& acc) {
      KMC_ASSERT_MSG(k < layout_.fields.size(), "a State member the layout does not declare");
      const auto& field = layout_.fields[k++];
      KMC_ASSERT_MSG(field.name == boost::hana::to<const char*>(boost::hana::first(acc)),
                     "fields in declaration order");
      KMC_ASSERT_MSG(boost::hana::second(acc)(s).size() == layout_.size(field),
                     "a field's length is its axes'");
    });
    KMC_ASSERT_MSG(k == layout_.fields.size(), "a layout field the State lacks");
  }

  Params p_;
  Layout layout_;
  Packing packing_;
  std::vector<Action> candidates_;
  std::vector<int> family_;  // per candidate
  Canonicalizer canon_;      // inactive unless the spec declares a symmetry
};

}  // namespace kmc::model
