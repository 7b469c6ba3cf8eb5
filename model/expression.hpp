// User-defined properties' expressions (issue 12: "users ask reachability
// questions without writing C++"): a small language over a protocol's typed
// cells, compiled against its layout, evaluated over the value type V like
// the protocol's own rules (model/expression_eval.hpp), so one expression
// is a predicate for explicit search and a formula for the SMT engines.
//
//   some j: job. (count w: worker. remote[j, w] in {QuotaReserved, Admitted, Running}) >= 2
//   all j: job. phase[j] == Admitted => cluster[j] != none
//   usage["manager/gpu-cq", h100, "nvidia.com/gpu"] <= 8
//
// Cells are written as traces name them (field[entity, ...], entities by
// name or by a bound variable); a field with no axes is written bare. Enum
// values and entity names compared with a cell are resolved against that
// cell's field (`none` is the Index fields' empty value); a bound variable
// compared with a cell stands for its entity's index (cluster[j] == w). Quantifiers
// (all, some, no, and the numbers count and sum) bind a variable over an
// axis that depends on no other; they extend as far right as possible.
// Operators, loosest first: =>, || (or), && (and), ! (not), comparisons
// (== != < <= > >=, `in {...}`), + and -.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/spec.hpp"

namespace kmc::model {

struct Expr;

// One argument of a cell: a bound variable's slot, or an entity fixed by name.
struct CellArg {
  int var = -1;      // the variable's slot, or -1
  int index = -1;    // an independent axis's entity, or -1
  std::string name;  // a dependent axis's entity, resolved under its parent's entity when evaluated
};

struct Expr {
  enum class Op {
    Int,
    Cell,
    Name,  // an enum value or entity name, resolved against the cell it is compared with
    Var,   // a bound variable: the index of the entity it stands for
    Not,
    And,
    Or,
    Implies,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    Add,
    Sub,
    All,
    Some,
    No,
    Count,
    Sum,
  };
  Op op = Op::Int;
  std::int64_t value = 0;  // Int
  int field = -1;          // Cell: index into Layout::fields
  std::vector<CellArg> args;
  std::string name;         // Name
  int var = -1, axis = -1;  // quantifiers: the slot they bind, the axis it ranges over
  std::vector<Expr> kids;
  int offset = 0;  // where it starts in the text, for errors
};

// A compiled expression: its tree and how many variable slots evaluation needs.
struct Compiled {
  std::shared_ptr<const Expr> root;
  int slots = 0;
  bool boolean = true;  // a condition (else a number)
};

// Where an expression's text is in its file: the line and 1-based column of its first character.
struct TextPos {
  SourcePos pos;
  int column = 0;  // 0: unknown
};

// Compiles `text` against `layout`; `bound` are variables already bound outside it (a leads-to's
// subject), in slot order, with their axes. Throws InputError naming the file, line and field,
// the message starting with the column, for anything that does not parse, name a field, entity
// or value of this instance, or is not a condition.
Compiled compile_expression(const std::string& text, const TextPos& where, const std::string& field,
                            const Layout& layout,
                            const std::vector<std::pair<std::string, int>>& bound = {});

}  // namespace kmc::model
