// A property is a sum type: one rule of five kinds, each with only the
// predicates its kind reads, under a name (printed, used on the command line)
// and one English sentence. Properties are built by one factory per kind, so
// a property file states its predicates and nothing else, and a checker that
// reads a stuck property's key cannot be handed a leads-to property by mistake.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/diagnostics.hpp"

namespace kmc::model {

// The order of the variant's alternatives below.
enum class PropertyKind {
  Always,     // holds in every reachable state (safety)
  Sometimes,  // holds in some reachable state (guards against vacuity)
  StuckFree,  // no reachable state leaves a subject frozen forever while it should move
  LeadsTo,    // under the run's fairness, every behaviour reaching premise later reaches goal
  // Under the run's fairness, no behaviour stays in premise forever while a
  // `step` keeps recurring: not (<>[]premise /\ []<>step). "No job retries
  // forever while some worker could run it". An acceptance condition on
  // steps, not states, so leads-to cannot say it.
  RecurrenceFree,
};

// Leads-to and recurrence-free: verdicts that depend on the fairness assumed,
// and violations that are lassos.
constexpr bool is_liveness(PropertyKind k) {
  return k == PropertyKind::LeadsTo || k == PropertyKind::RecurrenceFree;
}

template <class State>
struct Always {
  std::function<bool(const State&)> holds;
};

template <class State>
struct Sometimes {
  std::function<bool(const State&)> holds;
};

// Per subject (e.g. jobs 0..subjects-1): a subject is stuck in a state where
// it `should_move` and no sequence of actions from there ever changes its `key`.
template <class State>
struct StuckFree {
  int subjects = 0;
  std::function<std::uint64_t(const State&, int)> key;
  std::function<bool(const State&, int)> should_move;
};

// Per subject: premise(s, i) ~> goal(s, i). "Eventually goal" is a premise
// that holds initially; "always eventually" one that always holds.
template <class State>
struct LeadsTo {
  int subjects = 0;
  std::function<bool(const State&, int)> premise, goal;
};

// Per subject: premise(s, i) as for leads-to, and step(from, to, i), a
// relation on a pair of states (a TLA+ action) that must not recur forever
// while the premise holds.
template <class State>
struct RecurrenceFree {
  int subjects = 0;
  std::function<bool(const State&, int)> premise;
  std::function<bool(const State&, const State&, int)> step;
};

template <class State>
class Property {
 public:
  using Rule = std::variant<Always<State>, Sometimes<State>, StuckFree<State>, LeadsTo<State>,
                            RecurrenceFree<State>>;
  // Why subject i of state s is a violation, in the property's words; may be empty.
  using Explain = std::function<std::string(const State&, int)>;

  static Property always(std::string name, std::string description, Always<State> rule) {
    require(static_cast<bool>(rule.holds), name, "holds");
    return Property(std::move(name), std::move(description), std::move(rule), {});
  }
  static Property sometimes(std::string name, std::string description, Sometimes<State> rule) {
    require(static_cast<bool>(rule.holds), name, "holds");
    return Property(std::move(name), std::move(description), std::move(rule), {});
  }
  static Property stuck_free(std::string name, std::string description, StuckFree<State> rule,
                             Explain explain = {}) {
    require(rule.key && rule.should_move && rule.subjects >= 0, name, "key and should_move");
    return Property(std::move(name), std::move(description), std::move(rule), std::move(explain));
  }
  static Property leads_to(std::string name, std::string description, LeadsTo<State> rule,
                           Explain explain = {}) {
    require(rule.premise && rule.goal && rule.subjects >= 0, name, "premise and goal");
    return Property(std::move(name), std::move(description), std::move(rule), std::move(explain));
  }
  static Property recurrence_free(std::string name, std::string description,
                                  RecurrenceFree<State> rule, Explain explain = {}) {
    require(rule.premise && rule.step && rule.subjects >= 0, name, "premise and step");
    return Property(std::move(name), std::move(description), std::move(rule), std::move(explain));
  }

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  PropertyKind kind() const { return static_cast<PropertyKind>(rule_.index()); }
  const Rule& rule() const { return rule_; }
  // Subjects of a per-subject kind; 0 for Always and Sometimes.
  int subjects() const {
    return std::visit(
        [](const auto& r) {
          if constexpr (requires { r.subjects; })
            return r.subjects;
          else
            return 0;
        },
        rule_);
  }
  // The axis whose entities a per-subject property's subjects are ("job"), when it says so.
  // Symmetry reduction (checker/bfs.hpp) is sound for a graph property only
  // when no permutation renames its subjects: it needs to know which they are.
  const std::string& subject_axis() const { return subject_axis_; }
  Property over(std::string axis) && {
    subject_axis_ = std::move(axis);
    return std::move(*this);
  }
  bool explains() const { return static_cast<bool>(explain_); }
  std::string explain(const State& s, int subject) const {
    return explain_ ? explain_(s, subject) : std::string();
  }

 private:
  Property(std::string name, std::string description, Rule rule, Explain explain)
      : name_(std::move(name)),
        description_(std::move(description)),
        rule_(std::move(rule)),
        explain_(std::move(explain)) {}
  // A property without its predicates is a programming error, caught where it is made.
  static void require(bool ok, const std::string& name, const char* what) {
    if (!ok) throw std::invalid_argument("property " + name + ": " + what + " must be given");
  }

  std::string name_, description_;
  std::string subject_axis_;
  Rule rule_;
  Explain explain_;
};

// The rule of a property of a known kind: rule<LeadsTo>(prop).premise(s, i).
// Throws std::bad_variant_access for another kind.
template <template <class> class Kind, class State>
const Kind<State>& rule(const Property<State>& p) {
  return std::get<Kind<State>>(p.rule());
}

// Throws InputError naming `where` and `field` for a name that is not a property.
template <class State>
void require_known(const std::vector<Property<State>>& props, const std::vector<std::string>& names,
                   const SourcePos& where, const std::string& field) {
  std::vector<std::string> known;
  for (const auto& p : props) known.push_back(p.name());
  for (const auto& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw InputError(
          where, field,
          fmt::format("unknown property '{}'; expected one of {}", name, fmt::join(known, ", ")));
}

// What runs when nobody names properties: every safety, stuck and sometimes
// property. Liveness needs stated fairness, so it runs only when asked for.
template <class State>
std::vector<std::string> default_properties(const std::vector<Property<State>>& props) {
  std::vector<std::string> names;
  for (const auto& p : props)
    if (!is_liveness(p.kind())) names.push_back(p.name());
  return names;
}

}  // namespace kmc::model
