// Checking MultiKueue instances in protocol tests: a run over the registry's
// properties, the action names of a violation's path, and a walk by action
// names for scenarios written step by step.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "checker/bfs.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"
#include "protocols/multikueue.hpp"

namespace mk_check {

using kmc::checker::CheckOptions;
using kmc::checker::Result;
using kmc::protocols::MultiKueue;

// Every default property unless the options name some.
// Compiled once, in mk_check.cpp: Bfs over MultiKueue costs each test file
// that instantiates it seconds of a cold build.
Result check(const MultiKueue& p, CheckOptions opts = {});

inline std::vector<std::string> trace_names(const MultiKueue& p, const Result& r) {
  std::vector<std::string> names;
  for (const auto& a : kmc::checker::replay_actions(p, r.violation->path))
    names.push_back(p.action_name(a));
  return names;
}

// Walks the protocol by action names ("SelectWorker(team-a/train-0, us-central1)").
struct Walk {
  const MultiKueue& p;
  MultiKueue::State s;
  // Takes the named action; false when it is not enabled.
  bool take(const std::string& name) {
    std::vector<kmc::protocols::MkAction> as;
    p.actions(s, as);
    for (const auto& a : as)
      if (p.action_name(a) == name) return s = p.next(s, a), true;
    return false;
  }
  bool enabled(const std::string& name) const {
    std::vector<kmc::protocols::MkAction> as;
    p.actions(s, as);
    return std::any_of(as.begin(), as.end(),
                       [&](const kmc::protocols::MkAction& a) { return p.action_name(a) == name; });
  }
};

}  // namespace mk_check
