// Stable 64-bit fingerprints of Hana-reflected values.
//
// The checker stores only these (TLC's design), so they must be the same on
// every run, build and thread count: a fixed seed, values hashed field by
// field in declaration order, lengths included so [1][2] and [1,2] differ,
// and nothing that depends on addresses or type names.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kmc::model {

inline constexpr std::uint64_t kFingerprintSeed = 0x6b6d632d66703031ULL;  // "kmc-fp01"

constexpr std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// One full-avalanche mix per word: the running hash is a pseudo-random
// function of everything before, so equal suffixes after different prefixes
// still land apart (the per-state collision odds the checker prints assume it).
struct Hasher {
  std::uint64_t h = kFingerprintSeed;
  void word(std::uint64_t x) { h = mix64(h ^ (x * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL)); }
};

// For keys the checker compares on every edge (a stuck subject's state):
// one multiplication per word, a full mix at the end. Each step is a
// bijection of the running value for a given word, so two sequences of
// equal length that differ in one word never collide.
struct KeyHasher {
  std::uint64_t h = kFingerprintSeed;
  void word(std::uint64_t x) { h = (h ^ x) * 0x9e3779b97f4a7c15ULL; }
  std::uint64_t done() const { return mix64(h); }
};

template <class T>
void hash_append(Hasher& hs, const T& v);

template <class T>
void hash_append(Hasher& hs, const std::vector<T>& v) {
  hs.word(v.size());
  if constexpr (std::is_integral_v<T>) {
    for (T x : v) hs.word(static_cast<std::uint64_t>(x));
  } else {
    for (const auto& x : v) hash_append(hs, x);
  }
}

template <class T>
void hash_append(Hasher& hs, const std::optional<T>& v) {
  hs.word(v.has_value());
  if (v) hash_append(hs, *v);
}

inline void hash_append(Hasher& hs, const std::string& s) {
  hs.word(s.size());
  for (unsigned char c : s) hs.word(c);
}

template <class T>
void hash_append(Hasher& hs, const T& v) {
  if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    hs.word(static_cast<std::uint64_t>(v));
  } else {
    static_assert(boost::hana::Struct<T>::value,
                  "fingerprint: reflect the type with BOOST_HANA_DEFINE_STRUCT");
    // Accessors, not hana::members: members() copies every field.
    boost::hana::for_each(boost::hana::accessors<T>(),
                          [&](const auto& acc) { hash_append(hs, boost::hana::second(acc)(v)); });
  }
}

template <class T>
std::uint64_t fingerprint(const T& v) {
  Hasher hs;
  hash_append(hs, v);
  return mix64(hs.h);
}

}  // namespace kmc::model
