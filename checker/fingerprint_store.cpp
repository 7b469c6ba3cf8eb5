#include "checker/fingerprint_store.hpp"

#include <bit>
#include <limits>

#include "model/assert.hpp"

namespace kmc::checker {

FingerprintStore::FingerprintStore(std::size_t expected)
    : slots_(std::bit_ceil(std::max<std::size_t>(expected * 2, 16))) {
  KMC_ASSERT_MSG(std::has_single_bit(slots_.size()), "probing masks with size - 1");
}

std::pair<std::uint32_t, bool> FingerprintStore::insert(std::uint64_t fp) {
  if ((size_ + 1) * 10 > slots_.size() * 7) grow();  // keep the load under 0.7
  // An empty slot remains, so the probe ends; the new index fits its 32 bits.
  KMC_ASSERT(size_ < slots_.size() && size_ < std::numeric_limits<std::uint32_t>::max());
  const std::uint64_t k = key(fp);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = k & mask;; i = (i + 1) & mask) {
    if (slots_[i].fp == k) return {slots_[i].index, false};
    if (slots_[i].fp == 0) {
      slots_[i] = Slot{k, static_cast<std::uint32_t>(size_)};
      return {static_cast<std::uint32_t>(size_++), true};
    }
  }
}

std::optional<std::uint32_t> FingerprintStore::find(std::uint64_t fp) const {
  const std::uint64_t k = key(fp);
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = k & mask;; i = (i + 1) & mask) {
    if (slots_[i].fp == k) return slots_[i].index;
    if (slots_[i].fp == 0) return std::nullopt;
  }
}

void FingerprintStore::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  std::size_t moved = 0;
  for (const Slot& s : old) {
    if (s.fp == 0) continue;
    std::size_t i = s.fp & mask;
    while (slots_[i].fp != 0) i = (i + 1) & mask;
    slots_[i] = s;
    ++moved;
  }
  KMC_ASSERT_MSG(moved == size_, "growing keeps every fingerprint, each once");
}

}  // namespace kmc::checker
