#include "counterexamples/engine_merge.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checker/memory.hpp"

namespace kmc::cx {

namespace {

bool contains(const std::vector<std::string>& xs, const std::string& x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::string engine_words(checker::SmtEngine e) {
  return e == checker::SmtEngine::Bmc ? "bounded model checking (Z3)"
                                      : "k-induction with bounded model checking (Z3)";
}

}  // namespace

EngineSplit split_engines(const std::vector<std::string>& names,
                          const std::vector<std::string>& decidable) {
  EngineSplit s;
  for (const auto& n : names) (contains(decidable, n) ? s.smt : s.fallback).push_back(n);
  return s;
}

checker::Result merge_engines(const std::vector<std::string>& names, checker::SmtEngine engine,
                              checker::Result smt, std::optional<checker::Result> expl,
                              const std::vector<checker::PropertyResult>& skipped,
                              const std::string& why_fallback) {
  checker::Result r;
  std::vector<checker::PropertyResult> fallback = expl ? expl->properties : skipped;
  for (auto& p : fallback) p.engine = "explicit";
  for (const auto& name : names) {
    for (const auto* list : {&smt.properties, &fallback})
      for (const auto& p : *list)
        if (p.name == name) r.properties.push_back(p);
  }
  // The SMT engine's violation first: it is the shortest for its properties, and when it exists
  // explicit search did not run.
  r.violation = smt.violation ? smt.violation : (expl ? expl->violation : std::nullopt);
  bool incomplete = false;
  for (const auto& p : r.properties)
    incomplete = incomplete || p.verdict == checker::Verdict::Incomplete;
  r.verdict = r.violation
                  ? checker::Verdict::Violated
                  : (incomplete ? checker::Verdict::Incomplete : checker::Verdict::Verified);
  if (r.verdict == checker::Verdict::Incomplete) {
    std::vector<std::string> reasons;
    for (const auto* part : {&smt, expl ? &*expl : nullptr})
      if (part && part->verdict == checker::Verdict::Incomplete &&
          !part->incomplete_reason.empty() && !contains(reasons, part->incomplete_reason))
        reasons.push_back(part->incomplete_reason);
    if (!expl && !skipped.empty()) reasons.push_back("explicit search not run");
    r.incomplete_reason = fmt::format("{}", fmt::join(reasons, "; "));
    // What holds within a depth is what both engines checked: the shallower.
    r.explored_depth = smt.explored_depth;
    if (expl) r.explored_depth = std::min(r.explored_depth, expl->explored_depth);
  }
  r.induction_counterexample = std::move(smt.induction_counterexample);
  if (expl) {
    r.assumptions = expl->assumptions;
    r.reductions = expl->reductions;
    r.stats = expl->stats;
    r.stats.seconds += smt.stats.seconds;
  } else {
    r.stats = smt.stats;
  }
  r.stats.peak_rss_bytes = checker::peak_resident_bytes();  // the solver's memory too
  std::vector<std::string> by_smt, by_explicit;
  for (const auto& p : smt.properties) by_smt.push_back(p.name);
  for (const auto& p : fallback) by_explicit.push_back(p.name);
  if (!by_smt.empty())
    r.engines.push_back(fmt::format("{}: {} ({:.3f} s, depth {})", engine_words(engine),
                                    fmt::join(by_smt, ", "), smt.stats.seconds, smt.stats.depth));
  if (!by_explicit.empty())
    r.engines.push_back(
        fmt::format("explicit search{}: {} ({})",
                    expl ? "" : " (not run: the run stopped at the first violation)",
                    fmt::join(by_explicit, ", "), why_fallback));
  return r;
}

}  // namespace kmc::cx
