// The end of a search: per-property verdicts, stuck subjects, figures.
// Included by bfs.hpp only.
#pragma once

#include <cmath>

namespace kmc::checker {

// Liveness, leads-to first then recurrence, each in order; the first lasso found is the violation.
template <model::Protocol P>
void Bfs<P>::check_liveness() {
  check_leads_to();
  if (!violation_) check_recurrence();
}

// A subject whose premise never holds says nothing about that subject (a
// workload that is never within its guarantee): no lasso is looked for. The
// property as a whole is Vacuous when this holds for every subject
// (premise_never_holds, in finish()).
template <model::Protocol P>
bool Bfs<P>::never_holds(std::uint64_t premise_bit) const {
  for (std::size_t s = 0; s < graph_.holds.size(); ++s)
    if (graph_.holds[s] & premise_bit) return false;
  return true;
}

// The BFS path to the lasso's start, then its edges; `loop` is where the cycle begins.
template <model::Protocol P>
void Bfs<P>::lasso_violation(const model::Property<State>& prop, int subject, const Lasso& lasso) {
  Path path = path_to(lasso.start);
  for (auto e : lasso.to_cycle) path.choices.push_back(graph_.choice[e]);
  std::size_t loop = path.choices.size();
  for (auto e : lasso.cycle) path.choices.push_back(graph_.choice[e]);
  if (reduce_) path = concrete_lasso(path, loop);
  const Shape shape = lasso_shape(loop, path.choices.size());
  violation_ = Violation{
      prop.name(), prop.kind(), shape, std::move(path), story(shape, prop.kind()), subject, loop};
}

template <model::Protocol P>
void Bfs<P>::check_leads_to() {
  for (std::size_t k = 0; k < leads_to_.size() && !violation_; ++k)
    for (int i = 0; i < leads_to_[k].subjects() && !violation_; ++i) {
      const int pair = leads_to_offset_[k] + i;
      if (never_holds(std::uint64_t{1} << (2 * pair))) continue;
      auto lasso = find_lasso(graph_, LeadsToQuery{2 * pair, 2 * pair + 1, opt_.fairness});
      if (!lasso) continue;
      lasso_violation(leads_to_[k], i, *lasso);
    }
  // Each property before the violated one was examined to the end; those after it were not.
  for (std::size_t k = 0; k < leads_to_.size(); ++k) {
    if (violation_ && violation_->property == leads_to_[k].name()) break;
    decided_.insert(leads_to_[k].name());
  }
}

template <model::Protocol P>
void Bfs<P>::check_recurrence() {
  for (std::size_t k = 0; k < recurrence_.size() && !violation_; ++k)
    for (int i = 0; i < recurrence_[k].subjects() && !violation_; ++i) {
      const int bit = recurrence_offset_[k] + i, premise = recurrence_premise_bit(bit);
      if (never_holds(std::uint64_t{1} << premise)) continue;
      auto lasso = find_recurrence(graph_, RecurrenceQuery{premise, bit, opt_.fairness});
      if (!lasso) continue;
      lasso_violation(recurrence_[k], i, *lasso);
      if (recurrence_[k].explains()) {  // in the property's words, at the loop's first state
        const auto states = replay(p_, violation_->path);
        violation_->detail = recurrence_[k].explain(states[*violation_->loop], i);
      }
    }
  // Each property before the violated one was examined to the end; those after it were not.
  for (std::size_t k = 0; k < recurrence_.size(); ++k) {
    if (violation_ && violation_->property == recurrence_[k].name()) break;
    decided_.insert(recurrence_[k].name());
  }
}

template <model::Protocol P>
Result Bfs<P>::finish(std::string bound) {
  // The search's own structures go before the graph analyses build theirs,
  // so those reuse the memory instead of adding to the peak.
  seen_.reset();
  level_ = Rows{}, next_ = Rows{};
  shares_.clear();
  if (out_of_memory_)  // read now, with the search's memory given back
    bound = "an allocation failure (out of memory at peak resident " +
            format_size(peak_resident_bytes()) + ")";
  Result r;
  const bool complete = bound.empty() && !violation_;
  if (live() && !opt_.fairness_labels.empty()) r.assumptions = opt_.fairness_labels;
  if (live() && opt_.fairness_labels.empty()) {
    std::vector<std::string> names;
    if constexpr (requires { p_.families(); }) names = p_.families();
    for (std::size_t f = 0; f < names.size(); ++f)
      r.assumptions.push_back(
          names[f] + " " + to_string(f < opt_.fairness.size() ? opt_.fairness[f] : Fairness::None));
  }
  auto clock = std::chrono::steady_clock::now();
  if (!violation_ && !stuck_.empty() && analyses_) {
    const auto found = find_stuck(graph_, stuck_subjects_);
    // No stuck subject of any property: each is decided. One found: only its property is.
    if (!found)
      for (auto& prop : stuck_) decided_.insert(prop.name());
    if (found) {
      std::size_t k = 0;
      while (k + 1 < stuck_.size() && stuck_offset_[k + 1] <= found->subject) ++k;
      const int subject = found->subject - stuck_offset_[k];
      Violation v{stuck_[k].name(),
                  model::PropertyKind::StuckFree,
                  Shape::Stuck,
                  reduce_ ? concrete(path_to(found->state)) : path_to(found->state),
                  "",
                  subject,
                  std::nullopt};
      if (stuck_[k].explains()) {
        const auto states = replay(p_, v.path);
        v.detail = stuck_[k].explain(states.back(), subject);
      }
      violation_ = std::move(v);
    }
  }
  // After stuck, whose frozen job is the plainer story and stays the reported violation; the
  // liveness properties are still decided on the whole graph, so the table says what each is
  // (a stuck job never runs: eventually-runs is violated too, not Verified by default).
  if (complete && live() && analyses_) {
    std::optional<Violation> stuck = std::move(violation_);
    violation_.reset();
    check_liveness();
    if (violation_) liveness_violated_ = violation_->property;
    if (stuck) violation_ = std::move(stuck);
  }
  lap(phases_.analyses, clock);
  auto verdict_of = [&](const std::string& name, bool violated, bool settled) {
    if (violation_ && violation_->property == name) return Verdict::Violated;
    if (violated || name == liveness_violated_) return Verdict::Violated;
    return settled ? Verdict::Verified : Verdict::Incomplete;
  };
  for (auto& prop : always_)
    r.properties.push_back({prop.name(), prop.kind(), verdict_of(prop.name(), false, complete)});
  for (std::size_t i = 0; i < sometimes_.size(); ++i) {
    const bool found = witness_[i].has_value();
    r.properties.push_back(
        {sometimes_[i].name(), sometimes_[i].kind(),
         found ? Verdict::Verified : (complete ? Verdict::Violated : Verdict::Incomplete)});
  }
  for (auto& prop : stuck_)
    r.properties.push_back(
        {prop.name(), prop.kind(),
         verdict_of(prop.name(), false, complete && decided_.contains(prop.name()))});
  // A liveness property whose premise holds for none of its subjects in a complete search is
  // Vacuous (result.hpp), whatever was decided of the others; only the whole graph shows it.
  const bool whole_graph = complete && analyses_;
  auto premise_never_holds = [&](std::uint64_t premises) {
    for (auto h : graph_.holds)
      if (h & premises) return false;
    return true;
  };
  auto liveness_verdict = [&](const model::Property<State>& prop, std::uint64_t premises) {
    if (whole_graph && premise_never_holds(premises))
      return PropertyResult{prop.name(), prop.kind(), Verdict::Vacuous};
    return PropertyResult{
        prop.name(), prop.kind(),
        verdict_of(prop.name(), false, complete && decided_.contains(prop.name()))};
  };
  for (std::size_t k = 0; k < leads_to_.size(); ++k) {
    std::uint64_t premises = 0;
    for (int i = 0; i < leads_to_[k].subjects(); ++i)
      premises |= std::uint64_t{1} << (2 * (leads_to_offset_[k] + i));
    r.properties.push_back(liveness_verdict(leads_to_[k], premises));
  }
  for (std::size_t k = 0; k < recurrence_.size(); ++k) {
    std::uint64_t premises = 0;
    for (int i = 0; i < recurrence_[k].subjects(); ++i)
      premises |= std::uint64_t{1} << recurrence_premise_bit(recurrence_offset_[k] + i);
    r.properties.push_back(liveness_verdict(recurrence_[k], premises));
  }
  // A "sometimes" that never held in a complete search is a violation too:
  // the scenario is over-constrained, and passing it would be vacuous.
  if (!violation_) {
    for (std::size_t i = 0; i < sometimes_.size(); ++i)
      if (complete && !witness_[i]) {
        violation_ = Violation{sometimes_[i].name(),
                               model::PropertyKind::Sometimes,
                               Shape::Unwitnessed,
                               Path{},
                               story(Shape::Unwitnessed, model::PropertyKind::Sometimes),
                               -1,
                               std::nullopt};
        break;
      }
  }
  // A reduced search's path runs through representatives: the trace is the protocol's own.
  if (reduce_ && violation_ && violation_->shape == Shape::Reached)
    violation_->path = concrete(violation_->path);
  r.violation = violation_;
  r.reductions = reductions_;
  if (stubborn_)
    r.reductions.push_back(fmt::format(
        "partial-order reduction: stubborn sets over footprints read off the rules ({} of {} "
        "actions visible to the properties); {} states expanded through a stubborn subset, {} "
        "fully by the cycle proviso",
        stubborn_->visible_actions(), stubborn_->candidates(), por_reduced_, por_proviso_));
  bool any_incomplete = false;
  for (auto& pr : r.properties)
    any_incomplete = any_incomplete || pr.verdict == Verdict::Incomplete;
  r.verdict =
      violation_ ? Verdict::Violated : (any_incomplete ? Verdict::Incomplete : Verdict::Verified);
  if (r.verdict == Verdict::Incomplete) r.incomplete_reason = bound.empty() ? "stopped" : bound;

  Stats& st = r.stats;
  st.states = stored_;
  st.transitions = transitions_;
  st.depth = depth_;
  st.phases = phases_;
  r.explored_depth = initial_stored_ ? depth_ : -1;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  st.states_per_s = st.seconds > 0 ? st.states / st.seconds : 0;
  // What the process really grew by during the search, per stored state.
  st.peak_rss_bytes = peak_resident_bytes();
  const double grown = st.peak_rss_bytes > base_rss_ ? double(st.peak_rss_bytes - base_rss_) : 0.0;
  st.bytes_per_state = st.states ? grown / st.states : 0;
  const double n = static_cast<double>(st.states);
  st.collision_probability = std::min(1.0, n * n / std::ldexp(1.0, 65));
  report_progress(depth_, true);
  return r;
}

template <model::Protocol P>
std::vector<typename P::State> Bfs<P>::replay(const P& p, const Path& path) {
  return checker::replay(p, path);
}

}  // namespace kmc::checker
