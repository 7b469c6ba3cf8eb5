// What the search keeps per stored state: its graph columns (grown once per
// merge, written per state), the initial states, the first violation and
// witnesses it records, the depth bound, and the path back to a state.
// Included by bfs.hpp only.
#pragma once

namespace kmc::checker {

// The graph's per-state columns hold every state numbered so far (new ones
// unexpanded), so that add_state() can fill them from any worker.
template <model::Protocol P>
void Bfs<P>::grow_state_columns() {
  if (!keep_graph()) return;
  graph_.expanded.resize(stored_, false);
  if (!stuck_.empty()) graph_.should_move.grow_to(stored_);
  if (live()) graph_.enabled.grow_to(stored_), graph_.holds.grow_to(stored_);
}

// A numbered state's graph columns; distinct states write distinct bytes.
template <model::Protocol P>
void Bfs<P>::add_state(const Candidate& c) {
  if (!stuck_.empty()) graph_.should_move.set(c.index, c.should_move);
  if (live()) graph_.enabled[c.index] = 0, graph_.holds[c.index] = c.holds;
}

// Every stuck subject's key, in bit order; computed once per state, not per edge.
template <model::Protocol P>
void Bfs<P>::subject_keys(const State& s, std::vector<std::uint64_t>& out) const {
  out.clear();
  for (std::size_t k = 0; k < stuck_.size(); ++k)
    for (int i = 0; i < stuck_[k].subjects(); ++i)
      out.push_back(model::rule<model::StuckFree>(stuck_[k]).key(s, i));
}

template <model::Protocol P>
bool Bfs<P>::record(std::uint32_t index, const Candidate& c) {
  for (std::size_t i = 0; i < sometimes_.size(); ++i)
    if ((c.sometimes_held >> i & 1) && !witness_[i]) witness_[i] = index;
  if (c.always_failed == 0 || violation_) return violation_.has_value();
  const int first = std::countr_zero(c.always_failed);
  violation_ = Violation{
      always_[first].name(), model::PropertyKind::Always, Shape::Reached, path_to(index), "", -1,
      std::nullopt};
  return true;
}

template <model::Protocol P>
bool Bfs<P>::deadlock_at(std::uint32_t index) {
  if (!violation_)
    violation_ = Violation{"deadlock",
                           model::PropertyKind::Always,
                           Shape::Reached,
                           path_to(index),
                           "no action is enabled, and the protocol does not end here",
                           -1,
                           std::nullopt};
  return true;
}

template <model::Protocol P>
bool Bfs<P>::add_initial(const State& init, std::uint32_t init_index) {
  State s = init;
  canonical(s);
  std::vector<std::uint64_t> words(packing_.words());
  packing_.pack(s, words.data());
  const std::uint64_t fp = hash(words.data());
  if (seen_->insert(fp, stored_) != SeenSet::kAbsent) return false;
  Candidate c{0, init_index};
  evaluate(s, c);
  const std::uint32_t index = c.index = stored_++;
  parent_.push_back(index);
  choice_.push_back(static_cast<std::uint16_t>(init_index));
  grow_state_columns();
  if (keep_graph()) add_state(c);
  next_.push_back(words.data());
  return record(index, c);
}

// At the depth bound: the bound matters only if some state on it could still move.
template <model::Protocol P>
bool Bfs<P>::depth_bound() {
  Scratch& part = scratch_[0];
  const std::size_t n = level_.size();
  bool bounded = false;
  for (std::size_t pos = 0; pos < n; ++pos) {
    packing_.unpack(level_.row(pos), part.cur);
    part.actions.clear();
    p_.actions(part.cur, part.actions);
    const auto index = static_cast<std::uint32_t>(level_base_ + pos);
    if (!part.actions.empty()) {
      bounded = true;
      continue;
    }
    if (opt_.deadlock && !valid_end(part.cur)) return deadlock_at(index), false;
    if (keep_graph()) graph_.expanded[index] = true;
  }
  return bounded;
}

template <model::Protocol P>
Path Bfs<P>::path_to(std::uint32_t index) const {
  Path path;
  while (parent_[index] != index) {
    path.choices.push_back(choice_[index]);
    index = parent_[index];
  }
  path.init = choice_[index];
  std::reverse(path.choices.begin(), path.choices.end());
  return path;
}

}  // namespace kmc::checker
