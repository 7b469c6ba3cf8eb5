// A protocol is a definition (DESIGN.md, "Core shapes"): it declares its
// parameters, how a scenario compiles to them, the named axes its state is
// indexed by, each state field's axes and value range, one action table
// (name in Kueue's words, fairness family, controller group, argument axes),
// the candidate actions of an instance, the initial state, and Rules<V> that
// hold the guards and updates once over a value type. Everything else is
// derived by generic code from that definition: the explicit instance
// (model/instance.hpp: actions, next, fingerprints, action names, picks,
// fairness families, typed trace cells), the symbolic instance
// (checker/symbolic_reach.hpp), and, planned, packed states and reductions.
//
// docs/adding-a-protocol.md walks through a new one.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/cell.hpp"
#include "model/scenario.hpp"
#include "model/value.hpp"

namespace kmc::model {

// A named axis of an instance: Job, Worker, ClusterQueue, Flavor, Resource...
// An axis may depend on another (the flavors of a ClusterQueue, the capacity
// slots of a worker): then labels_of[i] are its labels under entity i of the
// parent axis, and its extent is the longest such list (shorter lists pad).
struct Axis {
  std::string name;                 // "job": as trace cells and picks name it
  std::vector<std::string> labels;  // independent axes: one name per entity
  int parent = -1;                  // dependent axes: the axis they depend on
  std::vector<std::vector<std::string>> labels_of;
  int padded_to = 0;  // dependent axes: the extent is at least this

  int extent() const;
  // The label of entity i under parent entity p (ignored for independent axes); empty when padding.
  const std::string& label(int i, int p = -1) const;
};

enum class FieldKind {
  Int,    // a count or a quantity in Kueue's integer units
  Enum,   // a phase: names[v - lo]
  Index,  // an entity of `index_axis`, -1 for none
  Flag,   // 0 or 1
};

// A narrower range for one cell of a field: its values are lo, lo + step,
// ..., up to hi. Quantities in Kueue's units (bytes of memory) need 40 bits
// over a field's whole range, but a cell takes only multiples of its jobs'
// requests up to what exists there, which packs in a few bits.
struct CellRange {
  std::int64_t lo = 0, hi = 0, step = 1;
};

// One state field: a flat vector indexed by its axes in row-major order.
struct Field {
  std::string name;       // the State member's name, also the trace cell's field
  std::vector<int> axes;  // indices into Layout::axes
  FieldKind kind = FieldKind::Int;
  std::int64_t lo = 0, hi = 0;     // the declared value range, inclusive (packing reads it)
  std::vector<std::string> names;  // Enum: one per value lo..hi, as traces name them
  int index_axis = -1;             // Index
  // Which cells exist, by their per-axis indices (a flavor that does not
  // cover a resource has no usage); unset: every non-padding cell.
  std::function<bool(const std::vector<int>&)> present;
  // Index fields on a dependent axis: the parent entity a value is named
  // under, from the cell's per-axis indices (a job's flavor is one of its
  // ClusterQueue's); -1: none, the value has no name.
  std::function<int(const std::vector<int>&)> index_parent;
  bool optional = false;  // present only under some parameters: a trace reader does not require it
  // Per cell, by its per-axis indices (padding included), a range within lo..hi; unset: lo..hi.
  std::function<CellRange(const std::vector<int>&)> range_of;
};

// One kind of action: its name, the axes its arguments index (in order), the
// fairness family it belongs to, and the controller that takes it (a lane in
// a sequence diagram; "environment" for what nobody controls).
struct ActionKind {
  struct Arg {
    std::string name;  // as the trace's picks name it: "job", "cluster"
    int axis;          // index into Layout::axes
  };
  std::string name;
  std::vector<Arg> args;
  int family = 0;  // index into Layout::families
  std::string controller;
};

struct Family {
  std::string name;
  int default_fairness = 0;  // 0 none, 1 weak, 2 strong
};

struct Layout {
  std::vector<Axis> axes;
  std::vector<Field> fields;
  std::vector<ActionKind> actions;
  std::vector<Family> families;

  int axis(const std::string& name) const;  // -1 when there is none
  // The flat offset of per-axis indices into a field.
  std::size_t offset(const Field& f, const std::vector<int>& at) const;
  // The per-axis indices of a flat offset into a field (offset's inverse), padding included.
  std::vector<int> indices(const Field& f, std::size_t offset) const;
  // The range a cell's values lie in: its range_of, else the field's.
  CellRange range(const Field& f, std::size_t offset) const;
  std::size_t size(const Field& f) const;
};

// Typed trace cells derived from the layout (model/cell.hpp): the schema a
// reader checks a trace against, and one field's cells of a state, in
// row-major order of its axes, padding and absent cells left out.
std::vector<FieldSchema> schema_of(const Layout& layout);
void append_cells(const Layout& layout, const Field& field, const std::vector<std::int64_t>& values,
                  std::vector<Cell>& out);

// What an action chose: its kind and one entity index per argument (-1: unused).
struct ActionRef {
  int kind = 0;
  std::vector<int> args;
};

// The definition a protocol gives. State<V> is a Hana-reflected struct whose
// members are std::vector<V>, in Layout::fields' order.
template <class S>
concept ProtocolSpec = std::constructible_from < typename S::template Rules<std::int64_t>,
const typename S::Params&,
    ExplicitValues > &&requires(const typename S::Params& p, const Scenario& sc,
                                const typename S::Action& a,
                                const typename S::template State<std::int64_t>& s,
                                typename S::template State<std::int64_t>& m,
                                const typename S::template Rules<std::int64_t>& rules) {
  { S::name } -> std::convertible_to<const char*>;
  { S::compile(sc) } -> std::same_as<typename S::Params>;
  { S::layout(p) } -> std::same_as<Layout>;
  { S::candidates(p) } -> std::same_as<std::vector<typename S::Action>>;
  { S::initial(p) } -> std::same_as<typename S::template State<std::int64_t>>;
  { S::ref(p, a) } -> std::same_as<ActionRef>;
  {
    S::identity(p)
    } -> std::same_as<std::uint64_t>;    // every parameter, hashed: equal identities behave alike
  { a.id } -> std::convertible_to<int>;  // the action's index among the candidates
  { rules.enabled(s, a) } -> std::convertible_to<bool>;
  rules.apply_in_place(m, a);
};

}  // namespace kmc::model
