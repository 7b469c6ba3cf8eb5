#include "checker/seen_set.hpp"

#include "model/assert.hpp"

namespace kmc::checker {

namespace {
constexpr std::size_t kInitialSlots = 256;  // per shard: 64 shards, 128 KiB in all
}

SeenSet::SeenSet(bool with_index) : with_index_(with_index), shards_(kShards) {
  for (auto& s : shards_) {
    s.fp.assign(kInitialSlots, 0);
    if (with_index_) s.index.assign(kInitialSlots, kAbsent);
  }
}

// Probing starts at the fingerprint's low bits; the top bits chose the shard.
std::size_t SeenSet::slot_of(const Shard& s, std::uint64_t k) const {
  const std::size_t mask = s.fp.size() - 1;
  std::size_t i = k & mask;
  while (s.fp[i] != k && s.fp[i] != 0) i = (i + 1) & mask;
  return i;
}

std::uint32_t SeenSet::find(std::uint64_t fp) const {
  const std::uint64_t k = key(fp);
  const Shard& s = shards_[shard_of(k)];
  const std::size_t i = slot_of(s, k);
  if (s.fp[i] == 0) return kAbsent;
  return with_index_ ? s.index[i] : kPresent;
}

std::uint32_t SeenSet::insert(std::uint64_t fp, std::uint32_t value) {
  const std::uint64_t k = key(fp);
  Shard& s = shards_[shard_of(k)];
  if ((s.size + 1) * 4 > s.fp.size() * 3) grow(s);  // keep the load under 0.75
  const std::size_t i = slot_of(s, k);
  if (s.fp[i] != 0) return with_index_ ? s.index[i] : kPresent;
  s.fp[i] = k;
  if (with_index_) s.index[i] = value;
  ++s.size;
  return kAbsent;
}

void SeenSet::set(std::uint64_t fp, std::uint32_t value) {
  KMC_ASSERT(with_index_);
  const std::uint64_t k = key(fp);
  Shard& s = shards_[shard_of(k)];
  const std::size_t i = slot_of(s, k);
  KMC_ASSERT_MSG(s.fp[i] == k, "set() on a fingerprint that was inserted");
  s.index[i] = value;
}

void SeenSet::grow(Shard& s) {
  Shard old;
  old.fp.swap(s.fp);
  old.index.swap(s.index);
  s.fp.assign(old.fp.size() * 2, 0);
  if (with_index_) s.index.assign(old.fp.size() * 2, kAbsent);
  std::size_t moved = 0;
  for (std::size_t j = 0; j < old.fp.size(); ++j) {
    if (old.fp[j] == 0) continue;
    const std::size_t i = slot_of(s, old.fp[j]);
    s.fp[i] = old.fp[j];
    if (with_index_) s.index[i] = old.index[j];
    ++moved;
  }
  KMC_ASSERT_MSG(moved == s.size, "growing keeps every fingerprint, each once");
}

std::size_t SeenSet::size() const {
  std::size_t n = 0;
  for (const auto& s : shards_) n += s.size;
  return n;
}

}  // namespace kmc::checker
