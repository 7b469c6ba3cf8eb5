// Symmetry reduction in the search (model/symmetry.hpp): whether it is
// sound for the properties and fairness asked (plan_reductions), and a
// reduced path or lasso made a path of the protocol itself again (concrete,
// concrete_lasso). Included by bfs.hpp only.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace kmc::checker {

template <model::Protocol P>
void Bfs<P>::plan_reductions() {
  if constexpr (requires(State & x) {
                  p_.symmetric();
                  p_.symmetry_summary();
                  p_.symmetry_axes();
                  p_.symmetry_notes();
                  p_.canonicalize(x);
                }) {
    if (!opt_.symmetry) return;
    // What the protocol could not reduce, and why, even when nothing is.
    for (const auto& note : p_.symmetry_notes()) reductions_.push_back(note);
    if (!p_.symmetric()) return;
    // A graph property follows each subject from state to state: sound on
    // the reduced graph only when no permutation renames its subjects (its
    // edges' changes are computed before the successor is canonicalised), and
    // when fairness does not name single action instances, which a
    // permutation would rename too.
    const auto axes = p_.symmetry_axes();
    std::string refused;
    for (const auto* kind : {&stuck_, &leads_to_, &recurrence_})
      for (const auto& prop : *kind) {
        const auto& axis = prop.subject_axis();
        if (axis.empty())
          refused = prop.name() + " does not say which entities its subjects are";
        else if (std::find(axes.begin(), axes.end(), axis) != axes.end())
          refused = prop.name() + " follows one " + axis + " from state to state, and the " + axis +
                    "s are what symmetry permutes";
      }
    if (refused.empty() && live() && opt_.per_instance)
      refused = "fairness is per action instance, and a permutation renames instances";
    if (!refused.empty()) {
      reductions_.push_back("symmetry not used: " + refused +
                            " (it is sound for always and sometimes properties and deadlock: "
                            "check those alone with --property to use it)");
      return;
    }
    reduce_ = true;
    for (const auto& line : p_.symmetry_summary()) reductions_.push_back(line);
  }
}

// A path of the reduced graph, whose every state is a representative, as a
// path of the protocol itself: from the real initial state, each step takes
// the first enabled action whose successor has the representative the
// reduced path reached. One exists because permuting interchangeable
// entities maps the protocol's transitions onto its transitions; if none
// does, the protocol declared a symmetry it does not have, which is a bug
// to report, never a trace to print.
template <model::Protocol P>
std::uint32_t Bfs<P>::concrete_step(State& x, State& c, std::uint32_t reduced_choice,
                                    std::size_t step) const {
  std::vector<Action> acts;
  State want, y, yc;
  p_.actions(c, acts);
  next_into(c, acts.at(reduced_choice), want);
  canonical(want);
  acts.clear();
  p_.actions(x, acts);
  for (std::uint32_t i = 0; i < acts.size(); ++i) {
    next_into(x, acts[i], y);
    yc = y;
    canonical(yc);
    if (yc == want) {
      x = std::move(y), c = std::move(want);
      return i;
    }
  }
  throw std::logic_error("checker: symmetry reduction: step " + std::to_string(step + 1) +
                         " of the reduced path has no counterpart in the protocol: its declared "
                         "symmetry is not one (run with --no-symmetry)");
}

template <model::Protocol P>
Path Bfs<P>::concrete(const Path& reduced) const {
  Path out{reduced.init, {}};
  State x = p_.init_states().at(reduced.init), c = x;
  canonical(c);
  for (std::size_t step = 0; step < reduced.choices.size(); ++step)
    out.choices.push_back(concrete_step(x, c, reduced.choices[step], step));
  return out;
}

// A reduced lasso returns to its loop's representative, so the protocol's
// own steps return to a permutation of where the loop began. Walking the
// loop again from there, each walk deterministic, the walks' start states
// repeat within the orbit: the concrete lasso loops back to the first start
// that repeats. Every walk takes the same families and passes the same
// premises (the subjects are not renamed), so fairness and the property
// read it as they read the reduced loop.
template <model::Protocol P>
Path Bfs<P>::concrete_lasso(const Path& reduced, std::size_t& loop) const {
  Path out{reduced.init, {}};
  State x = p_.init_states().at(reduced.init), c = x;
  canonical(c);
  for (std::size_t step = 0; step < loop; ++step)
    out.choices.push_back(concrete_step(x, c, reduced.choices[step], step));
  std::vector<State> starts;
  std::vector<std::size_t> at;
  for (;;) {
    for (std::size_t k = 0; k < starts.size(); ++k)
      if (starts[k] == x) {  // the last walk ended where walk k began: loop back there
        loop = at[k];
        return out;
      }
    if (starts.size() > 100000)
      throw std::logic_error("checker: symmetry reduction: a lasso did not close");
    starts.push_back(x);
    at.push_back(out.choices.size());
    for (std::size_t step = loop; step < reduced.choices.size(); ++step)
      out.choices.push_back(concrete_step(x, c, reduced.choices[step], step));
  }
}

}  // namespace kmc::checker
