// What each action of a protocol reads and writes, over the state's variables
// (its fields' cells, flattened in member order), and what each property
// reads. Derived from the protocol's own rules, not declared by hand
// (checker/footprints.hpp), it is what partial-order reduction
// (checker/stubborn.hpp) needs to know which actions cannot affect each other.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kmc::model {

// A term of a guard compiled for explicit values: nodes in evaluation order (children first), the
// last the root; booleans are 0 and 1. Read off a Z3 term (checker/footprints.hpp), so that a
// search can ask which conjunct of a disabled action's guard is false in its state.
struct Formula {
  enum class Op : std::uint8_t {
    Const,
    Var,
    Add,
    Sub,
    Mul,
    Neg,
    Ite,
    Eq,
    Ne,
    Le,
    Lt,
    Ge,
    Gt,
    And,
    Or,
    Not,
    Implies
  };
  struct Node {
    Op op;
    std::int64_t value;          // Const: the number; Var: the variable's index
    std::uint32_t first, count;  // children: kids[first, first + count)
  };
  std::vector<Node> nodes;
  std::vector<std::uint32_t> kids;
  // The root's value in a state given as its variables' values; `scratch` holds one per node.
  std::int64_t eval(const std::vector<std::int64_t>& state,
                    std::vector<std::int64_t>& scratch) const;
};

// One conjunct of an action's guard: what it reads, and the formula, when it compiled.
struct Conjunct {
  std::vector<int> reads;
  Formula formula;
  bool compiled = false;
};

struct Footprints {
  int variables = 0;
  // Per candidate action (the protocol's candidates(), in order), sorted variable indices: what
  // its guard reads, what its update reads, and what its update may change.
  std::vector<std::vector<int>> guard, reads, writes;
  // Per candidate: its guard's top-level conjuncts. A disabled action can be enabled only by an
  // action that writes what one of its false conjuncts reads: partial-order reduction follows
  // the first false one instead of the whole guard (a necessary enabling set).
  std::vector<std::vector<Conjunct>> conjuncts;
  // Per candidate: the properties (indices into property_reads) it may disturb, as far as a
  // partial-order reduction cares: an always property it might turn from false to true (repair a
  // violation), a sometimes property it might turn from true to false. Only these make it
  // visible; writing what a property reads is not enough.
  std::vector<std::vector<int>> disturbs;
  // Per state property (always, sometimes), by name: the variables its predicate reads.
  std::vector<std::pair<std::string, std::vector<int>>> property_reads;
};

}  // namespace kmc::model
