// The SPIN peer as a kmc protocol: exactly the transition system of
// bench/peers/spin/model.pml (SEMANTICS.md §1, PROCS=0, TERM=1), so that kmc
// and SPIN explore the same state graph and can be timed on it. It is a
// MultiKueue-style dispatch abstraction written for that comparison, not a
// model of a Kueue release: a manager reserves quota for J gang jobs of G
// GPUs, pins each to a worker from a possibly stale capacity snapshot (or
// dispatches to all workers and elects one), workers reserve their own quota
// and run a ProvisioningRequest, and spot reclaims take free GPUs. It is
// checked at the bench's WnJm configs, W2J2 (1,581 states) to W4J4 (12.9M).
//
// State: SEMANTICS.md §1.2's variables only. The derived counters (wq, used,
// free, mq, nres, nfin, nrecl) are recomputed in the guards from them: they
// are functions of the state, so storing them would not change a count.
// snap[w] is the snapshot's free GPUs itself (refmodel.py's encoding), not
// model.pml's S_w - snap; the two are in bijection.
#pragma once

#include <boost/hana.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/fingerprint.hpp"
#include "model/spec.hpp"
#include "model/symmetry.hpp"
#include "model/value.hpp"
#include "spin_peer/peer_params.hpp"

namespace spin_peer {

enum Manager : std::int64_t { kQueued, kReserved, kDispatched, kFinished };
enum Copy : std::int64_t { kNone, kPending, kQres, kAccepted, kProvisioned, kRunning, kFailed };
enum Axis : int { kJob, kWorker };
// SEMANTICS.md §1.3's rows T1..T14, in order: Kind k is row T(k+1).
enum Kind : std::int16_t {
  kReserve,
  kDispatchAll,
  kPin,
  kWorkerReserve,
  kElect,
  kDeleteLoser,
  kPrStep,
  kProvision,
  kPrTimeout,
  kStart,
  kFinish,
  kRequeue,
  kRefresh,
  kReclaim,
};

template <class V>
struct State {
  BOOST_HANA_DEFINE_STRUCT(State, (std::vector<V>, ms),  // [job] Manager
                           (std::vector<V>, win),        // [job] 0 none, else w+1
                           (std::vector<V>, rw),         // [job][worker] Copy
                           (std::vector<V>, lost),       // [worker] spot reclaims suffered
                           (std::vector<V>, snap)        // [worker] the manager's snapshot of free
  );
  bool operator==(const State&) const = default;
};

struct Action {
  Kind kind;
  std::int16_t job = -1, worker = -1;
  int id = -1;
};

// Guards and updates once over V (docs/adding-a-protocol.md §4): ite() for
// choices on values, `if` and `switch` only on parameters and action fields.
template <class V>
class Rules {
 public:
  using B = decltype(std::declval<V>() == std::declval<V>());
  Rules(const Params& p, kmc::model::Values<V> values)
      : p_(p), val_(values), lost_max_(p.lost_max()) {}

  B enabled(const State<V>& s, const Action& a) const {
    const int j = a.job, w = a.worker;
    switch (a.kind) {
      case kReserve: {
        B ok = s.ms[j] == kQueued && mq(s) + p_.G <= p_.MQ;
        if (p_.FIFO) ok = ok && nres(s) == j;
        return ok;
      }
      case kDispatchAll:
        return s.ms[j] == kReserved;
      case kPin:  // the snapshot, not the actual capacity, nor the worker's quota
        return s.ms[j] == kReserved && s.snap[w] >= p_.G;
      case kWorkerReserve:
        if (p_.broken_worker_quota) return rw(s, j, w) == kPending;
        return rw(s, j, w) == kPending && wq(s, w) + p_.G <= p_.Q[w];
      case kElect:
        return s.win[j] == 0 && rw(s, j, w) >= kQres && rw(s, j, w) <= kRunning;
      case kDeleteLoser:
        return s.win[j] != 0 && s.win[j] != w + 1 && rw(s, j, w) != kNone;
      case kPrStep:
        if (!p_.GATE) return rw(s, j, w) == kQres;
        return rw(s, j, w) == kQres && s.win[j] == w + 1;
      case kProvision:
        return rw(s, j, w) == kAccepted && free(s, w) >= p_.G;
      case kPrTimeout:
        if (p_.PRTIMEOUT == 2) return rw(s, j, w) == kAccepted && free(s, w) < p_.G;
        return rw(s, j, w) == kAccepted;
      case kStart:
        return rw(s, j, w) == kProvisioned;
      case kFinish:
        return rw(s, j, w) == kRunning;
      case kRequeue:
        return rw(s, j, w) == kFailed;
      case kRefresh:
        return s.snap[w] != free(s, w);
      case kReclaim:
        return nrecl(s) < p_.RECL && free(s, w) >= p_.G;
    }
    return val_.truth(false);
  }

  // By value, for the symbolic search (checker/symbolic_reach.hpp), which applies every candidate.
  State<V> apply(State<V> s, const Action& a) const {
    apply_in_place(s, a);
    return s;
  }
  void apply_in_place(State<V>& s, const Action& a) const {
    using kmc::model::ite;
    const int j = a.job, w = a.worker;
    switch (a.kind) {
      case kReserve:
        s.ms[j] = kReserved;
        break;
      case kDispatchAll:
        for (int x = 0; x < p_.W; ++x) rw(s, j, x) = kPending;
        s.ms[j] = kDispatched;
        break;
      case kPin:
        s.ms[j] = kDispatched;
        s.win[j] = val_.lit(w + 1);
        rw(s, j, w) = kPending;
        break;
      case kWorkerReserve:
        rw(s, j, w) = kQres;
        break;
      case kElect:
        s.win[j] = val_.lit(w + 1);
        break;
      case kDeleteLoser:
        rw(s, j, w) = kNone;
        break;
      case kPrStep:
        // Check-capacity decides at once, on the capacity before this step.
        if (p_.PRC == 0)
          rw(s, j, w) = kAccepted;
        else
          rw(s, j, w) = ite(free(s, w) >= p_.G, val_.lit(kProvisioned), val_.lit(kFailed));
        break;
      case kProvision:
        rw(s, j, w) = kProvisioned;
        break;
      case kPrTimeout:
        rw(s, j, w) = kFailed;
        break;
      case kStart:
        rw(s, j, w) = kRunning;
        break;
      case kFinish:
      case kRequeue:  // requeue keeps the manager's quota: the job may be dispatched again
        for (int x = 0; x < p_.W; ++x) rw(s, j, x) = kNone;
        s.ms[j] = a.kind == kFinish ? kFinished : kReserved;
        s.win[j] = val_.lit(0);
        break;
      case kRefresh:
        s.snap[w] = free(s, w);
        break;
      case kReclaim:
        s.lost[w] = s.lost[w] + 1;
        break;
    }
  }

  // The derived counters of SEMANTICS.md §1.2, from the state's fields.
  V wq(const State<V>& s, int w) const {  // worker quota in use
    V n = val_.lit(0);
    for (int j = 0; j < p_.J; ++j) n = n + gpus_if(rw(s, j, w) >= kQres && rw(s, j, w) <= kRunning);
    return n;
  }
  V used(const State<V>& s, int w) const {  // GPUs consumed
    V n = val_.lit(0);
    for (int j = 0; j < p_.J; ++j)
      n = n + gpus_if(rw(s, j, w) == kProvisioned || rw(s, j, w) == kRunning);
    return n;
  }
  V free(const State<V>& s, int w) const {  // physical free capacity, never negative
    // G * lost[w] as a sum of ite()s: a symbolic Int has no product with a constant.
    V taken = val_.lit(0);
    for (std::int64_t k = 1; k <= lost_max_; ++k) taken = taken + gpus_if(s.lost[w] >= k);
    return val_.lit(p_.C[w]) - used(s, w) - taken;
  }
  V mq(const State<V>& s) const {  // manager quota in use
    V n = val_.lit(0);
    for (int j = 0; j < p_.J; ++j) n = n + gpus_if(s.ms[j] == kReserved || s.ms[j] == kDispatched);
    return n;
  }
  V nres(const State<V>& s) const { return count_ms(s, kQueued, false); }
  V nfin(const State<V>& s) const { return count_ms(s, kFinished, true); }
  V nrecl(const State<V>& s) const {
    V n = val_.lit(0);
    for (int w = 0; w < p_.W; ++w) n = n + s.lost[w];
    return n;
  }

 private:
  // G GPUs where c holds, else none: the unit every counter counts in.
  V gpus_if(const B& c) const {
    using kmc::model::ite;
    return ite(c, val_.lit(p_.G), val_.lit(0));
  }
  const V& rw(const State<V>& s, int j, int w) const { return s.rw[j * p_.W + w]; }
  V& rw(State<V>& s, int j, int w) const { return s.rw[j * p_.W + w]; }
  // Jobs whose manager state is (equal) or is not (!equal) `m`.
  V count_ms(const State<V>& s, Manager m, bool equal) const {
    using kmc::model::ite;
    V n = val_.lit(0);
    for (int j = 0; j < p_.J; ++j)
      n = n + ite(equal ? s.ms[j] == m : s.ms[j] != m, val_.lit(1), val_.lit(0));
    return n;
  }

  const Params& p_;
  kmc::model::Values<V> val_;
  std::int64_t lost_max_;  // once per Rules, not per guard: free() is on the hot path
};

struct Spec {
  using Params = spin_peer::Params;
  template <class V>
  using State = spin_peer::State<V>;
  using Action = spin_peer::Action;
  template <class V>
  using Rules = spin_peer::Rules<V>;

  static constexpr const char* name = "spin-peer";

  // The peer is not compiled from Kueue objects: its instances are config names (peer_params.hpp).
  static Params compile(const kmc::model::Scenario&) {
    throw std::invalid_argument("spin-peer: instances come from config names, not scenarios");
  }
  static kmc::model::Layout layout(const Params& p) {
    using kmc::model::FieldKind;
    kmc::model::Layout l;
    std::vector<std::string> jobs, workers;
    for (int j = 0; j < p.J; ++j) jobs.push_back("j" + std::to_string(j));
    for (int w = 0; w < p.W; ++w) workers.push_back("w" + std::to_string(w));
    l.axes = {{"job", jobs, -1, {}, 0}, {"worker", workers, -1, {}, 0}};
    auto field = [](const char* name, std::vector<int> axes, FieldKind kind, std::int64_t lo,
                    std::int64_t hi) {
      kmc::model::Field f;
      f.name = name, f.axes = std::move(axes), f.kind = kind, f.lo = lo, f.hi = hi;
      return f;
    };
    auto ms = field("ms", {kJob}, FieldKind::Enum, kQueued, kFinished);
    ms.names = {"QUEUED", "RESERVED", "DISPATCHED", "FINISHED"};
    auto rw = field("rw", {kJob, kWorker}, FieldKind::Enum, kNone, kFailed);
    rw.names = {"NONE", "PENDING", "QRES", "ACCEPTED", "PROVISIONED", "RUNNING", "FAILED"};
    // win is w+1 with 0 for none (model.pml's encoding), so an Int, not an Index (-1 for none).
    l.fields = {ms, field("win", {kJob}, FieldKind::Int, 0, p.W), rw,
                field("lost", {kWorker}, FieldKind::Int, 0, p.lost_max()),
                field("snap", {kWorker}, FieldKind::Int, 0, p.snap_max())};
    l.families = {
        {"manager", 1}, {"worker", 1}, {"provisioning", 1}, {"workload", 1}, {"environment", 0}};
    const kmc::model::ActionKind::Arg job{"job", kJob}, on{"worker", kWorker};
    l.actions = {{"reserve", {job}, 0, "manager"},
                 {"dispatchAll", {job}, 0, "manager"},
                 {"pin", {job, on}, 0, "manager"},
                 {"workerReserve", {job, on}, 1, "worker"},
                 {"elect", {job, on}, 0, "manager"},
                 {"deleteLoser", {job, on}, 0, "manager"},
                 {"prStep", {job, on}, 2, "provisioning"},
                 {"provision", {job, on}, 2, "provisioning"},
                 {"prTimeout", {job, on}, 2, "provisioning"},
                 {"start", {job, on}, 3, "workload"},
                 {"finish", {job, on}, 3, "workload"},
                 {"requeue", {job, on}, 0, "manager"},
                 {"refresh", {on}, 0, "manager"},
                 {"reclaim", {on}, 4, "environment"}};
    return l;
  }
  // model.pml's source order (SEMANTICS.md §1.3, last note); rows absent in this mode are left out.
  static std::vector<Action> candidates(const Params& p) {
    std::vector<Action> out;
    auto add = [&](Kind k, int j, int w) {
      out.push_back(Action{k, static_cast<std::int16_t>(j), static_cast<std::int16_t>(w),
                           static_cast<int>(out.size())});
    };
    const bool pin = p.MODE == 0, bea = p.PRC == 0;
    for (int j = 0; j < p.J; ++j) {
      add(kReserve, j, -1);
      if (!pin) add(kDispatchAll, j, -1);
      for (int w = 0; w < p.W; ++w) {
        if (pin) add(kPin, j, w);
        add(kWorkerReserve, j, w);
        if (!pin) add(kElect, j, w), add(kDeleteLoser, j, w);
        add(kPrStep, j, w);
        if (bea) add(kProvision, j, w);
        if (bea && p.PRTIMEOUT >= 1) add(kPrTimeout, j, w);
        add(kStart, j, w), add(kFinish, j, w), add(kRequeue, j, w);
      }
    }
    for (int w = 0; w < p.W; ++w) {
      add(kRefresh, -1, w);
      if (p.RECL > 0) add(kReclaim, -1, w);
    }
    return out;
  }
  static State<std::int64_t> initial(const Params& p) {
    State<std::int64_t> s;
    s.ms.assign(p.J, kQueued);
    s.win.assign(p.J, 0);
    s.rw.assign(static_cast<std::size_t>(p.J) * p.W, kNone);
    s.lost.assign(p.W, 0);
    s.snap.assign(p.S.begin(), p.S.end());
    return s;
  }
  // Symmetry reduction (model/symmetry.hpp): every job is a gang of G GPUs
  // with the same rules, so jobs are interchangeable, unless FIFO reserves
  // quota in job-index order. Workers are not reduced: win stores a job's
  // worker as w+1 (model.pml's encoding), an Int no permutation renames.
  static kmc::model::Symmetry symmetry(const Params& p) {
    kmc::model::Symmetry s;
    if (p.FIFO) {
      s.notes.push_back("no symmetry over jobs: FIFO=1 reserves quota in job-index order");
    } else {
      kmc::model::SymmetricClass jobs{kJob, {}, {}};
      for (int j = 0; j < p.J; ++j) jobs.entities.push_back(j);
      s.classes.push_back(std::move(jobs));
    }
    s.notes.push_back("no symmetry over workers: win stores a worker as w+1, not as an index");
    return s;
  }
  static kmc::model::ActionRef ref(const Params&, const Action& a) {
    if (a.kind <= kDispatchAll) return {a.kind, {a.job}};
    if (a.kind >= kRefresh) return {a.kind, {a.worker}};
    return {a.kind, {a.job, a.worker}};
  }
  static std::uint64_t identity(const Params& p) {
    kmc::model::Hasher h;
    for (std::int64_t v : {p.J, p.W, p.G, p.RECL, p.MODE, p.PRC, p.PRTIMEOUT, p.GATE, p.FIFO})
      h.word(static_cast<std::uint64_t>(v));
    h.word(static_cast<std::uint64_t>(p.MQ));
    kmc::model::hash_append(h, p.Q);
    kmc::model::hash_append(h, p.C);
    kmc::model::hash_append(h, p.S);
    h.word(p.broken_worker_quota);
    return kmc::model::mix64(h.h);
  }
};

}  // namespace spin_peer
