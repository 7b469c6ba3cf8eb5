// How a round of chunks is cut into shares, the blocks of level positions
// that workers take one after another. Guided, as OpenMP's guided schedule:
// each share is a fraction of the work left in the round, so shares start
// large (few of them, and duplicates within a share are dropped before they
// are copied or checked) and end small, so that when the round's last share
// is taken the others are nearly done and no worker idles long at the end.
// With uniform shares the wait at the end of every round was half a share
// on average (on two threads, 2% of three-workers' expansion, 7% of the
// SPIN peer's W2J5). Shares change no result (the merge reads them in frontier
// order), so their sizes may follow the thread count; a chunk's may not.
#pragma once

#include <cstdint>
#include <vector>

namespace kmc::checker {

struct ShareSchedule {
  // Share s covers the round's positions [begin[s], begin[s + 1]); no share
  // crosses a chunk boundary. Chunk k's shares are [first[k], first[k + 1]).
  std::vector<std::uint32_t> begin;
  std::vector<std::uint32_t> first;

  std::size_t shares() const { return begin.size() - 1; }
};

// A round of `positions` level positions, cut into chunks of `chunk` (the
// last may be short), for `workers` workers: one share per chunk for one
// worker, else each share a 1/(2 * workers) part of what is left of the
// round, and at least `min_share` positions (a chunk's last share excepted).
ShareSchedule guided_schedule(std::size_t positions, std::size_t chunk, std::size_t workers,
                              std::size_t min_share);

}  // namespace kmc::checker
