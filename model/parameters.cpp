#include "model/parameters.hpp"

#include <fmt/format.h>

#include "model/yaml_node.hpp"

namespace kmc::model {

namespace {
thread_local ParameterScope* current = nullptr;
}

ParameterScope::ParameterScope(std::map<std::string, std::int64_t> values)
    : values_(std::move(values)), outer_(current) {
  current = this;
}

ParameterScope::~ParameterScope() {
  current = outer_;
}

bool ParameterScope::value_of(const YamlNode& node, std::int64_t& value) {
  if (!node.is_map() || !node.raw()["param"]) return false;
  if (!current)
    node.fail(
        "a parameter ({param: NAME, range: [LO, HI]}) is for kmc synth; kmc check needs a number "
        "here");
  Warnings unused;
  check_keys(node, {.modeled = {"param", "range"}}, unused);
  Parameter p;
  p.name = require(node, "param").str();
  if (p.name.empty()) node["param"].fail("must not be empty");
  const auto range = require(node, "range").items();
  if (range.size() != 2) node["range"].fail("write [LO, HI]");
  p.lo = range[0].int64(-1, 1'000'000'000'000'000);
  p.hi = range[1].int64(-1, 1'000'000'000'000'000);
  if (p.hi < p.lo) node["range"].fail(fmt::format("HI {} is below LO {}", p.hi, p.lo));
  p.pos = node.pos();
  p.field = node.path();
  ParameterScope& scope = *current;
  bool known = false;
  for (const auto& q : scope.seen_)
    if (q.name == p.name) {
      known = true;
      if (q.lo != p.lo || q.hi != p.hi)
        node["range"].fail(fmt::format("parameter '{}' has range [{}, {}] at {}:{}", q.name, q.lo,
                                       q.hi, q.pos.file, q.pos.line));
    }
  if (!known) scope.seen_.push_back(p);
  const auto it = scope.values_.find(p.name);
  value = it == scope.values_.end() ? p.lo : it->second;
  return true;
}

}  // namespace kmc::model
