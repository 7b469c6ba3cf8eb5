// Queue order in MultiKueue fleets, as Kueue's ClusterQueue heap decides it
// (cluster_queue.go: queueOrderingFunc; workload.go: GetQueueOrderTimestamp):
// priority first, then the queue-order timestamp. A copy on a worker is
// created there (cloneForCreate keeps no creationTimestamp), so a worker
// orders copies by when the manager created them; a Workload evicted by an
// admission check, or by a PodsReady timeout, waits from the eviction's time.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mk_check.hpp"
#include "mk_fixtures.hpp"
#include "protocols/multikueue.hpp"
#include "reachable.hpp"

using kmc::protocols::MultiKueue;
using mk_check::Walk;

namespace {

const std::string kJ0 = "team-a/train-0", kJ1 = "team-a/train-1", kUs = "us-central1";

std::string on(const std::string& action, const std::string& job) {
  return action + "(" + job + ", " + kUs + ")";
}

// One worker of 8 GPUs without a ProvisioningRequest: a copy is Admitted when it reserves quota.
kmc::protocols::MkParams one_worker(int jobs, std::int64_t manager_gpus) {
  auto p = mk_fixtures::fleet(1, jobs, 8, manager_gpus);
  for (auto& q : p.cqs) q.provisioning = false;
  return p;
}

// Both jobs hold manager quota; the manager creates train-1's copy before train-0's.
Walk copies_created_out_of_order(const MultiKueue& mk) {
  Walk w{mk, mk.init_states().front()};
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "ReserveQuota(" + kJ1 + ")", "Nominate(" + kJ1 + ")",
        "Nominate(" + kJ0 + ")", on("CreateRemoteWorkload", kJ1), on("CreateRemoteWorkload", kJ0)})
    REQUIRE(w.take(step));
  return w;
}

}  // namespace

TEST_CASE("a worker queues copies in the order the manager created them, not the manager's order",
          "[protocols][multikueue][queue-order]") {
  const MultiKueue mk(one_worker(2, 16));
  Walk w = copies_created_out_of_order(mk);
  // Both fit alone, not together: the older copy, train-1's, is the head (BestEffortFIFO).
  CHECK(w.enabled(on("ReserveQuotaOnWorker", kJ1)));
  CHECK_FALSE(w.enabled(on("ReserveQuotaOnWorker", kJ0)));
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{2, 1});
  REQUIRE(w.take(on("ReserveQuotaOnWorker", kJ1)));
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{1, 0});  // train-0's moves up
}

TEST_CASE("StrictFIFO on a worker: the older copy blocks the newer even where it does not fit",
          "[protocols][multikueue][queue-order]") {
  auto p = one_worker(2, 24);
  p.request[1] = 16;  // train-1 never fits the worker's 8 GPUs
  SECTION("BestEffortFIFO passes over it") {
    const MultiKueue mk(p);
    CHECK(copies_created_out_of_order(mk).enabled(on("ReserveQuotaOnWorker", kJ0)));
  }
  SECTION("StrictFIFO does not") {
    p.cqs[1].strict_fifo = true;
    const MultiKueue mk(p);
    CHECK_FALSE(copies_created_out_of_order(mk).enabled(on("ReserveQuotaOnWorker", kJ0)));
  }
}

TEST_CASE("a job the MultiKueue check requeues waits behind the jobs that waited meanwhile",
          "[protocols][multikueue][queue-order]") {
  // Manager quota for one job at a time; a spot reclaim evicts the running copy on its worker
  // (waitForPodsReady), the check goes Retry and the manager evicts its workload.
  auto p = one_worker(2, 8);
  p.spot_reclaims = 1;
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  CHECK(w.s.queue_rank == std::vector<std::int64_t>{1, 2});
  CHECK_FALSE(w.enabled("ReserveQuota(" + kJ1 + ")"));  // train-0 is older and fits
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "Nominate(" + kJ0 + ")", on("CreateRemoteWorkload", kJ0),
        on("ReserveQuotaOnWorker", kJ0), on("SelectWorker", kJ0), on("JobStarted", kJ0),
        on("SpotReclaim", kJ0), on("RetryDispatch", kJ0)})
    REQUIRE(w.take(step));
  CHECK(w.s.queue_rank == std::vector<std::int64_t>{2, 1});
  CHECK(w.enabled("ReserveQuota(" + kJ1 + ")"));
  CHECK_FALSE(w.enabled("ReserveQuota(" + kJ0 + ")"));
}

TEST_CASE("a higher priority still goes first after a requeue",
          "[protocols][multikueue][queue-order]") {
  auto p = one_worker(2, 8);
  p.spot_reclaims = 1;
  p.priority = {100, 0};  // queue order: train-0 first by priority
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "Nominate(" + kJ0 + ")", on("CreateRemoteWorkload", kJ0),
        on("ReserveQuotaOnWorker", kJ0), on("SelectWorker", kJ0), on("JobStarted", kJ0),
        on("SpotReclaim", kJ0), on("RetryDispatch", kJ0)})
    REQUIRE(w.take(step));
  CHECK(w.enabled("ReserveQuota(" + kJ0 + ")"));
  CHECK_FALSE(w.enabled("ReserveQuota(" + kJ1 + ")"));
}

TEST_CASE("a copy whose ProvisioningRequest failed waits behind the copies created since",
          "[protocols][multikueue][queue-order]") {
  auto p = mk_fixtures::fleet(1, 2, 8, 16);  // a ProvisioningRequest check on the worker
  p.answer[0] = kmc::model::AutoscalerAnswer::Any;
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "ReserveQuota(" + kJ1 + ")", "Nominate(" + kJ0 + ")",
        on("CreateRemoteWorkload", kJ0), on("ReserveQuotaOnWorker", kJ0), "Nominate(" + kJ1 + ")",
        on("CreateRemoteWorkload", kJ1)})
    REQUIRE(w.take(step));
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{0, 1});
  CHECK_FALSE(w.enabled(on("ReserveQuotaOnWorker", kJ1)));  // train-0 holds the 8 GPUs
  REQUIRE(w.take(on("ProvisioningAccepted", kJ0)));
  REQUIRE(w.take(on("ProvisioningFailed", kJ0)));
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{2, 1});
  CHECK(w.enabled(on("ReserveQuotaOnWorker", kJ1)));
  CHECK_FALSE(w.enabled(on("ReserveQuotaOnWorker", kJ0)));
}

TEST_CASE("deleting a queued copy moves the copies behind it up",
          "[protocols][multikueue][queue-order]") {
  // Two workers, so the copies left behind are deleted when the other worker's copy wins.
  auto p = mk_fixtures::fleet(2, 2, 8, 16);
  for (auto& q : p.cqs) q.provisioning = false;
  const MultiKueue mk(p);
  Walk w{mk, mk.init_states().front()};
  const std::string asia = "asia-southeast1";
  for (const std::string& step :
       {"ReserveQuota(" + kJ0 + ")", "ReserveQuota(" + kJ1 + ")", "Nominate(" + kJ0 + ")",
        "Nominate(" + kJ1 + ")", on("CreateRemoteWorkload", kJ0), on("CreateRemoteWorkload", kJ1),
        "CreateRemoteWorkload(" + kJ0 + ", " + asia + ")",
        "ReserveQuotaOnWorker(" + kJ0 + ", " + asia + ")"})
    REQUIRE(w.take(step));
  // us-central1: train-0 first, then train-1 (ranks per copy, [job][worker]).
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{1, 0, 2, 0});
  REQUIRE(w.take("SelectWorker(" + kJ0 + ", " + asia + ")"));  // deletes train-0's us copy
  CHECK(w.s.remote_rank == std::vector<std::int64_t>{0, 0, 1, 0});
}

// The golden counts that the queue order changed, explained: the order adds states only where
// two copies wait on one worker at once, one per order they can wait in. Dropping the ranks
// gives back exactly the states the protocol had with creation order fixed (560 for this
// fleet, pinned before the ranks), and each of those comes in 2^k orders, k the workers where
// both copies wait.
TEST_CASE("queue order: two jobs on two workers, 560 states in 593 orders",
          "[protocols][multikueue][queue-order]") {
  const MultiKueue mk(mk_fixtures::fleet(2, 2, 8, 16));
  std::map<std::uint64_t, std::set<std::vector<std::int64_t>>> orders;  // by the state less ranks
  std::map<std::uint64_t, int> waiting_together;                        // k, by the same key
  const auto all = reachable_states(mk);
  for (auto s : all) {
    const std::vector<std::int64_t> ranks = s.remote_rank;
    s.remote_rank.assign(s.remote_rank.size(), 0);
    const std::uint64_t key = mk.fingerprint(s);
    orders[key].insert(ranks);
    int k = 0;
    for (int w = 0; w < 2; ++w)
      k += s.remote[mk.jw(0, w)] == kmc::protocols::kRemotePending &&
           s.remote[mk.jw(1, w)] == kmc::protocols::kRemotePending;
    waiting_together[key] = k;
  }
  CHECK(all.size() == 593);
  CHECK(orders.size() == 560);
  for (const auto& [key, variants] : orders)
    CHECK(variants.size() == (1u << waiting_together[key]));
}
