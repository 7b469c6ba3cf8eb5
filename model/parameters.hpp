// Parameters for `kmc synth` (the SMT issue): kmc.yaml and the manifests may
// write {param: NAME, range: [LO, HI]} in place of an integer or a quantity
// (a capacity, a nominal quota, a job's GPUs, backoffLimitCount...). A
// ParameterScope, held while a scenario loads, gives each parameter its
// value and records which parameters the scenario has; outside a scope a
// parameter is bad input, so `kmc check` never runs on a made-up number.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/diagnostics.hpp"

namespace kmc::model {

class YamlNode;

struct Parameter {
  std::string name;
  std::int64_t lo = 0, hi = 0;
  SourcePos pos;
  std::string field;  // where it is written, as diagnostics name fields
};

class ParameterScope {
 public:
  // `values`: each parameter's value in this load; a parameter without one takes its LO.
  explicit ParameterScope(std::map<std::string, std::int64_t> values = {});
  ~ParameterScope();
  ParameterScope(const ParameterScope&) = delete;
  ParameterScope& operator=(const ParameterScope&) = delete;

  // The parameters the loads in this scope met, in the order first met.
  const std::vector<Parameter>& parameters() const { return seen_; }

  // The value of `node` when it is a parameter; false when it is not one. Throws InputError at
  // the node for a malformed parameter, a range that disagrees with an earlier one of the same
  // name, or a parameter read outside any scope.
  static bool value_of(const YamlNode& node, std::int64_t& value);

 private:
  std::map<std::string, std::int64_t> values_;
  std::vector<Parameter> seen_;
  ParameterScope* outer_;
};

}  // namespace kmc::model
