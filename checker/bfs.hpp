// Breadth-first explicit-state search, generic over model::Protocol.
//
// Level-synchronous and deterministic: each level is cut into chunks; threads
// expand a chunk's states in parallel (successors, fingerprints, property
// predicates, read-only seen-set lookups), then one thread merges the chunk's
// successors in frontier order. State indices, counts, verdicts and the
// (shortest) counterexample are therefore the same for every thread count.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checker/confirm.hpp"
#include "checker/fingerprint_store.hpp"
#include "checker/graph.hpp"
#include "checker/liveness.hpp"
#include "checker/recurrence.hpp"
#include "checker/replay.hpp"
#include "checker/result.hpp"
#include "checker/stuck.hpp"
#include "model/protocol.hpp"

namespace kmc::checker {

struct Progress {
  std::uint64_t states, transitions;
  int depth;
  double seconds;
};

struct CheckOptions {
  std::vector<std::string> properties;  // empty: all
  int max_depth = -1;                   // -1: none
  std::uint64_t max_states = 10'000'000;
  double time_limit_s = 600;
  int threads = 1;
  std::function<void(const Progress&)> progress;  // called about once a second
  std::vector<Fairness>
      fairness;  // per action family (protocol.families()), or per instance; missing: none
  bool per_instance = false;  // fairness[i] is for protocol.instance(a) == i, not family(a)
  std::vector<std::string> fairness_labels;  // printed with liveness verdicts; default: per family

  FairnessPlan fairness_plan() const { return FairnessPlan{fairness, per_instance}; }
};

template <model::Protocol P>
class Bfs {
 public:
  using State = typename P::State;
  using Action = typename P::Action;

  Bfs(const P& protocol, CheckOptions options) : p_(protocol), opt_(std::move(options)) {
    select_properties();
  }

  Result run();

  // Replays a path from its initial state; throws std::out_of_range if a
  // choice is not an action enabled in that state.
  static std::vector<State> replay(const P& p, const Path& path);

 private:
  struct Succ {
    std::uint32_t parent_pos;  // position of the parent in the chunk
    std::uint32_t choice;
    std::uint64_t fp;
    std::optional<std::uint32_t> known;                   // index when already stored
    std::uint64_t changes = 0;                            // StuckFree subjects this edge changes
    std::uint64_t always_failed = 0, sometimes_held = 0;  // property bits
    std::uint64_t should_move = 0;
    std::uint64_t holds = 0;  // LeadsTo premise/goal bits, then RecurrenceFree premise bits
    std::uint64_t marks = 0;  // RecurrenceFree subjects whose step this edge is
    std::uint8_t family = 0;
    State state;
  };
  struct Node {
    std::uint32_t index;
    State state;
  };

  void select_properties();
  void add_property(const model::Property<State>& prop);
  void evaluate(const State& s, Succ& out) const;
  void subject_keys(const State& s, std::vector<std::uint64_t>& out) const;
  std::uint64_t step_marks(const State& from, const State& to) const;
  void next_into(const State& s, const Action& a, State& out) const {
    if constexpr (requires { p_.next_into(s, a, out); })
      p_.next_into(s, a, out);
    else
      out = p_.next(s, a);
  }
  void expand(const std::vector<Node>& chunk, std::size_t lo, std::size_t hi,
              std::vector<Succ>& out) const;
  void expand_parallel(const std::vector<Node>& chunk, std::vector<Succ>& out) const;
  bool add_initial(State s, std::uint32_t init_index, std::vector<Node>& frontier);
  bool merge(const std::vector<Node>& chunk, std::vector<Succ>& succs, std::vector<Node>& next);
  bool record(std::uint32_t index, const Succ& s);
  Path path_to(std::uint32_t index) const;
  Result finish(std::string incomplete_reason);
  bool out_of_time() const;
  void report_progress(int depth, bool force);

  const P& p_;
  CheckOptions opt_;
  std::vector<model::Property<State>> always_, sometimes_, stuck_, leads_to_, recurrence_;
  std::vector<int> leads_to_offset_;  // first premise/goal bit pair of each LeadsTo property
  int leads_to_pairs_ = 0;
  std::vector<int> recurrence_offset_;  // first subject bit of each RecurrenceFree property
  int recurrence_subjects_ = 0;
  // Recurrence premise bits follow the leads-to pairs in Succ::holds.
  int recurrence_premise_bit(int subject_bit) const { return 2 * leads_to_pairs_ + subject_bit; }
  bool keep_graph() const { return !stuck_.empty() || live(); }
  bool live() const { return !leads_to_.empty() || !recurrence_.empty(); }
  std::uint64_t enabled_families(const std::vector<Action>& actions) const;
  // The fairness unit of an action: its instance or its family.
  std::uint8_t family_of(const Action& a) const {
    return static_cast<std::uint8_t>(fairness_unit(p_, a, opt_.per_instance));
  }
  void add_state(const Succ& s);
  void check_liveness();
  void check_leads_to();
  void check_recurrence();
  bool vacuous(const model::Property<State>& prop, int subject, std::uint64_t premise_bit);
  void lasso_violation(const model::Property<State>& prop, int subject, const Lasso& lasso);
  std::vector<int> stuck_offset_;  // first subject bit of each StuckFree property
  int stuck_subjects_ = 0;

  FingerprintStore seen_;
  std::vector<std::uint32_t> parent_;  // per state; the root's parent is itself
  std::vector<std::uint32_t> choice_;  // per state: action index in the parent, or init index
  ExploredGraph graph_;
  mutable std::vector<std::uint64_t> chunk_enabled_;
  bool complete_ = false;  // the search ended without a bound or a violation  // per chunk
                           // position: families enabled there
  std::vector<std::optional<std::uint32_t>> witness_;  // per Sometimes property
  std::optional<Violation> violation_;
  mutable std::vector<std::vector<Succ>> parts_;
  std::uint64_t transitions_ = 0;
  int depth_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_progress_ = start_;
};

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
    throw std::invalid_argument(
        "checker: at most 64 premise/goal bits (2 per leads-to subject, 1 per recurrence subject)");
  if (always_.size() > 64 || sometimes_.size() > 64 || stuck_subjects_ > 64)
    throw std::invalid_argument("checker: at most 64 properties of a kind and 64 stuck subjects");
  witness_.assign(sometimes_.size(), std::nullopt);
}

template <model::Protocol P>
void Bfs<P>::evaluate(const State& s, Succ& out) const {
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

template <model::Protocol P>
void Bfs<P>::add_state(const Succ& s) {
  if (!keep_graph()) return;
  graph_.expanded.push_back(false);
  if (!stuck_.empty()) graph_.should_move.push_back(s.should_move);
  if (live()) graph_.enabled.push_back(0), graph_.holds.push_back(s.holds);
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
void Bfs<P>::expand(const std::vector<Node>& chunk, std::size_t lo, std::size_t hi,
                    std::vector<Succ>& out) const {
  std::vector<Action> actions;
  std::vector<std::uint64_t> parent_keys, keys;
  State scratch{};
  for (std::size_t pos = lo; pos < hi; ++pos) {
    actions.clear();
    p_.actions(chunk[pos].state, actions);
    if (!stuck_.empty()) subject_keys(chunk[pos].state, parent_keys);
    if (live()) chunk_enabled_[pos] = enabled_families(actions);
    for (std::uint32_t c = 0; c < actions.size(); ++c) {
      // Most successors are already stored: build each in a reused scratch
      // state (no allocation) and copy out only the new ones.
      next_into(chunk[pos].state, actions[c], scratch);
      Succ s{static_cast<std::uint32_t>(pos),
             c,
             p_.fingerprint(scratch),
             std::nullopt,
             0,
             0,
             0,
             0,
             0,
             0,
             family_of(actions[c]),
             State{}};
      s.known = seen_.find(s.fp);
      if (!stuck_.empty()) {
        subject_keys(scratch, keys);
        for (std::size_t b = 0; b < keys.size(); ++b)
          if (keys[b] != parent_keys[b]) s.changes |= std::uint64_t{1} << b;
      }
      if (!recurrence_.empty()) s.marks = step_marks(chunk[pos].state, scratch);
      if (!s.known) {
        evaluate(scratch, s);
        s.state = scratch;
      }
      out.push_back(std::move(s));
    }
  }
}

template <model::Protocol P>
void Bfs<P>::expand_parallel(const std::vector<Node>& chunk, std::vector<Succ>& out) const {
  const std::size_t threads = std::max(1, opt_.threads);
  if (live()) chunk_enabled_.assign(chunk.size(), 0);
  if (threads == 1 || chunk.size() < 64) return expand(chunk, 0, chunk.size(), out);
  auto& parts = parts_;  // per-thread buffers, kept across chunks so they stop reallocating
  parts.resize(threads);
  for (auto& part : parts) part.clear();
  std::vector<std::thread> pool;
  const std::size_t step = (chunk.size() + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t lo = std::min(chunk.size(), t * step), hi = std::min(chunk.size(), lo + step);
    pool.emplace_back([&, t, lo, hi] { expand(chunk, lo, hi, parts[t]); });
  }
  for (auto& th : pool) th.join();
  for (auto& part : parts)
    for (auto& s : part) out.push_back(std::move(s));
}

template <model::Protocol P>
bool Bfs<P>::record(std::uint32_t index, const Succ& s) {
  for (std::size_t i = 0; i < sometimes_.size(); ++i)
    if ((s.sometimes_held >> i & 1) && !witness_[i]) witness_[i] = index;
  if (s.always_failed == 0 || violation_) return violation_.has_value();
  const int first = std::countr_zero(s.always_failed);
  violation_ = Violation{
      always_[first].name(), model::PropertyKind::Always, Shape::Reached, path_to(index), "", -1,
      std::nullopt};
  return true;
}

template <model::Protocol P>
bool Bfs<P>::add_initial(State s, std::uint32_t init_index, std::vector<Node>& frontier) {
  Succ succ{0, 0, p_.fingerprint(s), std::nullopt, 0, 0, 0, 0, 0, 0, 0, std::move(s)};
  evaluate(succ.state, succ);
  const auto [index, inserted] = seen_.insert(succ.fp);
  if (!inserted) return false;
  parent_.push_back(index);
  choice_.push_back(init_index);
  add_state(succ);
  frontier.push_back(Node{index, succ.state});
  return record(index, succ);
}

template <model::Protocol P>
bool Bfs<P>::merge(const std::vector<Node>& chunk, std::vector<Succ>& succs,
                   std::vector<Node>& next) {
  bool stop = false;
  for (auto& s : succs) {
    ++transitions_;
    const std::uint32_t from = chunk[s.parent_pos].index;
    std::uint32_t index;
    bool inserted = false;
    if (s.known) {
      index = *s.known;
    } else {
      std::tie(index, inserted) = seen_.insert(s.fp);
    }
    if (inserted) {
      parent_.push_back(from);
      choice_.push_back(s.choice);
      add_state(s);
      if (record(index, s)) stop = true;
      next.push_back(Node{index, std::move(s.state)});
    }
    if (keep_graph()) {
      if (s.marks) {
        graph_.marked_edge.push_back(static_cast<std::uint32_t>(graph_.from.size()));
        graph_.marked_subjects.push_back(s.marks);
      }
      graph_.from.push_back(from);
      graph_.to.push_back(index);
      if (!stuck_.empty()) graph_.changes.push_back(s.changes);
      if (live()) graph_.choice.push_back(s.choice), graph_.family.push_back(s.family);
    }
  }
  for (std::size_t pos = 0; pos < chunk.size() && keep_graph(); ++pos) {
    graph_.expanded[chunk[pos].index] = true;
    if (live()) graph_.enabled[chunk[pos].index] = chunk_enabled_[pos];
  }
  return stop;
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

template <model::Protocol P>
bool Bfs<P>::out_of_time() const {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  return elapsed.count() > opt_.time_limit_s;
}

template <model::Protocol P>
void Bfs<P>::report_progress(int depth, bool force) {
  if (!opt_.progress) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_progress_ < std::chrono::seconds(1)) return;
  last_progress_ = now;
  opt_.progress(Progress{seen_.size(), transitions_, depth,
                         std::chrono::duration<double>(now - start_).count()});
}

template <model::Protocol P>
Result Bfs<P>::run() {
  std::vector<Node> frontier, next, chunk;
  std::vector<Succ> succs;  // reused for every chunk
  bool stop = false;
  std::uint32_t init_index = 0;
  for (auto& s : p_.init_states()) stop = add_initial(std::move(s), init_index++, frontier) || stop;
  constexpr std::size_t kChunk = 2048;
  std::string bound;
  while (!frontier.empty() && !stop) {
    if (opt_.max_depth >= 0 && depth_ >= opt_.max_depth) {
      // The bound only matters if some state on it could still move.
      std::vector<Action> actions;
      for (const auto& n : frontier) {
        actions.clear();
        p_.actions(n.state, actions);
        if (!actions.empty()) {
          bound = "max-depth " + std::to_string(opt_.max_depth);
          break;
        }
        if (keep_graph()) graph_.expanded[n.index] = true;
      }
      break;
    }
    next.clear();
    std::size_t pos = 0;
    for (; pos < frontier.size() && !stop; pos += kChunk) {
      if (seen_.size() >= opt_.max_states) {
        bound = "max-states " + std::to_string(opt_.max_states);
        break;
      }
      if (out_of_time()) {
        bound = "time-limit " + std::to_string(static_cast<int>(opt_.time_limit_s)) + "s";
        break;
      }
      chunk.assign(
          std::make_move_iterator(frontier.begin() + pos),
          std::make_move_iterator(frontier.begin() + std::min(frontier.size(), pos + kChunk)));
      succs.clear();
      expand_parallel(chunk, succs);
      stop = merge(chunk, succs, next);
      report_progress(depth_, false);
    }
    if (!bound.empty()) break;
    frontier.swap(next);
    if (!frontier.empty()) ++depth_;
  }
  return finish(bound);
}

}  // namespace kmc::checker

#include "checker/bfs_finish.hpp"
