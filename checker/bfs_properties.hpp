// What the search evaluates in every state: which properties it checks and
// how each is laid out in a candidate's bits (add_property,
// select_properties), their evaluation on a new state (evaluate), on an edge
// (step_marks), and the keys and enabled families the graph analyses read.
// Included by bfs.hpp only.
#pragma once

namespace kmc::checker {

template <model::Protocol P>
void Bfs<P>::add_property(const model::Property<State>& prop) {
  switch (prop.kind()) {
    case model::PropertyKind::Always:
      always_.push_back(prop);
      break;
    case model::PropertyKind::Sometimes:
      sometimes_.push_back(prop);
      break;
    case model::PropertyKind::StuckFree:
      stuck_offset_.push_back(stuck_subjects_);
      stuck_subjects_ += prop.subjects();
      stuck_.push_back(prop);
      break;
    case model::PropertyKind::LeadsTo:
      leads_to_offset_.push_back(leads_to_pairs_);
      leads_to_pairs_ += prop.subjects();
      leads_to_.push_back(prop);
      break;
    case model::PropertyKind::RecurrenceFree:
      recurrence_offset_.push_back(recurrence_subjects_);
      recurrence_subjects_ += prop.subjects();
      recurrence_.push_back(prop);
      break;
  }
}

template <model::Protocol P>
void Bfs<P>::select_properties() {
  auto wanted = [&](const std::string& name) {
    return opt_.properties.empty() ||
           std::find(opt_.properties.begin(), opt_.properties.end(), name) != opt_.properties.end();
  };
  for (auto& prop : p_.properties())
    if (wanted(prop.name())) add_property(prop);
  // Stuck detection stays on whenever leads-to is checked: a frozen job is
  // the plainest way never to get anywhere. Not for a recurrence: a frozen
  // job repeats nothing, and a stuck verdict would hide whether the same
  // scenario also retries forever, which is the question asked.
  if (!leads_to_.empty() && stuck_.empty())
    for (auto& prop : p_.properties())
      if (prop.kind() == model::PropertyKind::StuckFree) add_property(prop);
  if (2 * leads_to_pairs_ + recurrence_subjects_ > 64)
    throw SubjectLimit(fmt::format(
        "the liveness properties checked follow {} bits per state and at most 64 fit (2 per "
        "subject of a leads-to property such as eventually-runs, 1 per subject of a recurrence "
        "such as no-endless-retry): check them one at a time (--property), or fewer jobs",
        2 * leads_to_pairs_ + recurrence_subjects_));
  if (stuck_subjects_ > 64)
    throw SubjectLimit(fmt::format(
        "the stuck-freedom properties checked follow {} subjects and at most 64 fit: check them "
        "one at a time (--property), or fewer jobs",
        stuck_subjects_));
  if (always_.size() > 64 || sometimes_.size() > 64)
    throw SubjectLimit("at most 64 always and 64 sometimes properties in one search");
  witness_.assign(sometimes_.size(), std::nullopt);
  graph_.changes.set_bits(stuck_subjects_);
  graph_.should_move.set_bits(stuck_subjects_);
}

template <model::Protocol P>
void Bfs<P>::evaluate(const State& s, Candidate& out) const {
  for (std::size_t i = 0; i < always_.size(); ++i)
    if (!model::rule<model::Always>(always_[i]).holds(s))
      out.always_failed |= std::uint64_t{1} << i;
  for (std::size_t i = 0; i < sometimes_.size(); ++i)
    if (model::rule<model::Sometimes>(sometimes_[i]).holds(s))
      out.sometimes_held |= std::uint64_t{1} << i;
  for (std::size_t k = 0; k < stuck_.size(); ++k)
    for (int i = 0; i < stuck_[k].subjects(); ++i)
      if (model::rule<model::StuckFree>(stuck_[k]).should_move(s, i))
        out.should_move |= std::uint64_t{1} << (stuck_offset_[k] + i);
  for (std::size_t k = 0; k < leads_to_.size(); ++k) {
    const auto& rule = model::rule<model::LeadsTo>(leads_to_[k]);
    for (int i = 0; i < rule.subjects; ++i) {
      const int pair = leads_to_offset_[k] + i;
      if (rule.premise(s, i)) out.holds |= std::uint64_t{1} << (2 * pair);
      if (rule.goal(s, i)) out.holds |= std::uint64_t{1} << (2 * pair + 1);
    }
  }
  for (std::size_t k = 0; k < recurrence_.size(); ++k)
    for (int i = 0; i < recurrence_[k].subjects(); ++i)
      if (model::rule<model::RecurrenceFree>(recurrence_[k]).premise(s, i))
        out.holds |= std::uint64_t{1} << recurrence_premise_bit(recurrence_offset_[k] + i);
}

// The recurrence subjects whose step predicate the edge from -> to satisfies;
// evaluated on every edge, new successor or not, since the mark is the edge's.
template <model::Protocol P>
std::uint64_t Bfs<P>::step_marks(const State& from, const State& to) const {
  std::uint64_t marks = 0;
  for (std::size_t k = 0; k < recurrence_.size(); ++k)
    for (int i = 0; i < recurrence_[k].subjects(); ++i)
      if (model::rule<model::RecurrenceFree>(recurrence_[k]).step(from, to, i))
        marks |= std::uint64_t{1} << (recurrence_offset_[k] + i);
  return marks;
}

template <model::Protocol P>
std::uint64_t Bfs<P>::enabled_families(const std::vector<Action>& actions) const {
  std::uint64_t mask = 0;
  for (const auto& a : actions) mask |= std::uint64_t{1} << family_of(a);
  return mask;
}

}  // namespace kmc::checker
