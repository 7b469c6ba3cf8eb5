// A random walk of the engine's fleet. The walk owns only what the engine
// does not model: free physical capacity per worker and flavor, the external
// dispatcher's snapshot, and the environment's budgets, with the same rules
// for what the environment may do as the scenario states (autoscaler
// answer, provisioning class, timeout). Every system decision is the
// engine's: Fleet::step settles every cluster and controller at once.
#include "counterexamples/multikueue/engine_walk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <random>

#include "counterexamples/multikueue/engine_view.hpp"
#include "engine/multikueue.hpp"

namespace kmc::cx {

namespace {

using Free = std::vector<std::int64_t>;  // [w][slot][r], as MkParams::capacity0

struct Candidate {
  std::string name;
  std::function<void()> apply;
};

class Walk {
 public:
  Walk(const model::Scenario& sc, const protocols::MkParams& p)
      : p_(p),
        fleet_(make_fleet(sc, p)),
        view_(fleet_, p_),
        free_(p.capacity0),
        snapshot_(p.snapshot0),
        losses_(p.capacity_losses),
        refreshes_(p.snapshot_refreshes),
        disconnects_(p.worker_disconnects),
        staleness_(p.W(), 0) {}

  EngineLog run(std::uint64_t seed, int max_steps);

 private:
  int at(int w, int slot, int r) const { return (w * p_.slots_max + slot) * p_.R() + r; }
  int slot_of(int j, int w) const;  // the capacity slot of the flavor the worker's copy holds, -1
  bool fits(const Free& v, int j, int w, int slot) const;
  void book(int j, int w, int sign);
  void release_lost_bookings();
  std::vector<Candidate> candidates();
  void provisioning_candidates(int j, int w, std::vector<Candidate>& out);
  void dispatcher_candidates(int j, std::vector<Candidate>& out);
  void post(int j, int w, const std::string& condition);
  LogStep record(std::string event) const { return {std::move(event), cells()}; }
  model::Cells cells() const;

  const protocols::MkParams& p_;
  engine::Fleet fleet_;
  FleetView view_;
  Free free_, snapshot_;
  std::map<std::pair<int, int>, int> booked_;  // (job, worker) -> slot holding its nodes
  int losses_, refreshes_, disconnects_;
  std::vector<int> staleness_;  // per worker: capacity changes since the last refresh
};

int Walk::slot_of(int j, int w) const {
  const engine::WorkloadInfo* r = view_.remote(j, w);
  if (r == nullptr || r->usage.empty()) return -1;
  const engine::Engine& e = fleet_.workers.at(p_.workers[w]);
  const std::string& flavor = e.frs.at(r->usage.begin()->first).flavor;
  const auto& slots = p_.worker_flavors[w];
  auto it = std::find(slots.begin(), slots.end(), flavor);
  return it == slots.end() ? -1 : static_cast<int>(it - slots.begin());
}

bool Walk::fits(const Free& v, int j, int w, int slot) const {
  if (slot < 0) return false;
  for (int r = 0; r < p_.R(); ++r)
    if (p_.req(j, r) > 0 && v[at(w, slot, r)] < p_.req(j, r)) return false;
  return true;
}

void Walk::book(int j, int w, int sign) {
  const int slot = sign > 0 ? slot_of(j, w) : booked_.at({j, w});
  for (int r = 0; r < p_.R(); ++r) free_[at(w, slot, r)] -= sign * p_.req(j, r);
  if (sign > 0)
    booked_[{j, w}] = slot;
  else
    booked_.erase({j, w});
}

// Nodes booked for a copy go back to the pool when the copy is deleted or
// stops (finished, evicted): the model's delete_remote and JobFinished.
void Walk::release_lost_bookings() {
  for (auto it = booked_.begin(); it != booked_.end();) {
    const auto [j, w] = it->first;
    const engine::WorkloadInfo* r = view_.remote(j, w);
    ++it;
    if (r == nullptr || r->is_finished() || !r->has_quota_reservation()) book(j, w, -1);
  }
}

void Walk::post(int j, int w, const std::string& condition) {
  engine::Engine& e = fleet_.worker(p_.workers[w]);
  e.post(fleet_.now(), engine::ev::ProvisioningRequestCondition{
                           p_.jobs[j], view_.provisioning_check(j, w), condition});
}

void Walk::provisioning_candidates(int j, int w, std::vector<Candidate>& out) {
  const engine::WorkloadInfo* r = view_.remote(j, w);
  if (r == nullptr || !r->has_quota_reservation() || r->is_admitted() ||
      view_.provisioning_check(j, w).empty())
    return;
  const model::CellValue prov = view_.value(j, w, "prov");
  const bool accepted =
      prov == model::CellValue{protocols::MultiKueue::cell_enum("prov", protocols::kProvAccepted)};
  const bool requested =
      prov == model::CellValue{protocols::MultiKueue::cell_enum("prov", protocols::kProvRequested)};
  if (!accepted && !requested) return;
  const int cq = p_.worker_cq[w][j];
  const bool check_capacity =
      p_.cqs[cq].provisioning_class == protocols::ProvisioningClass::CheckCapacity;
  const bool asked = check_capacity ? requested : accepted;
  const bool room = fits(free_, j, w, slot_of(j, w));
  const auto answer = p_.answer[w];
  const std::string args = fmt::format("({}, {})", p_.jobs[j], p_.workers[w]);
  if (!check_capacity && requested)
    out.push_back({"ProvisioningAccepted" + args, [=, this] { post(j, w, "Accepted"); }});
  const bool hangs = !check_capacity && answer == model::AutoscalerAnswer::AcceptsThenHangs;
  const bool timeout_first = !check_capacity && p_.provisioning_timeout &&
                             p_.timeout_vs_boot == protocols::MkParams::TimeoutVsBoot::TimeoutFirst;
  if (asked && room && !hangs && !timeout_first)
    out.push_back({"ProvisioningProvisioned" + args, [=, this] {
                     book(j, w, +1);
                     post(j, w, "Provisioned");
                   }});
  const bool may_fail = check_capacity ? !room && !p_.cqs[cq].retries_later
                                       : answer == model::AutoscalerAnswer::Any ||
                                             (answer == model::AutoscalerAnswer::Fails && !room);
  if (asked && may_fail)
    out.push_back({"ProvisioningFailed" + args, [=, this] { post(j, w, "Failed"); }});
  const bool boot_first = p_.timeout_vs_boot == protocols::MkParams::TimeoutVsBoot::BootFirst;
  if (p_.provisioning_timeout && (!boot_first || !room))
    out.push_back({"ProvisioningTimeout" + args, [=, this] { post(j, w, "Failed"); }});
}

// kmc's capacity-snapshot dispatcher, an External dispatcher outside Kueue.
void Walk::dispatcher_candidates(int j, std::vector<Candidate>& out) {
  engine::WorkloadInfo* l = fleet_.manager.find(p_.jobs[j]);
  if (l == nullptr || !l->has_quota_reservation() || !l->obj.cluster_name.empty() ||
      l->is_evicted())
    return;
  auto& nominated = l->obj.nominated_cluster_names;
  bool rejected = false;
  for (int w = 0; w < p_.W(); ++w)
    if (const auto* r = view_.remote(j, w); r != nullptr && !r->obj.active) rejected = true;
  if (rejected) {
    out.push_back({fmt::format("Renominate({})", p_.jobs[j]),
                   [=, this, &nominated] { view_.drop_rejected(nominated, j); }});
  }
  if (p_.pin && !nominated.empty()) return;
  for (int w : p_.dispatch_order) {
    const bool on_view = [&] {
      const int cq = p_.worker_cq[w][j];
      if (cq < 0) return false;
      for (int slot : p_.cqs[cq].flavor_slot)
        if (fits(snapshot_, j, w, slot)) return true;
      return false;
    }();
    if (std::find(nominated.begin(), nominated.end(), p_.workers[w]) != nominated.end()) continue;
    const bool fresh = p_.max_staleness < 0 || staleness_[w] <= p_.max_staleness;
    if (on_view && fresh)
      out.push_back({fmt::format("NominateWorker({}, {})", p_.jobs[j], p_.workers[w]),
                     [=, this, &nominated] { nominated.push_back(p_.workers[w]); }});
    if (on_view && p_.pin) break;  // pinning: only the first worker the view shows room on
  }
}

std::vector<Candidate> Walk::candidates() {
  std::vector<Candidate> out;
  const bool snapshot_dispatch = p_.dispatcher == protocols::Dispatcher::CapacitySnapshot;
  for (int j = 0; j < p_.J(); ++j) {
    if (snapshot_dispatch) dispatcher_candidates(j, out);
    for (int w = 0; w < p_.W(); ++w) {
      provisioning_candidates(j, w, out);
      // Behind a partition a copy the manager gave up on runs on, and may finish.
      if (view_.running(j, w) &&
          (p_.connection_faults() || view_.local(j)->obj.cluster_name == p_.workers[w]))
        out.push_back(
            {fmt::format("JobFinished({}, {})", p_.jobs[j], p_.workers[w]), [=, this] {
               fleet_.worker(p_.workers[w]).post(fleet_.now(), engine::ev::JobFinished{p_.jobs[j]});
             }});
    }
  }
  for (int w = 0; w < p_.W() && snapshot_dispatch; ++w) {
    const int n = p_.slots_max * p_.R();
    const bool differs =
        staleness_[w] > 0 ||
        !std::equal(free_.begin() + w * n, free_.begin() + (w + 1) * n, snapshot_.begin() + w * n);
    if (differs && refreshes_ != 0)
      out.push_back({"RefreshSnapshot(" + p_.workers[w] + ")", [=, this] {
                       std::copy(free_.begin() + w * n, free_.begin() + (w + 1) * n,
                                 snapshot_.begin() + w * n);
                       staleness_[w] = 0;
                       if (refreshes_ > 0) --refreshes_;
                     }});
  }
  for (int w = 0; w < p_.W() && p_.connection_faults(); ++w) {
    const std::string& name = p_.workers[w];
    if (!fleet_.connected(name) || disconnects_ != 0)
      out.push_back({fmt::format("Worker{}({})",
                                 fleet_.connected(name) ? "Disconnected" : "Reconnected", name),
                     [=, this] {
                       const bool up = !fleet_.connected(name);
                       if (!up && disconnects_ > 0) --disconnects_;
                       fleet_.apply_connection({name, up});
                     }});
  }
  for (int w = 0; w < p_.W(); ++w)
    for (int slot = 0; slot < static_cast<int>(p_.worker_flavors[w].size()) && losses_ != 0;
         ++slot) {
      bool some = false;
      for (int r = 0; r < p_.R(); ++r) some = some || free_[at(w, slot, r)] > 0;
      if (some)
        out.push_back(
            {fmt::format("CapacityLost({}, {})", p_.workers[w], p_.worker_flavors[w][slot]),
             [=, this] {
               for (int r = 0; r < p_.R(); ++r) free_[at(w, slot, r)] = 0;
               if (losses_ > 0) --losses_;
               if (p_.dispatcher == protocols::Dispatcher::CapacitySnapshot) ++staleness_[w];
             }});
    }
  return out;
}

model::Cells Walk::cells() const {
  model::Cells out;
  for (int j = 0; j < p_.J(); ++j)
    for (int w = -1; w < p_.W(); ++w)
      for (auto& c : view_.cells(j, w)) out.add(std::move(c));
  return out;
}

EngineLog Walk::run(std::uint64_t seed, int max_steps) {
  EngineLog log;
  log.seed = seed;
  std::mt19937_64 rng(seed);
  log.steps.push_back(record("init"));
  fleet_.step(fleet_.now());  // settle at the first instant
  release_lost_bookings();
  log.steps.push_back(record("settle"));
  for (int step = 0; step < max_steps; ++step) {
    auto options = candidates();
    if (options.empty()) {
      if (!fleet_.step()) break;  // nothing due either: the walk is over
      fleet_.step(fleet_.now());
      release_lost_bookings();
      log.steps.push_back(record("time passes"));
      continue;
    }
    const auto& pick =
        options[std::uniform_int_distribution<std::size_t>(0, options.size() - 1)(rng)];
    pick.apply();
    fleet_.step(fleet_.now());
    release_lost_bookings();
    log.steps.push_back(record(pick.name));
  }
  return log;
}

}  // namespace

EngineLog random_walk(const model::Scenario& sc, const protocols::MkParams& p, std::uint64_t seed,
                      int max_steps) {
  EngineLog log = Walk(sc, p).run(seed, max_steps);
  log.scenario = sc.dir;
  return log;
}

}  // namespace kmc::cx
