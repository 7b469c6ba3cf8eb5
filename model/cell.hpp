// Typed trace cells: one value of a protocol's state, named by its field and
// the entities that index it ("remote" of job "team-ml/llm-finetune" on worker
// "us-central1" is "QuotaReserved"; "usage" of ClusterQueue "manager/gpu-cq",
// flavor "h100", resource "nvidia.com/gpu" is 8). ITF traces, rendering,
// engine replay and validation compare cells, never the describe() text,
// which is for people.
//
// A field's schema says which axes index it and what kind of value it holds,
// so a reader can check a trace it did not write: an integer (a count, or a
// quantity in Kueue's integer units), a name from a fixed set (a phase), or
// an entity name ("" when the state holds none, the -1 index).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kmc::model {

using CellValue = std::variant<std::int64_t, std::string>;

struct CellKey {
  std::string field;
  std::vector<std::string> entity;
  friend auto operator<=>(const CellKey&, const CellKey&) = default;
};

struct Cell {
  std::string field;
  std::vector<std::string> entity;  // one name per axis of the field
  CellValue value;
  CellKey key() const { return {field, entity}; }
  friend bool operator==(const Cell&, const Cell&) = default;
};

enum class CellKind { Int, Enum, Name };

struct FieldSchema {
  std::string field;
  std::vector<std::string> axes;  // "job", "worker", "clusterQueue", "flavor", "resource", "budget"
  CellKind kind = CellKind::Int;
  std::vector<std::string> values;  // CellKind::Enum: the names it may take
  bool optional = false;            // present only under some options (a snapshot dispatcher)
};

// A state's cells in the order the protocol lists them, looked up by key.
class Cells {
 public:
  void add(Cell c) {
    index_[c.key()] = list_.size();
    list_.push_back(std::move(c));
  }
  const CellValue* find(const std::string& field, const std::vector<std::string>& entity) const {
    auto it = index_.find(CellKey{field, entity});
    return it == index_.end() ? nullptr : &list_[it->second].value;
  }
  const std::vector<Cell>& all() const { return list_; }
  bool empty() const { return list_.empty(); }

 private:
  std::vector<Cell> list_;
  std::map<CellKey, std::size_t> index_;
};

inline std::string to_string(const CellValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  const auto& s = std::get<std::string>(v);
  return s.empty() ? "none" : s;
}

// "remote[team-ml/llm-finetune, us-central1]", for messages.
inline std::string key_text(const std::string& field, const std::vector<std::string>& entity) {
  std::string out = field + "[";
  for (std::size_t i = 0; i < entity.size(); ++i) out += (i ? ", " : "") + entity[i];
  return out + "]";
}

}  // namespace kmc::model
