// The merge of one chunk, after its shares were expanded: which successors
// are new, the indices they take, and their place in the next level. Every
// step but a short serial one runs on all workers, and none of them lets two
// workers write to the same cache line, so it scales with the expansion:
//
// 1. insert (per worker): each worker inserts the fingerprints of the
//    seen-set shards it owns, in frontier order (shares in order, candidates
//    in order), so the first copy of a state in frontier order is the one
//    marked new, whatever the thread count. Its answers go to its own
//    buffer, not to the shares, where every worker's answers interleave.
// 2. allot (serial, per share): a share's new states take the next indices
//    after the previous share's; the max-states bound cuts here.
// 3. number (per share): the share gathers its answers, numbers its new
//    states, copies them into the next level, fills their graph columns and
//    notes those that record() must see.
// 4. record (serial, per noted state): the first violation and witnesses in
//    frontier order, as a serial search would find them.
// 5. edges (per share), when the explored graph is kept.
// Included by bfs.hpp only.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>

namespace kmc::checker {

// At the end of a share's expansion: its candidates grouped by owner, so
// that each worker reads only its own candidates' fingerprints to insert them.
template <model::Protocol P>
void Bfs<P>::group_by_owner(Scratch& scratch, Share& part) const {
  const int workers = pool_->size();
  if (workers == 1) return;  // one owner: insert_shards() reads the candidates in order
  part.owner_begin.assign(workers + 1, 0);
  part.owner_out.assign(workers, 0);
  part.owner_fresh.assign(workers, 0);
  for (const std::uint64_t fp : part.fps) ++part.owner_begin[owner_of(fp) + 1];
  for (int w = 0; w < workers; ++w) part.owner_begin[w + 1] += part.owner_begin[w];
  scratch.cursor.assign(part.owner_begin.begin(), part.owner_begin.end() - 1);
  part.by_owner.resize(part.fps.size());
  for (std::uint32_t i = 0; i < part.fps.size(); ++i)
    part.by_owner[scratch.cursor[owner_of(part.fps[i])]++] = i;
}

template <model::Protocol P>
void Bfs<P>::insert_shards(int worker, std::span<Share> parts) {
  if (pool_->size() == 1) {
    for (auto& part : parts) {
      part.numbered = 0;
      for (std::size_t i = 0; i < part.fps.size(); ++i) {
        if (i + 8 < part.fps.size()) seen_->prefetch(part.fps[i + 8]);
        part.fresh[i] = seen_->insert(part.fps[i], SeenSet::kPresent) == SeenSet::kAbsent;
        part.numbered += part.fresh[i];
      }
    }
    return;
  }
  auto& out = scratch_[worker].inserted;
  out.clear();
  for (auto& part : parts) {
    if (part.fps.empty()) continue;
    const std::uint32_t lo = part.owner_begin[worker], hi = part.owner_begin[worker + 1];
    part.owner_out[worker] = static_cast<std::uint32_t>(out.size());
    std::uint32_t fresh = 0;
    for (std::uint32_t k = lo; k < hi; ++k) {
      // Its shard is this worker's, so no other worker may be growing it under the prefetch.
      if (k + 8 < hi) seen_->prefetch(part.fps[part.by_owner[k + 8]]);
      const bool added =
          seen_->insert(part.fps[part.by_owner[k]], SeenSet::kPresent) == SeenSet::kAbsent;
      out.push_back(added);
      fresh += added;
    }
    part.owner_fresh[worker] = fresh;
  }
}

// Serial and short (one step per share): each share's new states take the
// next indices in frontier order; the next level and the per-state columns
// grow here, once, so that numbering can write them in parallel. Stores at
// most max_states states: a new state beyond the bound is a bound hit, and
// the returned reason says so.
template <model::Protocol P>
std::string Bfs<P>::allot_indices(std::span<Share> parts) {
  const int workers = pool_->size();
  const std::uint64_t room = stored_ >= opt_.max_states ? 0 : opt_.max_states - stored_;
  std::uint64_t taken = 0;
  std::string bound;
  for (auto& part : parts) {
    if (workers > 1) {
      part.numbered = 0;
      if (!part.fps.empty())
        for (int w = 0; w < workers; ++w) part.numbered += part.owner_fresh[w];
    }
    if (taken + part.numbered > room) {
      bound = "max-states " + std::to_string(opt_.max_states);
      part.numbered = static_cast<std::uint32_t>(room - taken);
    }
    part.first = static_cast<std::uint32_t>(stored_ + taken);
    taken += part.numbered;
  }
  stored_ += static_cast<std::uint32_t>(taken);
  parent_.grow_to(stored_);
  choice_.grow_to(stored_);
  grow_state_columns();
  next_.resize(stored_ - next_base_);
  return bound;
}

// The sometimes properties that have a witness already: a later state
// holding only those need not be recorded.
template <model::Protocol P>
std::uint64_t Bfs<P>::witnessed_mask() const {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < witness_.size(); ++i)
    if (witness_[i]) mask |= std::uint64_t{1} << i;
  return mask;
}

// One share, on any worker: gathers which candidates are new from the
// owners' buffers, numbers them from part.first in order (a new state past
// the bound stays unnumbered and is not new after all), copies each into the
// next level, and notes the first that breaks an always property and each
// first witness of a sometimes property not yet witnessed.
template <model::Protocol P>
void Bfs<P>::number(Share& part, std::uint64_t witnessed) {
  const int workers = pool_->size();
  if (workers > 1 && !part.fps.empty())
    for (int w = 0; w < workers; ++w) {
      const std::uint8_t* answers = scratch_[w].inserted.data() + part.owner_out[w];
      for (std::uint32_t k = part.owner_begin[w]; k < part.owner_begin[w + 1]; ++k)
        part.fresh[part.by_owner[k]] = answers[k - part.owner_begin[w]];
    }
  const std::size_t words = packing_.words();
  std::uint32_t index = part.first;
  const std::uint32_t end = part.first + part.numbered;
  bool failed = false;
  part.notable.clear();
  for (std::uint32_t i = 0; i < part.cands.size(); ++i) {
    if (!part.fresh[i]) continue;
    if (index == end) {  // past the max-states bound
      part.fresh[i] = 0;
      continue;
    }
    Candidate& c = part.cands[i];
    if (c.choice > 0xFFFF)
      throw std::length_error("checker: more than 65536 actions enabled in one state");
    c.index = index++;
    parent_[c.index] = level_base_ + c.parent_pos;
    choice_[c.index] = static_cast<std::uint16_t>(c.choice);
    std::memcpy(next_.row(c.index - next_base_), part.words.data() + i * words,
                words * sizeof(std::uint64_t));
    if (keep_graph()) {
      seen_->set(part.fps[i], c.index);  // distinct slots: no growth now
      add_state(c);
    }
    const bool witness = (c.sometimes_held & ~witnessed) != 0;
    if (witness || (c.always_failed != 0 && !failed)) part.notable.push_back(i);
    witnessed |= c.sometimes_held;
    failed = failed || c.always_failed != 0;
  }
}

// Serial: record() on the noted new states, in frontier order. True when a
// property is violated.
template <model::Protocol P>
bool Bfs<P>::record_chunk(std::span<Share> parts) {
  bool stop = violation_.has_value();
  for (auto& part : parts) {
    for (const std::uint32_t i : part.notable)
      stop = record(part.cands[i].index, part.cands[i]) || stop;
  }
  return stop;
}

// The explored graph's edges of a merged chunk: each share's edges take the
// next slots (serial, one step per share), then every share writes its own
// in parallel; the recurrence marks, few, are appended in order at the end.
template <model::Protocol P>
void Bfs<P>::append_edges(std::span<Share> parts) {
  std::uint64_t base = graph_.to.size();
  std::uint32_t last = static_cast<std::uint32_t>(graph_.first_edge.size());
  for (auto& part : parts) {
    part.edge_base = base;
    base += part.edges.size();
    if (part.hi > 0) last = level_base_ + part.hi;
  }
  if (base >= 0xFFFFFFFF)
    throw std::length_error("checker: more than 2^32 edges in the explored graph");
  graph_.to.grow_to(base);
  if (!stuck_.empty()) graph_.changes.grow_to(base);
  if (live()) graph_.choice.grow_to(base), graph_.family.grow_to(base);
  graph_.first_edge.grow_to(last);
  std::atomic<std::size_t> next{0};
  pool_->run([&](int) {
    for (std::size_t b; (b = next.fetch_add(1, std::memory_order_relaxed)) < parts.size();)
      write_edges(parts[b]);
  });
  for (auto& part : parts)
    for (const std::uint32_t k : part.marked) {
      graph_.marked_edge.push_back(static_cast<std::uint32_t>(part.edge_base + k));
      graph_.marked_subjects.push_back(part.edges[k].marks);
    }
}

// One share's edges, on any worker. A later copy of a new state takes its
// first copy's index, read back from the seen-set, where every first copy
// of the chunk has one by now.
template <model::Protocol P>
void Bfs<P>::write_edges(Share& part) {
  for (std::size_t i = 0; i < part.cands.size(); ++i)
    if (!part.fresh[i]) part.cands[i].index = seen_->find(part.fps[i]);
  std::size_t k = 0;
  for (std::uint32_t pos = part.lo; pos < part.hi; ++pos) {
    graph_.first_edge[level_base_ + pos] = static_cast<std::uint32_t>(part.edge_base + k);
    for (; k < part.edges.size() && part.edges[k].parent_pos == pos; ++k) {
      const Edge& e = part.edges[k];
      const std::uint32_t to = e.local ? part.cands[e.target].index : e.target;
      KMC_ASSERT_MSG(to < stored_, "every edge ends in a numbered state");
      const std::size_t at = part.edge_base + k;
      graph_.to[at] = to;
      if (!stuck_.empty()) graph_.changes.set(at, e.changes);
      if (live())
        graph_.choice[at] = static_cast<std::uint16_t>(e.choice), graph_.family[at] = e.family;
    }
  }
  KMC_ASSERT_MSG(k == part.edges.size(), "a share's edges leave its own states, in order");
}

}  // namespace kmc::checker
