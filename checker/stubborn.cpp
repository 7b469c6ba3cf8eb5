#include "checker/stubborn.hpp"

#include <algorithm>
#include <limits>

namespace kmc::checker {

namespace {

// One row of a relation built from per-variable lists, without duplicates.
void add_row(std::vector<std::uint32_t>& begin, std::vector<std::uint32_t>& rows,
             std::vector<std::uint32_t>& seen, std::uint32_t self, std::uint32_t stamp,
             const std::vector<const std::vector<std::uint32_t>*>& sources) {
  for (const auto* list : sources)
    for (std::uint32_t b : *list)
      if (b != self && seen[b] != stamp) seen[b] = stamp, rows.push_back(b);
  begin.push_back(static_cast<std::uint32_t>(rows.size()));
}

}  // namespace

StubbornSets::StubbornSets(const model::Footprints& f, const std::vector<std::string>& properties)
    : f_(f) {
  const std::size_t n = f.guard.size();
  const auto vars = static_cast<std::size_t>(f.variables);
  // Per variable: the actions that write it, and those that read it (guard or update).
  std::vector<std::vector<std::uint32_t>> writers(vars), readers(vars);
  for (std::uint32_t a = 0; a < n; ++a) {
    for (int v : f.writes[a]) writers[v].push_back(a);
    for (const auto* set : {&f.guard[a], &f.reads[a]})
      for (int v : *set)
        if (readers[v].empty() || readers[v].back() != a) readers[v].push_back(a);
  }
  // The checked properties, by their index in the footprints.
  std::vector<char> checked(f.property_reads.size(), 0);
  for (std::size_t k = 0; k < f.property_reads.size(); ++k)
    checked[k] = std::find(properties.begin(), properties.end(), f.property_reads[k].first) !=
                 properties.end();
  std::vector<std::uint32_t> seen(n, std::numeric_limits<std::uint32_t>::max());
  dep_begin_.push_back(0), nes_begin_.push_back(0), conj_begin_.push_back(0);
  visible_.assign(n, 0);
  std::uint32_t stamp = 0;
  for (std::uint32_t a = 0; a < n; ++a) {
    std::vector<const std::vector<std::uint32_t>*> affects, enables;
    for (int v : f.writes[a]) affects.push_back(&writers[v]), affects.push_back(&readers[v]);
    for (int k : f.disturbs[a]) visible_[a] = visible_[a] || checked[k];
    for (const auto* set : {&f.guard[a], &f.reads[a]})
      for (int v : *set) affects.push_back(&writers[v]);
    for (int v : f.guard[a]) enables.push_back(&writers[v]);
    add_row(dep_begin_, dep_, seen, a, stamp++, affects);
    add_row(nes_begin_, nes_, seen, a, stamp++, enables);
    conj_of_.push_back(static_cast<std::uint32_t>(conj_begin_.size() - 1));  // its first row
    for (const auto& cj : f.conjuncts[a]) {
      std::vector<const std::vector<std::uint32_t>*> writes;
      for (int v : cj.reads) writes.push_back(&writers[v]);
      add_row(conj_begin_, conj_, seen, a, stamp++, writes);
    }
  }
}

std::size_t StubbornSets::visible_actions() const {
  return static_cast<std::size_t>(std::count(visible_.begin(), visible_.end(), 1));
}

std::int32_t StubbornSets::false_conjunct(std::uint32_t t, const std::vector<std::int64_t>& state,
                                          Scratch& s) const {
  if (s.chosen_at[t] == s.state) return s.chosen[t];
  std::int32_t found = -1;
  const auto& conjuncts = f_.conjuncts[t];
  for (std::size_t k = 0; k < conjuncts.size() && found < 0; ++k)
    if (conjuncts[k].compiled && conjuncts[k].formula.eval(state, s.values) == 0)
      found = static_cast<std::int32_t>(k);
  s.chosen_at[t] = s.state, s.chosen[t] = found;
  return found;
}

std::size_t StubbornSets::closure(std::uint32_t seed, const std::vector<std::int64_t>& state,
                                  Scratch& s, std::size_t best, bool& visible) const {
  const std::uint64_t epoch = ++s.epoch;
  std::size_t enabled = 0;
  visible = false;
  s.stack.clear();
  s.stack.push_back(seed);
  s.mark[seed] = epoch;
  while (!s.stack.empty()) {
    const std::uint32_t t = s.stack.back();
    s.stack.pop_back();
    const bool on = s.enabled_at[t] == s.state;
    const std::vector<std::uint32_t>* begin = &dep_begin_;
    const std::vector<std::uint32_t>* rows = &dep_;
    std::uint32_t row = t;
    if (on) {
      // A proper subset with a visible action is no stubborn set for the properties: give up.
      if (visible_[t]) return visible = true, enabled;
      if (++enabled > best) return enabled;
    } else if (const std::int32_t k = false_conjunct(t, state, s); k >= 0) {
      // D2 through the first conjunct false here: only its writers can enable t.
      begin = &conj_begin_, rows = &conj_, row = conj_of_[t] + static_cast<std::uint32_t>(k);
    } else {
      begin = &nes_begin_, rows = &nes_;  // every writer of its guard
    }
    for (std::uint32_t k = (*begin)[row]; k < (*begin)[row + 1]; ++k)
      if (const std::uint32_t b = (*rows)[k]; s.mark[b] != epoch)
        s.mark[b] = epoch, s.stack.push_back(b);
  }
  return enabled;
}

bool StubbornSets::select(const std::vector<std::uint32_t>& enabled,
                          const std::vector<std::int64_t>& state, Scratch& s,
                          std::vector<std::uint32_t>& positions) const {
  positions.clear();
  if (enabled.size() <= 1) return false;
  const std::size_t n = candidates();
  if (s.mark.size() != n)
    s.mark.assign(n, 0), s.enabled_at.assign(n, 0), s.chosen_at.assign(n, 0),
        s.chosen.assign(n, -1);
  ++s.state;
  for (std::uint32_t id : enabled) s.enabled_at[id] = s.state;
  std::size_t best = enabled.size() - 1;  // a stubborn set must leave some action out to help
  std::uint32_t best_seed = static_cast<std::uint32_t>(n);
  for (std::uint32_t seed : enabled) {
    if (visible_[seed]) continue;  // its own closure holds it
    bool visible = false;
    const std::size_t size = closure(seed, state, s, best, visible);
    if (size > best || visible) continue;
    best = size, best_seed = seed;
    if (best == 1) break;
  }
  if (best_seed == n) return false;
  bool visible = false;
  closure(best_seed, state, s, enabled.size(), visible);  // mark it again, to read its members
  for (std::uint32_t pos = 0; pos < enabled.size(); ++pos)
    if (s.mark[enabled[pos]] == s.epoch) positions.push_back(pos);
  return true;
}

}  // namespace kmc::checker
