// The level loop, and one chunk of a BFS level: expand in parallel, then
// merge (bfs_merge.hpp): insert by seen-set shard in parallel, number the new
// states in frontier order and place them in the next level in parallel,
// record them, and record the explored graph. Between
// chunks, and only there, the search asks whether a bound is reached (time,
// memory, a stop request): a chunk's work is whole, so what is stored is a
// consistent graph. Included by bfs.hpp only.
#pragma once

#include <atomic>
#include <cstring>
#include <new>

namespace kmc::checker {

template <model::Protocol P>
bool Bfs<P>::out_of_time() const {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  return elapsed.count() > opt_.time_limit_s;
}

// The bound that ends the search before the next chunk, or "". Cheap enough for every chunk of
// 8192 states (reading the resident size is one small /proc read), never per state.
template <model::Protocol P>
std::string Bfs<P>::bound_reached() {
  if (std::string why = opt_.stop ? opt_.stop() : ""; !why.empty()) {
    stopped_ = true;
    return why;
  }
  if (out_of_time())
    return "time-limit " + std::to_string(static_cast<int>(opt_.time_limit_s)) + "s";
  if (opt_.max_memory_bytes > 0 && resident_bytes() >= opt_.max_memory_bytes)
    return "memory bound " + format_size(opt_.max_memory_bytes);
  return "";
}

template <model::Protocol P>
void Bfs<P>::report_progress(int depth, bool force) {
  if (!opt_.progress) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_progress_ < std::chrono::seconds(1)) return;
  last_progress_ = now;
  opt_.progress(Progress{stored_, transitions_, depth,
                         std::chrono::duration<double>(now - start_).count(), resident_bytes()});
}

// An allocation that fails anywhere in the search, in any worker (the pool
// rethrows it here), ends it Incomplete like a bound, never with an abort
// and no result: the reserve goes back first, so that finish() has room. A
// chunk cut short leaves the explored graph partial, so the stuck and
// liveness analyses are skipped then; what was numbered before still counts.
// If the analyses themselves run out, the result is built again without them.
template <model::Protocol P>
Result Bfs<P>::run() {
  std::string bound;
  try {
    bound = search();
    // Whoever asked to stop (an interrupted user) wants the answer now, not the analyses.
    if (stopped_) analyses_ = false;
  } catch (const std::bad_alloc&) {
    release_reserve();
    out_of_memory_ = true, analyses_ = false;
  }
  try {
    return finish(bound);
  } catch (const std::bad_alloc&) {
    if (!analyses_) throw;
    release_reserve();
    out_of_memory_ = true, analyses_ = false;  // a violation found before still stands
    return finish(bound);
  }
}

template <model::Protocol P>
std::string Bfs<P>::search() {
  seen_.emplace(keep_graph());
  level_.set_width(packing_.words());
  next_.set_width(packing_.words());
  pool_.emplace(std::max(1, opt_.threads));
  scratch_.resize(pool_->size());
  bool stop = false;
  std::uint32_t init_index = 0;
  for (const auto& s : p_.init_states()) {
    if (stored_ >= opt_.max_states)  // the bound leaves no room (--max-states 0, or few)
      return "max-states " + std::to_string(opt_.max_states);
    stop = add_initial(s, init_index++) || stop;
  }
  initial_stored_ = true;
  std::string bound;
  while (!stop) {
    level_.swap(next_);
    next_.clear();
    level_base_ = next_base_;
    next_base_ = stored_;
    const std::size_t n = next_base_ - level_base_;
    if (n == 0) break;
    if (opt_.max_depth >= 0 && depth_ >= opt_.max_depth) {
      if (depth_bound()) bound = "max-depth " + std::to_string(opt_.max_depth);
      break;
    }
    const std::size_t step = kChunk * round_chunks();
    for (std::size_t lo = 0; lo < n && !stop; lo += step) {
      if (bound = bound_reached(); !bound.empty()) break;
      stop = round(lo, std::min(n, lo + step), bound);
      if (!bound.empty()) break;
      report_progress(depth_, false);
    }
    if (!bound.empty()) break;
    if (stored_ > next_base_) ++depth_;
  }
  return bound;
}

// The candidate of this share with fingerprint fp, or a new one's id
// (cands.size()) after reserving its slot: duplicates within a worker's
// share are neither copied nor checked again.
template <model::Protocol P>
std::uint32_t Bfs<P>::local_candidate(Share& part, std::uint64_t fp) const {
  const std::uint64_t k = fp == 0 ? 1 : fp;
  if ((part.cands.size() + 1) * 2 > part.local_fp.size()) {  // keep the load under 0.5
    const std::size_t size = std::max<std::size_t>(4096, part.local_fp.size() * 2);
    part.local_fp.assign(size, 0);
    part.local_id.assign(size, 0);
    for (std::uint32_t id = 0; id < part.cands.size(); ++id) {
      const std::uint64_t f = part.fps[id] == 0 ? 1 : part.fps[id];
      std::size_t i = f & (size - 1);
      while (part.local_fp[i] != 0) i = (i + 1) & (size - 1);
      part.local_fp[i] = f, part.local_id[i] = id;
    }
  }
  const std::size_t mask = part.local_fp.size() - 1;
  std::size_t i = k & mask;
  while (part.local_fp[i] != 0 && part.local_fp[i] != k) i = (i + 1) & mask;
  if (part.local_fp[i] == k) return part.local_id[i];
  part.local_fp[i] = k;
  part.local_id[i] = static_cast<std::uint32_t>(part.cands.size());
  return part.local_id[i];
}

template <model::Protocol P>
void Bfs<P>::reset(Share& part) const {
  part.cands.clear(), part.fps.clear(), part.fresh.clear(), part.words.clear();
  part.edges.clear();
  part.notable.clear();
  part.marked.clear();
  part.lo = part.hi = 0;
  part.transitions = 0;
  part.reduced = part.proviso = 0;
  part.deadlock = SeenSet::kAbsent;
  std::fill(part.local_fp.begin(), part.local_fp.end(), 0);
}

template <model::Protocol P>
void Bfs<P>::expand(Scratch& scratch, Share& part, std::size_t lo, std::size_t hi) const {
  const std::size_t words = packing_.words();
  reset(part);
  part.lo = static_cast<std::uint32_t>(lo), part.hi = static_cast<std::uint32_t>(hi);
  for (std::size_t pos = lo; pos < hi; ++pos) {
    packing_.unpack(level_.row(pos), scratch.cur);
    scratch.actions.clear();
    p_.actions(scratch.cur, scratch.actions);
    if (scratch.actions.empty() && opt_.deadlock && part.deadlock == SeenSet::kAbsent &&
        !valid_end(scratch.cur))
      part.deadlock = static_cast<std::uint32_t>(pos);
    if (!stuck_.empty()) subject_keys(scratch.cur, scratch.parent_keys);
    if (live()) chunk_enabled_[pos - chunk_lo_] = enabled_families(scratch.actions);
    // Partial-order reduction: a stubborn subset of the enabled actions, unless one of its
    // successors is stored already (the cycle proviso: breadth-first, every cycle has such an
    // edge, so every cycle keeps a fully expanded state and no action is ignored forever).
    const bool reduced = stubborn_ && reduce(scratch);
    const std::uint64_t* parent = level_.row(pos);
    build_successors(scratch, parent);
    bool kept = false;
    if (reduced) {
      bool stored = false;
      for (std::size_t c = 0; c < scratch.actions.size() && !stored; ++c)
        stored = seen_->find(scratch.succ_fps[c]) != SeenSet::kAbsent;
      if (stored) {
        scratch.actions.swap(scratch.all);
        build_successors(scratch, parent);
        ++part.proviso;
      } else {
        ++part.reduced;
        kept = true;
      }
    }
    if (kept)
      scratch.choice_of.assign(scratch.keep.begin(), scratch.keep.end());
    else
      scratch.choice_of.clear();  // positions are the enabled actions' own
    part.transitions += scratch.actions.size();
    const std::size_t n = scratch.actions.size();
    for (std::uint32_t c = 0; c < n; ++c) {
      const State& succ = scratch.succs[c];
      const std::uint64_t fp = scratch.succ_fps[c];
      // The choice a path records: the action's position among every enabled one.
      const std::uint32_t choice = scratch.choice_of.empty() ? c : scratch.choice_of[c];
      std::uint32_t target = seen_->find(fp);
      const bool local = target == SeenSet::kAbsent;
      if (local) {  // only a successor new to this share is copied out and checked
        target = local_candidate(part, fp);
        if (target == part.cands.size()) {
          Candidate cand{static_cast<std::uint32_t>(pos), choice};
          evaluate(succ, cand);
          part.cands.push_back(cand);
          part.fps.push_back(fp);
          const auto* w = scratch.packed.data() + c * words;
          part.words.insert(part.words.end(), w, w + words);
        }
      }
      if (!keep_graph()) continue;
      if (scratch.marks[c]) part.marked.push_back(static_cast<std::uint32_t>(part.edges.size()));
      part.edges.push_back(Edge{static_cast<std::uint32_t>(pos), choice, target, local,
                                family_of(scratch.actions[c]), scratch.changes[c],
                                scratch.marks[c]});
    }
  }
  part.fresh.assign(part.cands.size(), 0);
  group_by_owner(scratch, part);
}

// Every successor of scratch.cur through scratch.actions, each built in a reused scratch state,
// packed and fingerprinted, with its seen-set slot prefetched: the lookups that follow then wait
// on memory together, not one after another.
template <model::Protocol P>
void Bfs<P>::build_successors(Scratch& scratch, const std::uint64_t* parent) const {
  const std::size_t words = packing_.words();
  const std::size_t n = scratch.actions.size();
  if (scratch.succs.size() < n) scratch.succs.resize(n);
  scratch.packed.resize(n * words);
  scratch.succ_fps.resize(n);
  if (keep_graph()) scratch.changes.assign(n, 0), scratch.marks.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    next_into(scratch.cur, scratch.actions[c], scratch.succs[c]);
    // What an edge does to each subject is read before the successor is
    // canonicalised: a permutation renames none of the subjects
    // (plan_reductions), but moves the cells that their keys read.
    if (!stuck_.empty()) {
      subject_keys(scratch.succs[c], scratch.keys);
      for (std::size_t b = 0; b < scratch.keys.size(); ++b)
        if (scratch.keys[b] != scratch.parent_keys[b]) scratch.changes[c] |= std::uint64_t{1} << b;
    }
    if (!recurrence_.empty()) scratch.marks[c] = step_marks(scratch.cur, scratch.succs[c]);
    canonical(scratch.succs[c]);  // symmetry reduction: the orbit's representative
    // Only the fields the action changed are packed again.
    packing_.repack(scratch.cur, parent, scratch.succs[c], scratch.packed.data() + c * words);
    // (tests/protocols/spec_ranges_test.cpp checks it against pack() on every edge of every
    // example.)
    scratch.succ_fps[c] = hash(scratch.packed.data() + c * words);
    seen_->prefetch(scratch.succ_fps[c]);
  }
}

// Expands level positions [lo, hi), a round of chunks, then merges its
// chunks in order; true when a property is violated. The search stops after
// the chunk that violates one, as if the round had been that chunk alone.
template <model::Protocol P>
bool Bfs<P>::round(std::size_t lo, std::size_t hi, std::string& bound) {
  chunk_lo_ = static_cast<std::uint32_t>(lo);
  if (live()) chunk_enabled_.assign(hi - lo, 0);
  schedule_ = guided_schedule(hi - lo, kChunk, static_cast<std::size_t>(pool_->size()), kShareMin);
  if (shares_.size() < schedule_.shares()) shares_.resize(schedule_.shares());
  auto clock = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  pool_->run([&](int w) {
    for (std::size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < schedule_.shares();)
      expand(scratch_[w], shares_[b], lo + schedule_.begin[b], lo + schedule_.begin[b + 1]);
  });
  lap(phases_.expand, clock);
  bool stop = false;
  for (std::size_t k = 0; k + 1 < schedule_.first.size() && !stop && bound.empty(); ++k) {
    const std::size_t c = lo + k * kChunk;
    const std::span<Share> parts(shares_.data() + schedule_.first[k],
                                 schedule_.first[k + 1] - schedule_.first[k]);
    stop = merge(c, std::min(hi, c + kChunk), parts, bound);
  }
  return stop;
}

// The merge of chunk [lo, hi), whose shares are expanded (bfs_merge.hpp).
template <model::Protocol P>
bool Bfs<P>::merge(std::size_t lo, std::size_t hi, std::span<Share> parts, std::string& bound) {
  auto clock = std::chrono::steady_clock::now();
  bool stop = false;
  for (auto& part : parts) {
    transitions_ += part.transitions;
    por_reduced_ += part.reduced, por_proviso_ += part.proviso;
    // The shallowest stuck state is a parent of this chunk: it precedes every new state.
    if (part.deadlock != SeenSet::kAbsent && !stop) stop = deadlock_at(level_base_ + part.deadlock);
  }
  pool_->run([&](int w) { insert_shards(w, parts); });
  lap(phases_.insert, clock);
  if (std::string cut = allot_indices(parts); !cut.empty()) bound = cut;
  const std::uint64_t witnessed = witnessed_mask();
  std::atomic<std::size_t> next{0};
  pool_->run([&](int) {
    for (std::size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < parts.size();)
      number(parts[b], witnessed);
  });
  lap(phases_.number, clock);
  stop = record_chunk(parts) || stop;
  lap(phases_.record, clock);
  if (!keep_graph()) return stop;
  // A bound hit in this chunk leaves some successors unnumbered: its parents
  // stay unexpanded (they may move), and their edges are not recorded.
  if (!bound.empty()) return stop;
  append_edges(parts);
  for (std::size_t pos = lo; pos < hi; ++pos) {
    graph_.expanded[level_base_ + pos] = true;
    if (live()) graph_.enabled[level_base_ + pos] = chunk_enabled_[pos - chunk_lo_];
  }
  lap(phases_.graph, clock);
  return stop;
}

}  // namespace kmc::checker
