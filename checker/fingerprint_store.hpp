// The seen-set: 64-bit fingerprints mapped to dense state indices, open
// addressing with linear probing. Parent links live beside it, indexed by
// state, so a trace is rebuilt by walking back and replaying forward.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace kmc::checker {

class FingerprintStore {
 public:
  explicit FingerprintStore(std::size_t expected = 1 << 10);

  // Returns {index, inserted}; a new fingerprint gets the next dense index.
  std::pair<std::uint32_t, bool> insert(std::uint64_t fp);
  // Read-only lookup; safe from several threads while nobody inserts.
  std::optional<std::uint32_t> find(std::uint64_t fp) const;

  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.size() * sizeof(Slot); }

 private:
  struct Slot {
    std::uint64_t fp = 0;  // 0 marks empty; fingerprint 0 is remapped
    std::uint32_t index = 0;
  };
  void grow();
  static std::uint64_t key(std::uint64_t fp) { return fp == 0 ? 1 : fp; }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace kmc::checker
