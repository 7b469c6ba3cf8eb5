// Breadth-first explicit-state search, generic over model::Protocol.
//
// States live packed (model/packing.hpp): the frontier is one buffer of
// fixed-size words per level, the seen-set holds 8-byte fingerprints
// (checker/seen_set.hpp), and a state is unpacked into a reused scratch
// State only to expand it, so the hot path allocates nothing per successor.
//
// Level-synchronous and deterministic. Each level is cut into chunks; a
// chunk's states are shared among a persistent pool of workers, which
// expand their share (successors, packing, fingerprints, read-only
// seen-set lookups), keep one copy of each successor new to their share,
// and evaluate the properties on it once. Then every worker inserts the
// fingerprints of its own seen-set shards in frontier order, and new states
// are numbered in that order, their words going straight into the next
// level. So the first copy of a state, its index, the counts, the verdicts
// and the shortest counterexample are the same for every thread count.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/column.hpp"
#include "checker/confirm.hpp"
#include "checker/graph.hpp"
#include "checker/liveness.hpp"
#include "checker/memory.hpp"
#include "checker/recurrence.hpp"
#include "checker/replay.hpp"
#include "checker/result.hpp"
#include "checker/seen_set.hpp"
#include "checker/share_schedule.hpp"
#include "checker/stubborn.hpp"
#include "checker/stuck.hpp"
#include "checker/worker_pool.hpp"
#include "model/fingerprint.hpp"
#include "model/footprints.hpp"
#include "model/packing.hpp"
#include "model/protocol.hpp"

namespace kmc::checker {

struct Progress {
  std::uint64_t states, transitions;
  int depth;
  double seconds;
  std::size_t rss_bytes;  // the process's resident memory now
};

struct CheckOptions {
  std::vector<std::string> properties;    // empty: all
  int max_depth = -1;                     // -1: none
  std::uint64_t max_states = 10'000'000;  // stored states, exactly: never more
  double time_limit_s = 600;
  // The process's resident memory (checker/memory.hpp), read once per chunk of a level, where
  // the time limit is checked: at or past it the search ends Incomplete. 0: none.
  std::size_t max_memory_bytes = 0;
  // Asked there too: a non-empty answer ends the search Incomplete with it as the reason (the
  // CLI's answer to SIGINT and SIGTERM). Unset: never.
  std::function<std::string()> stop;
  int threads = 1;
  std::function<void(const Progress&)> progress;  // called about once a second
  std::vector<Fairness>
      fairness;  // per action family (protocol.families()), or per instance; missing: none
  bool per_instance = false;  // fairness[i] is for protocol.instance(a) == i, not family(a)
  std::vector<std::string> fairness_labels;  // printed with liveness verdicts; default: per family
  // A built-in safety property, "deadlock": a reachable state where no action
  // is enabled, unless the protocol's valid_end(s) says the run may end there.
  bool deadlock = false;
  // Symmetry reduction (model/symmetry.hpp), when the protocol declares
  // interchangeable entities: one state per orbit is stored. Sound for the
  // safety properties (always, sometimes, deadlock), which see one state at a
  // time; the graph properties (stuck-free, leads-to, recurrence) follow one
  // job from state to state, which a permutation renames, so a search that
  // checks any of them runs unreduced and says so (Result::reductions).
  bool symmetry = false;
  // Partial-order reduction (checker/stubborn.hpp) over these footprints of the protocol's
  // candidate actions, where it is sound: deadlock and the always and sometimes properties, each
  // with a footprint; a search that checks a graph property runs unreduced and says so. A
  // violation found is a real path, but not always a shortest one. Unset: none.
  std::shared_ptr<const model::Footprints> footprints;

  FairnessPlan fairness_plan() const { return FairnessPlan{fairness, per_instance}; }
};

// The properties asked for follow more subjects than a state's 64-bit masks
// hold: a limit of the request, reported as such (never an abort).
struct SubjectLimit : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

template <model::Protocol P>
class Bfs {
 public:
  using State = typename P::State;
  using Action = typename P::Action;

  Bfs(const P& protocol, CheckOptions options)
      : p_(protocol), opt_(std::move(options)), packing_(packing_of(protocol)) {
    select_properties();
    plan_reductions();
    plan_por();
    configure_allocator();
    reset_peak_resident();
    base_rss_ = resident_bytes();
  }

  Result run();

  // Replays a path from its initial state; throws std::out_of_range if a
  // choice is not an action enabled in that state.
  static std::vector<State> replay(const P& p, const Path& path);

 private:
  // A successor that was not in the seen-set when its chunk was expanded,
  // kept once per worker's share, with its properties evaluated.
  struct Candidate {
    std::uint32_t parent_pos;  // in the level
    std::uint32_t choice;
    std::uint32_t index = SeenSet::kAbsent;               // once numbered (its first copy's)
    std::uint64_t always_failed = 0, sometimes_held = 0;  // property bits
    std::uint64_t should_move = 0;
    std::uint64_t holds = 0;  // LeadsTo premise/goal bits, then RecurrenceFree premise bits
  };
  // Every successor, when the explored graph is kept.
  struct Edge {
    std::uint32_t parent_pos, choice;
    std::uint32_t target;  // a state index, or (local) a candidate of the same share
    bool local;
    std::uint8_t family;
    std::uint64_t changes;  // StuckFree subjects this edge changes
    std::uint64_t marks;    // RecurrenceFree subjects whose step this edge is
  };
  // What one share of a chunk's states produced, in frontier order. Shares
  // are taken by whichever worker is free, smaller towards the end of a round
  // (share_schedule.hpp), so uneven states do not leave a thread idle; the
  // merge reads them in order, so it stays serial order.
  struct alignas(64) Share {  // its own cache lines: workers fill shares side by side
    std::vector<Candidate> cands;
    std::vector<std::uint64_t> fps;    // per candidate
    std::vector<std::uint8_t> fresh;   // per candidate: the state's first copy in frontier order
    std::vector<std::uint64_t> words;  // per candidate: its packed state
    std::vector<Edge> edges;
    std::uint64_t transitions = 0;
    std::uint32_t deadlock = SeenSet::kAbsent;  // the first parent stuck short of a valid end
    std::uint64_t reduced = 0, proviso = 0;     // states expanded by a stubborn set; fully, by S
    std::vector<std::uint64_t> local_fp;        // fingerprint -> candidate, for this block
    std::vector<std::uint32_t> local_id;
    // The merge (bfs_merge.hpp). Candidates grouped by the worker that owns their seen-set
    // shard, frontier order within: by_owner[owner_begin[w] .. owner_begin[w + 1]).
    std::vector<std::uint32_t> by_owner, owner_begin;
    std::vector<std::uint32_t> owner_out;    // per worker: where its answers for this share begin
    std::vector<std::uint32_t> owner_fresh;  // per worker: how many of its candidates were new
    std::uint32_t first = 0, numbered = 0;   // the indices its new states take: [first, +numbered)
    std::vector<std::uint32_t> notable;      // numbered candidates that record() must see
    std::uint32_t lo = 0, hi = 0;            // the level positions it expanded
    std::vector<std::uint32_t> marked;       // its edges with recurrence marks
    std::uint64_t edge_base = 0;             // where its edges begin in the explored graph
  };
  // A worker's scratch space, reused for every block.
  struct alignas(64) Scratch {
    State cur{};
    std::vector<State> succs;  // one parent's successors; each keeps its storage
    std::vector<Action> actions;
    std::vector<std::uint64_t> parent_keys, keys, packed, succ_fps;
    std::vector<std::uint64_t> changes, marks;  // per successor: its edge's subject bits
    // Partial-order reduction: the enabled actions' candidate ids, the positions kept, every
    // enabled action (to expand fully again), and each successor's position among them.
    StubbornSets::Scratch por;
    std::vector<std::uint32_t> ids, keep, choice_of;
    std::vector<Action> all;
    std::vector<std::int64_t> flat;
    std::vector<std::uint32_t> cursor;  // grouping a share's candidates by owner
    std::vector<std::uint8_t>
        inserted;  // the merge: per candidate this worker inserted, new or not
  };

  static model::Packing packing_of(const P& p) {
    if constexpr (requires { p.packing(); })
      return p.packing();
    else
      return model::Packing::reflected(p.init_states().front());
  }
  std::uint64_t hash(const std::uint64_t* words) const {
    model::Hasher h;
    for (std::size_t w = 0; w < packing_.words(); ++w) h.word(words[w]);
    return model::mix64(h.h);
  }
  bool valid_end(const State& s) const {
    if constexpr (requires { p_.valid_end(s); })
      return p_.valid_end(s);
    else
      return false;
  }

  void select_properties();
  void plan_reductions();
  void plan_por();
  // Partial-order reduction in one state: keeps a stubborn subset of scratch.actions; false when
  // every action stays.
  bool reduce(Scratch& scratch) const;
  void canonical(State& s) const {
    if constexpr (requires { p_.canonicalize(s); })
      if (reduce_) p_.canonicalize(s);
  }
  Path concrete(const Path& reduced) const;
  Path concrete_lasso(const Path& reduced, std::size_t& loop) const;
  // One step of concrete(): from (x, its representative c), the action taken in c.
  std::uint32_t concrete_step(State& x, State& c, std::uint32_t reduced_choice,
                              std::size_t step) const;
  void add_property(const model::Property<State>& prop);
  void evaluate(const State& s, Candidate& out) const;
  void subject_keys(const State& s, std::vector<std::uint64_t>& out) const;
  std::uint64_t step_marks(const State& from, const State& to) const;
  void next_into(const State& s, const Action& a, State& out) const {
    if constexpr (requires { p_.next_into(s, a, out); })
      p_.next_into(s, a, out);
    else
      out = p_.next(s, a);
  }
  std::uint32_t local_candidate(Share& part, std::uint64_t fp) const;
  void reset(Share& part) const;
  void expand(Scratch& scratch, Share& part, std::size_t lo, std::size_t hi) const;
  void build_successors(Scratch& scratch, const std::uint64_t* parent) const;
  int owner_of(std::uint64_t fp) const { return SeenSet::shard_of(fp) % pool_->size(); }
  void group_by_owner(Scratch& scratch, Share& part) const;
  void insert_shards(int worker, std::span<Share> parts);
  std::string allot_indices(std::span<Share> parts);
  std::uint64_t witnessed_mask() const;
  void number(Share& part, std::uint64_t witnessed);
  bool record_chunk(std::span<Share> parts);
  void append_edges(std::span<Share> parts);
  void write_edges(Share& part);
  bool round(std::size_t lo, std::size_t hi, std::string& bound);
  bool merge(std::size_t lo, std::size_t hi, std::span<Share> parts, std::string& bound);
  bool add_initial(const State& s, std::uint32_t init_index);
  bool depth_bound();
  bool record(std::uint32_t index, const Candidate& c);
  bool deadlock_at(std::uint32_t index);
  Path path_to(std::uint32_t index) const;
  std::string search();
  Result finish(std::string incomplete_reason);
  bool out_of_time() const;
  std::string bound_reached();
  void report_progress(int depth, bool force);

  static constexpr std::size_t kChunk = 8192;  // states per chunk, for every thread count
  // The smallest share: below it, duplicates within a share are rarely dropped before they are
  // copied or checked (share_schedule.hpp cuts a round into shares).
  static constexpr std::size_t kShareMin = 128;
  // Chunks expanded together, as one round: with many workers the tail of a
  // chunk's expansion (its last shares) leaves most of them idle, and a round
  // of several chunks has that tail once. The chunks are still merged one by
  // one, in order, and what a merge decides never depends on what the
  // expansion read from the seen-set (a successor stored by an earlier chunk
  // of the round is found at insertion instead), so every count and verdict
  // stays the same. Partial-order reduction reads the seen-set (its cycle
  // proviso), so it expands chunk by chunk.
  std::size_t round_chunks() const {
    const auto workers = static_cast<std::size_t>(pool_->size());
    return stubborn_ || workers < 4 ? 1 : std::min<std::size_t>(8, workers / 2);
  }

  const P& p_;
  CheckOptions opt_;
  model::Packing packing_;
  bool reduce_ = false;                   // states are canonicalised (symmetry reduction)
  std::optional<StubbornSets> stubborn_;  // partial-order reduction, where sound
  std::uint64_t por_reduced_ = 0, por_proviso_ = 0;
  std::vector<std::string> reductions_;  // what ran, and what did not and why
  std::vector<model::Property<State>> always_, sometimes_, stuck_, leads_to_, recurrence_;
  std::vector<int> leads_to_offset_;  // first premise/goal bit pair of each LeadsTo property
  int leads_to_pairs_ = 0;
  std::vector<int> recurrence_offset_;  // first subject bit of each RecurrenceFree property
  int recurrence_subjects_ = 0;
  // Recurrence premise bits follow the leads-to pairs in Candidate::holds.
  int recurrence_premise_bit(int subject_bit) const { return 2 * leads_to_pairs_ + subject_bit; }
  bool keep_graph() const { return !stuck_.empty() || live(); }
  bool live() const { return !leads_to_.empty() || !recurrence_.empty(); }
  std::uint64_t enabled_families(const std::vector<Action>& actions) const;
  // The fairness unit of an action: its instance or its family.
  std::uint8_t family_of(const Action& a) const {
    return static_cast<std::uint8_t>(fairness_unit(p_, a, opt_.per_instance));
  }
  void grow_state_columns();
  void add_state(const Candidate& c);
  void check_liveness();
  void check_leads_to();
  void check_recurrence();
  // A premise bit set in no explored state: that subject's premise never holds.
  bool never_holds(std::uint64_t premise_bit) const;
  void lasso_violation(const model::Property<State>& prop, int subject, const Lasso& lasso);
  std::vector<int> stuck_offset_;  // first subject bit of each StuckFree property
  int stuck_subjects_ = 0;
  // The graph properties (stuck-free, leads-to, recurrence) an analysis
  // examined to the end; the others are Incomplete, never Verified by default.
  std::set<std::string> decided_;
  std::string liveness_violated_;  // the liveness property found violated, if any

  std::optional<SeenSet> seen_;
  std::optional<WorkerPool> pool_;
  std::vector<Share> shares_;     // per share of the round, chunk by chunk (schedule_)
  ShareSchedule schedule_;        // the round's shares
  std::vector<Scratch> scratch_;  // per worker
  Rows level_, next_;             // packed states of this level and the next
  std::uint32_t level_base_ = 0, next_base_ = 0, chunk_lo_ = 0;  // first index of each; a round's
  std::uint32_t stored_ = 0;                                     // states numbered so far
  Column<std::uint32_t> parent_;  // per state; the root's parent is itself
  Column<std::uint16_t> choice_;  // per state: action index in the parent, or init index
  ExploredGraph graph_;
  mutable std::vector<std::uint64_t> chunk_enabled_;   // per chunk position: families enabled there
  std::vector<std::optional<std::uint32_t>> witness_;  // per Sometimes property
  std::optional<Violation> violation_;
  std::uint64_t transitions_ = 0;
  int depth_ = 0;
  bool initial_stored_ = false;  // every initial state was stored: depth 0 is explored
  bool out_of_memory_ = false;   // an allocation failed: the explored graph may be partial
  bool analyses_ = true;         // finish() runs the stuck and liveness analyses
  bool stopped_ = false;         // the stop request ended the search
  std::size_t base_rss_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_progress_ = start_;
  Stats::Phases phases_;
  // Adds the wall time since `since` to `phase`, and restarts the clock.
  static void lap(double& phase, std::chrono::steady_clock::time_point& since) {
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - since).count();
    since = now;
  }
};

}  // namespace kmc::checker

#include "checker/bfs_finish.hpp"
#include "checker/bfs_level.hpp"
#include "checker/bfs_merge.hpp"
#include "checker/bfs_por.hpp"
#include "checker/bfs_properties.hpp"
#include "checker/bfs_states.hpp"
#include "checker/bfs_symmetry.hpp"
