#include "protocols/multikueue_levers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace kmc::protocols {

namespace {

[[noreturn]] void bad(const model::Lever& lever, const std::string& value,
                      const std::string& expected) {
  throw model::InputError(
      lever.pos, "matrix." + lever.name,
      fmt::format("'{}' is not a value of this lever; expected {}", value, expected));
}

bool boolean(const model::Lever& lever, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  bad(lever, v, "true or false");
}

int integer(const model::Lever& lever, const std::string& v, int min) {
  int out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || out < min)
    bad(lever, v, fmt::format("an integer >= {}", min));
  return out;
}

ProvisioningClass provisioning_class(const model::Lever& lever, const std::string& v) {
  if (v.find("check-capacity") != std::string::npos) return ProvisioningClass::CheckCapacity;
  if (v.find("best-effort-atomic") != std::string::npos)
    return ProvisioningClass::BestEffortAtomicScaleUp;
  if (v.find("queued-provisioning") != std::string::npos)
    return ProvisioningClass::QueuedProvisioning;
  bad(lever, v,
      "best-effort-atomic-scaleup, check-capacity or queued-provisioning (a class name containing "
      "one)");
}

Dispatcher dispatcher(const model::Lever& lever, const std::string& v) {
  if (v == "AllAtOnce") return Dispatcher::AllAtOnce;
  if (v == "Incremental") return Dispatcher::Incremental;
  if (v == "CapacitySnapshot") return Dispatcher::CapacitySnapshot;
  bad(lever, v, "AllAtOnce, Incremental or CapacitySnapshot");
}

}  // namespace

const std::vector<std::string>& multikueue_lever_names() {
  static const std::vector<std::string> names = {
      "provisioningClass",    "provisioningTimeout",     "pin",
      "maxSnapshotStaleness", "waitForWorkloadAdmitted", "redispatchOnWorkerEviction",
      "dispatcher",           "snapshotRefreshes",       "timeoutVsBoot"};
  return names;
}

void apply_lever(MkParams& p, const model::Lever& lever, const std::string& v) {
  const std::string& n = lever.name;
  if (n == "provisioningClass") {
    const auto cls = provisioning_class(lever, v);
    // The lever stands for the fix as docs/fix-matrix.md tries it:
    // check-capacity fails a request it finds no room for (noRetry "true").
    for (auto& q : p.cqs)
      if (q.cluster >= 0 && q.provisioning) q.provisioning_class = cls, q.retries_later = false;
  } else if (n == "provisioningTimeout") {
    p.provisioning_timeout = boolean(lever, v);
  } else if (n == "pin") {
    p.pin = boolean(lever, v);
  } else if (n == "maxSnapshotStaleness") {
    p.max_staleness = integer(lever, v, -1);
  } else if (n == "waitForWorkloadAdmitted") {
    p.wait_for_admitted = boolean(lever, v);
  } else if (n == "redispatchOnWorkerEviction") {
    p.redispatch_on_worker_eviction = boolean(lever, v);
  } else if (n == "dispatcher") {
    p.dispatcher = dispatcher(lever, v);
  } else if (n == "timeoutVsBoot") {
    if (v == "Either")
      p.timeout_vs_boot = MkParams::TimeoutVsBoot::Either;
    else if (v == "TimeoutFirst")
      p.timeout_vs_boot = MkParams::TimeoutVsBoot::TimeoutFirst;
    else if (v == "BootFirst")
      p.timeout_vs_boot = MkParams::TimeoutVsBoot::BootFirst;
    else
      bad(lever, v, "Either, TimeoutFirst or BootFirst");
  } else if (n == "snapshotRefreshes") {
    p.snapshot_refreshes = integer(lever, v, -1);
  } else {
    throw model::InputError(lever.pos, "matrix." + n,
                            fmt::format("unknown lever; expected one of {}",
                                        fmt::join(multikueue_lever_names(), ", ")));
  }
}

}  // namespace kmc::protocols
