// The seen-set: 64-bit fingerprints of packed states in 8-byte slots, open
// addressing with linear probing, cut into shards by the fingerprint's top
// bits. Shards are what let the search insert in parallel and still number
// states the same for every thread count: each shard has one owner during
// a merge, which inserts that shard's fingerprints in frontier order. They
// also keep growth small: a shard doubles, never the whole table.
//
// When the search keeps the explored graph it needs the index of a state it
// meets again; only then does each slot get a 4-byte index beside it.
#pragma once

#include <cstdint>
#include <vector>

namespace kmc::checker {

class SeenSet {
 public:
  static constexpr int kShardBits = 6;
  static constexpr int kShards = 1 << kShardBits;
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFF;
  static constexpr std::uint32_t kPresent = 0xFFFFFFFE;  // stored, index not kept or not yet known

  explicit SeenSet(bool with_index);

  static int shard_of(std::uint64_t fp) { return static_cast<int>(fp >> (64 - kShardBits)); }

  // kAbsent, or the stored index (kPresent when indices are not kept). Safe
  // from any number of threads while nobody inserts.
  std::uint32_t find(std::uint64_t fp) const;
  // Starts loading fp's first slot, so that a find() a little later does not wait on memory.
  void prefetch(std::uint64_t fp) const {
    const std::uint64_t k = key(fp);
    const Shard& s = shards_[shard_of(k)];
    __builtin_prefetch(s.fp.data() + (k & (s.fp.size() - 1)));
  }
  // Adds fp with `value` unless present; returns kAbsent when it added it,
  // else what is stored. Only the owner of fp's shard may call it.
  std::uint32_t insert(std::uint64_t fp, std::uint32_t value);
  // Sets the index of a stored fingerprint (graph mode); the owner only.
  void set(std::uint64_t fp, std::uint32_t value);

  std::size_t size() const;

 private:
  // Its own cache line: shards side by side have different owners, and each insert writes size.
  struct alignas(64) Shard {
    std::vector<std::uint64_t> fp;     // 0 marks empty; fingerprint 0 is remapped
    std::vector<std::uint32_t> index;  // beside fp, when indices are kept
    std::size_t size = 0;
  };
  static std::uint64_t key(std::uint64_t fp) { return fp == 0 ? 1 : fp; }
  std::size_t slot_of(const Shard& s, std::uint64_t k) const;
  void grow(Shard& s);

  bool with_index_;
  std::vector<Shard> shards_;
};

}  // namespace kmc::checker
