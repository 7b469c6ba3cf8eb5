#include "counterexamples/shrink.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kmc::cx {

namespace {

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// `before` minus `after`, as multisets of names, in `before`'s order.
std::vector<std::string> dropped(const std::vector<std::string>& before,
                                 std::vector<std::string> after) {
  std::vector<std::string> out;
  for (const auto& name : before) {
    auto it = std::find(after.begin(), after.end(), name);
    if (it == after.end())
      out.push_back(name);
    else
      after.erase(it);
  }
  return out;
}

std::string listed(const std::vector<std::string>& items) {
  if (items.size() <= 4) return fmt::format("{}", fmt::join(items, ", "));
  return fmt::format("{} and {} more", fmt::join(items.begin(), items.begin() + 3, ", "),
                     items.size() - 3);
}

}  // namespace

std::string describe(const ShrinkReport& r) {
  std::string out;
  if (r.steps_after < r.steps_before)
    out = fmt::format("Shrunk from {} steps to {}", r.steps_before, r.steps_after);
  else
    out = fmt::format("Shrinking kept all {} steps", r.steps_after);
  std::vector<std::string> what;
  std::vector<std::string> gone;
  for (const auto& j : r.dropped_jobs) gone.push_back("job " + j);
  for (const auto& w : r.dropped_workers) gone.push_back("worker " + w);
  if (!gone.empty()) {
    what.push_back("left out " + listed(gone));
    if (r.steps_reduced != r.steps_after)
      what.back() += fmt::format(", where the checker's own trace has {} steps", r.steps_reduced);
  }
  if (!r.dropped_actions.empty()) what.push_back("dropped " + listed(r.dropped_actions));
  if (!r.changed_picks.empty()) what.push_back("changed " + listed(r.changed_picks));
  if (what.empty())
    return out + (r.entities_tried
                      ? ": the violation needs every one of them, and every job and worker.\n"
                      : ": the violation needs every one of them.\n");
  if (r.entities_tried && gone.empty()) what.push_back("every job and worker is needed");
  return out + ": " + fmt::format("{}", fmt::join(what, "; ")) + ".\n";
}

// Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input"
// (2002): test n chunks, then their complements, then refine to 2n chunks.
std::vector<std::size_t> ddmin(std::size_t n,
                               const std::function<bool(const std::vector<std::size_t>&)>& fails) {
  std::vector<std::size_t> current(n);
  for (std::size_t i = 0; i < n; ++i) current[i] = i;
  std::set<std::vector<std::size_t>> tested{current};
  auto test = [&](const std::vector<std::size_t>& c) {
    return tested.insert(c).second && fails(c);
  };
  std::size_t chunks = 2;
  while (current.size() >= 2) {
    chunks = std::min(chunks, current.size());
    const std::size_t len = current.size();
    auto bounds = [&](std::size_t k) {
      return std::pair{k * len / chunks, (k + 1) * len / chunks};
    };
    bool reduced = false;
    for (std::size_t k = 0; k < chunks && !reduced; ++k) {  // a chunk alone
      auto [lo, hi] = bounds(k);
      std::vector<std::size_t> c(current.begin() + lo, current.begin() + hi);
      if (test(c)) current = std::move(c), chunks = 2, reduced = true;
    }
    for (std::size_t k = 0; k < chunks && !reduced && chunks > 2; ++k) {  // a chunk's complement
      auto [lo, hi] = bounds(k);
      std::vector<std::size_t> c(current.begin(), current.begin() + lo);
      c.insert(c.end(), current.begin() + hi, current.end());
      if (test(c))
        current = std::move(c), chunks = std::max<std::size_t>(chunks - 1, 2), reduced = true;
    }
    if (reduced) continue;
    if (chunks == current.size()) break;  // every single element is needed: 1-minimal
    chunks = std::min(current.size(), 2 * chunks);
  }
  if (current.size() == 1 && test({})) current.clear();  // nothing at all may do
  return current;
}

namespace {

std::vector<std::string> names_of(const std::vector<StepChoice>& steps) {
  std::vector<std::string> out;
  for (const auto& s : steps) out.push_back(s.name);
  return out;
}

std::size_t distinct_picks(const std::vector<StepChoice>& steps) {
  std::set<std::pair<std::string, std::string>> all;
  for (const auto& s : steps) all.insert(s.picks.begin(), s.picks.end());
  return all.size();
}

struct Candidate {
  checker::Path path;
  std::optional<std::size_t> loop;
};

// ddmin over the steps; a lasso keeps each step's side of the loop.
Candidate drop_steps(const Replayer& r, const std::vector<std::string>& names, const Candidate& c,
                     int& replays) {
  const std::size_t prefix = c.loop.value_or(names.size());
  auto candidate = [&](const std::vector<std::size_t>& kept) -> std::optional<Candidate> {
    std::vector<std::string> picked;
    for (auto i : kept) picked.push_back(names[i]);
    auto path = r.path_of(picked);
    if (!path) return std::nullopt;
    std::optional<std::size_t> loop;
    if (c.loop)
      loop = static_cast<std::size_t>(
          std::count_if(kept.begin(), kept.end(), [&](auto i) { return i < prefix; }));
    return Candidate{*path, loop};
  };
  const auto kept = ddmin(names.size(), [&](const std::vector<std::size_t>& k) {
    auto cand = candidate(k);
    ++replays;
    return cand && r.violates(cand->path, cand->loop);
  });
  return *candidate(kept);
}

// One swap of a step for a same-kind action whose picks the rest of the trace
// already uses, leaving fewer distinct picks; false when none works.
bool swap_one_pick(const Replayer& r, Candidate& c, std::vector<std::string>& changed,
                   int& replays) {
  const auto steps = r.steps(c.path);
  const auto before = distinct_picks(steps);
  for (std::size_t i = steps.size(); i-- > 0;) {  // later steps follow earlier ones' picks
    std::set<std::pair<std::string, std::string>> others;
    for (std::size_t k = 0; k < steps.size(); ++k)
      if (k != i) others.insert(steps[k].picks.begin(), steps[k].picks.end());
    for (const auto& [name, picks] : steps[i].same_kind) {
      const auto& own = steps[i].picks;  // what the swap keeps (the same job) costs nothing new
      if (!std::all_of(picks.begin(), picks.end(),
                       [&](const auto& pk) { return others.count(pk) || contains(own, pk); }))
        continue;
      auto names = names_of(steps);
      names[i] = name;
      auto path = r.path_of(names);
      ++replays;
      if (!path || !r.violates(*path, c.loop) || distinct_picks(r.steps(*path)) >= before) continue;
      changed.push_back(steps[i].name + " -> " + name);
      c.path = *path;
      return true;
    }
  }
  return false;
}

}  // namespace

ActionShrink shrink_actions(const Replayer& r, const checker::Violation& v) {
  ActionShrink out{v, {}};
  const auto original = names_of(r.steps(v.path));
  out.report.steps_before = out.report.steps_after = original.size();
  if (original.empty() || !r.violates(v.path, v.loop))
    return out;  // nothing to drop, or not ours to judge
  Candidate c{v.path, v.loop};
  int& replays = out.report.replays;
  auto drop = [&] {  // what each ddmin round drops; a swapped pick is a change, not a drop
    const auto before = names_of(r.steps(c.path));
    c = drop_steps(r, before, c, replays);
    for (auto& name : dropped(before, names_of(r.steps(c.path))))
      out.report.dropped_actions.push_back(std::move(name));
  };
  drop();
  for (int round = 0; round < 16 && swap_one_pick(r, c, out.report.changed_picks, replays); ++round)
    drop();
  out.violation.path = c.path;
  out.violation.loop = c.loop;
  out.report.steps_after = c.path.choices.size();
  return out;
}

}  // namespace kmc::cx
