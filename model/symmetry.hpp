// Symmetry reduction (issue 13), derived from a protocol's axes: entities of
// one axis with equal parameters (identical jobs, identical workers) are
// interchangeable, so a state and every state obtained by permuting them
// behave alike. The checker stores one representative per such orbit: each
// state is mapped into its orbit before it is fingerprinted.
//
// A protocol declares which entities are interchangeable for its parameters,
// and says why an axis is not (a FIFO queue reads creation order, a pinning
// dispatcher reads the dispatch order): `static Symmetry symmetry(const
// Params&)` in its spec. Everything else is generic: a permutation moves
// every field's cells along the axis, the cells of axes that depend on it
// (a worker's capacity slots) with them, and renames Index values that name
// an entity of the axis.
//
// Soundness needs only that the representative is in the state's orbit
// (SPIN's and TLC's argument: the reduced graph visits some member of every
// reachable orbit), so sorting entities by their cells is enough; where ties
// leave two orbit members apart, the reduction is smaller, never wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/spec.hpp"

namespace kmc::model {

// Entities of one axis that are interchangeable (indices into the axis, at least two).
struct SymmetricClass {
  int axis = 0;
  std::vector<int> entities;
  // Entities of another axis that belong to each of these and move with it
  // (a worker's ClusterQueues): owned[k] are entities[k]'s, position by
  // position alike, so every list has the same length.
  struct Link {
    int axis = 0;
    std::vector<std::vector<int>> owned;
  };
  std::vector<Link> links;
};

struct Symmetry {
  std::vector<SymmetricClass> classes;
  // Why an axis, or some of its entities, are not interchangeable, in the
  // protocol's words: printed with the report so a user knows what was not reduced.
  std::vector<std::string> notes;
};

// Maps a state (a layout's fields, as flat vectors) to a member of its orbit.
// Thread-safe: its scratch space is per thread.
class Canonicalizer {
 public:
  Canonicalizer() = default;
  // Classes the layout cannot permute soundly (an axis twice in one field, a
  // dependent axis in a field without its parent, cells of unequal ranges
  // or presence) are dropped, with a note.
  Canonicalizer(const Layout& layout, Symmetry symmetry);

  bool active() const { return !plans_.empty(); }
  const Symmetry& symmetry() const { return sym_; }
  // "symmetry over 5 interchangeable jobs (j0, j1, ...)" per class: what the report says ran.
  std::vector<std::string> summary() const;

  // The names of the axes a permutation may rename (the classes' and their links').
  std::vector<std::string> moved_axes() const { return moved_axes_; }

  // fields[k] is field k's values (layout order). True when the state changed.
  bool canonicalize(std::int64_t* const* fields) const;

 private:
  struct Slice {
    std::size_t field;
    std::vector<std::vector<std::uint32_t>> cells;  // per class entity: offsets in the field
  };
  // An Index field whose values name entities of a permuted axis: names[k]
  // are class entity k's (itself, or what it owns on a linked axis).
  struct Rename {
    std::size_t field, size;
    std::vector<std::vector<int>> names;
  };
  struct Plan {
    std::size_t n = 0;  // class entities
    std::vector<Slice> slices;
    std::vector<Rename> renames;
  };
  bool apply(const Plan& plan, std::int64_t* const* fields) const;

  Symmetry sym_;
  std::vector<std::string> axis_names_;  // per class kept: the axis's name
  std::vector<std::vector<std::string>> labels_;
  std::vector<std::string> moved_axes_;
  std::vector<Plan> plans_;
};

}  // namespace kmc::model
