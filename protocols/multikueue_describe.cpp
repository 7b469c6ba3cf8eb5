// The MultiKueue state in people's words, for the text timeline of kmc check
// only: no tool reads it back (traces carry typed cells, multikueue_cells.cpp).
#include <fmt/format.h>

#include <iterator>

#include "protocols/multikueue.hpp"

namespace kmc::protocols {

namespace {

std::string remote_text(const MultiKueue::State& s, int i) {
  std::string text = remote_phase_name(s.remote[i]);
  if (s.prov[i] != kProvNone)
    text += fmt::format(", ProvisioningRequest {}", prov_phase_name(s.prov[i]));
  if (s.attempts[i] > 0)
    text += fmt::format(", {} failed attempt{}", s.attempts[i], s.attempts[i] > 1 ? "s" : "");
  if (s.nominated[i]) text += ", nominated";
  return text;
}

// Kueue's integers back to Kubernetes quantities: "96", "768Gi", "500m".
std::string quantity(const std::string& resource, std::int64_t v) {
  const auto q = resource == "cpu" ? model::Quantity{v} : model::Quantity::from_units(v);
  return q.to_string();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> MultiKueue::describe(const State& s) const {
  const MkParams& p_ = params();
  std::vector<std::pair<std::string, std::string>> out;
  const int R = p_.R();
  for (int j = 0; j < p_.J(); ++j) {
    std::string m = manager_phase_name(s.phase[j]);
    if (s.cluster[j] >= 0) m += " on " + p_.workers[s.cluster[j]];
    // The quota an evicted workload keeps while its Job, mirrored from a lost worker, is active.
    if (p_.connection_faults() && s.mirrored_active[j] >= 0)
      m += ", Job active on " + p_.workers[s.mirrored_active[j]];
    out.emplace_back(fmt::format("{} @manager", p_.jobs[j]), m);
    for (int w = 0; w < p_.W(); ++w)
      out.emplace_back(fmt::format("{} @{}", p_.jobs[j], p_.workers[w]), remote_text(s, jw(j, w)));
  }
  for (std::size_t q = 0; q < p_.cqs.size(); ++q) {
    const CqParams& cq = p_.cqs[q];
    const std::string cluster = cq.cluster < 0 ? "manager" : p_.workers[cq.cluster];
    for (std::size_t f = 0; f < cq.flavors.size(); ++f)
      for (int r = 0; r < R; ++r)
        if (cq.nominal[f * R + r] >= 0)
          out.emplace_back(
              fmt::format("usage {}/{} {} {}", cluster, cq.name, cq.flavors[f], p_.resources[r]),
              fmt::format("{}/{}",
                          quantity(p_.resources[r],
                                   s.usage[u(static_cast<int>(q), static_cast<int>(f), r)]),
                          quantity(p_.resources[r], cq.nominal[f * R + r])));
  }
  const bool snapshot = p_.dispatcher == Dispatcher::CapacitySnapshot;
  for (int w = 0; w < p_.W(); ++w)
    for (std::size_t slot = 0; slot < p_.worker_flavors[w].size(); ++slot)
      for (int r = 0; r < R; ++r) {
        const auto& flavor = p_.worker_flavors[w][slot];
        out.emplace_back(fmt::format("free {} {} {}", p_.workers[w], flavor, p_.resources[r]),
                         quantity(p_.resources[r], s.capacity[c(w, static_cast<int>(slot), r)]));
        if (snapshot)
          out.emplace_back(fmt::format("snapshot {} {} {}", p_.workers[w], flavor, p_.resources[r]),
                           quantity(p_.resources[r], s.snapshot[c(w, static_cast<int>(slot), r)]));
      }
  if (p_.connection_faults())
    for (int w = 0; w < p_.W(); ++w)
      out.emplace_back(fmt::format("connection {}", p_.workers[w]),
                       s.connected[w] ? "connected" : "lost");
  static const char* budget_names[] = {"spot reclaims left",      "capacity losses left",
                                       "snapshot refreshes left", "worker disconnects left",
                                       "capacity returns left",   "capacity revocations left"};
  static_assert(std::size(budget_names) == kBudgets);
  for (int b = 0; b < kBudgets; ++b)
    if (s.budget[b] >= 0 && (b != kSnapshotRefreshes || snapshot) &&
        (b < kWorkerDisconnects || (b == kWorkerDisconnects ? p_.connection_faults()
                                    : b == kCapacityReturns ? p_.capacity_returns != 0
                                                            : p_.capacity_revocations != 0)))
      out.emplace_back(budget_names[b], std::to_string(s.budget[b]));
  return out;
}

}  // namespace kmc::protocols
