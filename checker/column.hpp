// Append-only arrays in fixed blocks, for what the search keeps per state
// and per edge. Growing never copies and never holds old and new storage at
// once: the peak is what the column holds plus one block, where a
// std::vector's doubling needs up to three times what it holds, exactly
// when memory is shortest.
//
// Blocks are not zeroed: every element is written before it is read
// (push_back writes it; what grow_to adds, the merge writes, each element
// once). Zeroing a new block cost the search a serial memset and every page
// fault of the block at once, on one thread, inside the merge of a chunk
// (a third of the explored graph's time on two threads); now each page is
// first touched where its elements are written, by the worker writing them.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace kmc::checker {

template <class T>
class Column {
 public:
  static constexpr std::size_t kBlockBits = 16;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  void push_back(const T& v) {
    if ((size_ & (kBlock - 1)) == 0 && size_ >> kBlockBits == blocks_.size())
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlock));
    (*this)[size_++] = v;
  }
  // Grows to n elements, their storage allocated here so that several threads can then write
  // distinct elements in place; never shrinks.
  void grow_to(std::size_t n) {
    while (blocks_.size() << kBlockBits < n)
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlock));
    if (n > size_) size_ = n;
  }
  T& operator[](std::size_t i) { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  class const_iterator {
   public:
    const_iterator(const Column* c, std::size_t i) : c_(c), i_(i) {}
    const T& operator*() const { return (*c_)[i_]; }
    const_iterator& operator++() { return ++i_, *this; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const Column* c_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

// Fixed-width rows of 64-bit words (packed states) in blocks of whole rows:
// a BFS level. clear() keeps the blocks, so the next level reuses them.
class Rows {
 public:
  static constexpr std::size_t kRowsPerBlock = 4096;

  void set_width(std::size_t words) { width_ = words; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  void resize(std::size_t rows) {
    while (blocks_.size() * kRowsPerBlock < rows)
      blocks_.push_back(std::make_unique_for_overwrite<std::uint64_t[]>(kRowsPerBlock * width_));
    size_ = rows;
  }
  std::uint64_t* row(std::size_t i) {
    return blocks_[i / kRowsPerBlock].get() + (i % kRowsPerBlock) * width_;
  }
  const std::uint64_t* row(std::size_t i) const {
    return blocks_[i / kRowsPerBlock].get() + (i % kRowsPerBlock) * width_;
  }
  void push_back(const std::uint64_t* words) {
    resize(size_ + 1);
    std::memcpy(row(size_ - 1), words, width_ * sizeof(std::uint64_t));
  }
  void swap(Rows& o) noexcept {
    blocks_.swap(o.blocks_);
    std::swap(size_, o.size_);
    std::swap(width_, o.width_);
  }

 private:
  std::vector<std::unique_ptr<std::uint64_t[]>> blocks_;
  std::size_t size_ = 0, width_ = 1;
};

// A column of bit sets stored in as few bytes as its widest value needs
// (1, 2, 4 or 8): a stuck subject per job, and most fleets have few jobs.
class BitsColumn {
 public:
  void set_bits(int bits) { width_ = bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8; }
  void push_back(std::uint64_t v) {
    for (std::size_t b = 0; b < width_; ++b)
      bytes_.push_back(static_cast<std::uint8_t>(v >> 8 * b));
  }
  std::uint64_t operator[](std::size_t i) const {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < width_; ++b) v |= std::uint64_t{bytes_[i * width_ + b]} << 8 * b;
    return v;
  }
  std::size_t size() const { return bytes_.size() / width_; }
  bool empty() const { return bytes_.empty(); }
  // As Column::grow_to: then set() may write distinct elements from several threads.
  void grow_to(std::size_t n) { bytes_.grow_to(n * width_); }
  void set(std::size_t i, std::uint64_t v) {
    for (std::size_t b = 0; b < width_; ++b)
      bytes_[i * width_ + b] = static_cast<std::uint8_t>(v >> 8 * b);
  }

 private:
  std::size_t width_ = 8;
  Column<std::uint8_t> bytes_;
};

}  // namespace kmc::checker
