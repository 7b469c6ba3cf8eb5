#include "protocols/multikueue.hpp"

#include "protocols/multikueue_rules.hpp"

namespace kmc::protocols {

template class MkRules<std::int64_t>;

const char* manager_phase_name(std::int64_t v) {
  static const char* names[] = {"Pending", "QuotaReserved", "Admitted", "Finished", "Evicted"};
  return v >= 0 && v < 5 ? names[v] : "?";
}
const char* remote_phase_name(std::int64_t v) {
  static const char* names[] = {"-",       "Pending",  "QuotaReserved", "Admitted",
                                "Running", "Finished", "Rejected"};
  return v >= 0 && v < 7 ? names[v] : "?";
}
const char* prov_phase_name(std::int64_t v) {
  static const char* names[] = {"-", "Requested", "Accepted", "Provisioned"};
  return v >= 0 && v < 4 ? names[v] : "?";
}
const char* action_kind_name(ActionKind k) {
  static const char* names[] = {"ReserveQuota",
                                "Nominate",
                                "NominateNextRound",
                                "NominateWorker",
                                "Renominate",
                                "CreateRemoteWorkload",
                                "ReserveQuotaOnWorker",
                                "ProvisioningAccepted",
                                "ProvisioningProvisioned",
                                "ProvisioningFailed",
                                "ProvisioningTimeout",
                                "SelectWorker",
                                "JobStarted",
                                "JobFinished",
                                "SpotReclaim",
                                "CapacityLost",
                                "RefreshSnapshot",
                                "RetryDispatch",
                                "WorkerDisconnected",
                                "WorkerReconnected",
                                "WorkerLostTimeout",
                                "DeleteStaleRemote",
                                "FinishFromRemote",
                                "CapacityReturned",
                                "CapacityRevoked",
                                "LostJobStopped",
                                "EvictedCopyDeactivated",
                                "RecreateRemoteWorkload"};
  return names[static_cast<int>(k)];
}

}  // namespace kmc::protocols
