// An ITF counterexample as a sequence diagram (render.hpp): the trace is
// read and checked, turned into lanes and lines, then printed as Mermaid or
// as a numbered list for a terminal. The mapping from actions to arrows
// follows protocols/multikueue_rules_actions.hpp, but only through the
// trace's typed cells, which carry the names of jobs, workers, ClusterQueues
// and flavors: render stays usable on a trace whose scenario is gone.
#include "counterexamples/multikueue/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "counterexamples/diagram.hpp"
#include "counterexamples/itf_picks.hpp"
#include "counterexamples/multikueue/itf_read.hpp"
#include "counterexamples/token.hpp"
#include "model/diagnostics.hpp"
#include "model/quantity.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

namespace {

// ---------------------------------------------------------------- the trace

struct ItfDoc {
  const ItfDocument* read_from = nullptr;  // for the lines errors name
  std::string file;
  std::vector<ItfRawStep> steps;
  std::optional<std::size_t> loop;
  std::string property, detail, source, replay;
};

// The fields a diagram draws from, and only those: a trace needs no more to
// render. The snapshot is there only with a capacity-snapshot dispatcher.
const std::vector<model::FieldSchema>& render_fields() {
  static const std::vector<model::FieldSchema> fields = [] {
    std::vector<model::FieldSchema> out;
    for (const auto& f : protocols::MultiKueue::cell_fields())
      for (const char* used :
           {"phase", "cluster", "nominated", "remote", "prov", "usage", "capacity", "snapshot"})
        if (f.field == used) out.push_back(f);
    return out;
  }();
  return fields;
}

void read_meta(const ItfDocument& d, ItfDoc& t) {
  if (!d.doc.contains("#meta")) return;
  const auto& meta = d.doc["#meta"];
  if (!meta.is_object()) itf_error(d, "#meta", "expected an object");
  auto get = [&](const char* key, std::string& out) {
    if (!meta.contains(key)) return;
    if (!meta[key].is_string()) itf_error(d, fmt::format("#meta.{}", key), "expected a string");
    out = meta[key].get<std::string>();
  };
  get("property", t.property);
  get("detail", t.detail);
  get("source", t.source);
  get("replay", t.replay);
  std::string why;
  if (!t.replay.empty() && !parse_token(t.replay, why)) itf_error(d, "#meta.replay", why);
}

ItfDoc read_trace(const ItfDocument& d) {
  const nlohmann::json& doc = d.doc;
  if (!doc.is_object() || !doc.contains("states"))
    itf_error(d, "states", "not an ITF trace: expected a JSON object with a \"states\" array");
  const auto& states = doc["states"];
  if (!states.is_array() || states.empty())
    itf_error(d, "states", "expected a non-empty array of states");
  ItfDoc t;
  t.read_from = &d;
  t.file = d.file;
  // The one ITF reader (itf_read.hpp): actions, picks and typed cells, no scenario needed.
  for (std::size_t i = 0; i < states.size(); ++i)
    t.steps.push_back(read_raw_step(d, i, render_fields()));
  // Every pick checked before a line is drawn from it: against the action
  // table, and the entities the trace's cells name (its scenario may be gone).
  const model::Layout layout = labelled_by_cells(protocols::MkSpec::layout(protocols::MkParams{}),
                                                 t.steps.front().cells.all());
  for (std::size_t i = 1; i < t.steps.size(); ++i) check_picks(d, i, t.steps[i], layout);
  if (doc.contains("loop")) {
    const auto& l = doc["loop"];
    if (!l.is_number_unsigned() || l.get<std::size_t>() >= t.steps.size())
      itf_error(d, "loop",
                fmt::format("expected the index of a state, 0 to {}", t.steps.size() - 1));
    t.loop = l.get<std::size_t>();
  }
  read_meta(d, t);
  return t;
}

[[noreturn]] void bad(const ItfDoc& t, const std::string& field, const std::string& message) {
  itf_error(*t.read_from, field, message);
}

// A cell's value as text ("" when the trace has no such cell); integers in
// the resource's own notation when `resource` names one ("768Gi", "500m").
std::string value(const model::Cells& c, const std::string& field,
                  const std::vector<std::string>& entity) {
  const model::CellValue* v = c.find(field, entity);
  if (v == nullptr) return "";
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return std::to_string(std::get<std::int64_t>(*v));
}

// Kueue's integers back to Kubernetes quantities, as describe() prints them.
std::string quantity(const std::string& resource, std::int64_t v) {
  const auto q = resource == "cpu" ? model::Quantity{v} : model::Quantity::from_units(v);
  return q.to_string();
}

std::string quantity_of(const model::Cell& c) {
  return quantity(c.entity.back(), std::get<std::int64_t>(c.value));
}

// ------------------------------------------------------- lanes and lines

// Who is in the trace: jobs from the phase cells, workers from the remote
// cells, in the order the trace lists them (the scenario's order).
struct Fleet {
  std::vector<std::string> jobs, workers;
  bool snapshot = false;  // a CapacitySnapshot dispatcher: the manager keeps a view of capacity
};

Fleet fleet_of(const ItfDoc& t) {
  Fleet f;
  auto add = [](std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const auto& c : t.steps.front().cells.all()) {
    if (c.field == "phase") add(f.jobs, c.entity[0]);
    if (c.field == "remote") add(f.workers, c.entity[1]);
    if (c.field == "snapshot") f.snapshot = true;
  }
  for (const auto& s : t.steps)
    if (s.action == "NominateWorker" || s.action == "RefreshSnapshot") f.snapshot = true;
  if (f.workers.empty())
    bad(t, "states[0].remote", "no worker: expected remote cells keyed by (job, worker)");
  return f;
}

std::vector<Lane> lanes_of(const Fleet& f) {
  // The snapshot sits between the manager and the workers: the manager
  // reads it, the workers' refreshes write it. Each autoscaler sits next to
  // the worker whose ProvisioningRequests it answers.
  std::vector<Lane> lanes{{"user", "user"}, {"manager", "manager"}};
  if (f.snapshot) lanes.push_back({"snapshot", "capacity snapshot"});
  for (std::size_t w = 0; w < f.workers.size(); ++w) {
    lanes.push_back({fmt::format("w{}", w + 1), "worker " + f.workers[w]});
    lanes.push_back({fmt::format("a{}", w + 1), "autoscaler " + f.workers[w]});
  }
  return lanes;
}

// One step of the trace, with what its line needs to know.
struct StepView {
  const ItfDoc& t;
  const Fleet& fleet;
  std::size_t i;

  const model::Cells& before() const { return t.steps[i - 1].cells; }
  const model::Cells& after() const { return t.steps[i].cells; }
  std::string pick(const std::string& key) const {
    auto it = t.steps[i].picks.find(key);
    if (it == t.steps[i].picks.end())
      bad(t, fmt::format("states[{}].mbt::nondetPicks.{}", i, key),
          fmt::format("missing: {} names a {}", t.steps[i].action, key));
    return it->second;
  }
  std::string job() const { return pick("job"); }
  std::string worker() const { return pick("cluster"); }
  // The lanes of the picked worker and of its autoscaler.
  std::string worker_lane() const { return fmt::format("w{}", worker_index() + 1); }
  std::string autoscaler_lane() const { return fmt::format("a{}", worker_index() + 1); }
  std::size_t worker_index() const {
    const std::string w = worker();
    auto it = std::find(fleet.workers.begin(), fleet.workers.end(), w);
    if (it == fleet.workers.end())
      bad(t, fmt::format("states[{}].mbt::nondetPicks.cluster", i),
          fmt::format("names {}, which no remote cell of the trace mentions", w));
    return static_cast<std::size_t>(it - fleet.workers.begin());
  }
};

// The remote Workload's phase on a worker ("None": no copy).
std::string remote_phase(const model::Cells& c, const std::string& job, const std::string& worker) {
  return value(c, "remote", {job, worker});
}

bool is_nominated(const model::Cells& c, const std::string& job, const std::string& worker) {
  const model::CellValue* v = c.find("nominated", {job, worker});
  return v != nullptr && *v != model::CellValue{std::int64_t{0}};
}

bool changed(const StepView& s, const model::Cell& after) {
  const model::CellValue* before = s.before().find(after.field, after.entity);
  return before == nullptr || *before != after.value;
}

// Where quota moved on a cluster: "gpu-cq (h100)", from the usage cells
// (ClusterQueue "CLUSTER/CQ", flavor, resource) that changed in this step.
std::string quota_moved(const StepView& s, const std::string& cluster) {
  const std::string prefix = cluster + "/";
  std::vector<std::string> where;
  for (const auto& c : s.after().all()) {
    if (c.field != "usage" || c.entity[0].rfind(prefix, 0) != 0 || !changed(s, c)) continue;
    const std::string item = fmt::format("{} ({})", c.entity[0].substr(prefix.size()), c.entity[1]);
    if (std::find(where.begin(), where.end(), item) == where.end()) where.push_back(item);
  }
  return where.empty() ? "" : fmt::format(" on {}", fmt::join(where, ", "));
}

// The cells of `field` for worker w (and flavor, if given) that changed in
// this step: "FLAVOR RESOURCE OLD to NEW", or "RESOURCE OLD to NEW".
std::string changes(const StepView& s, const std::string& field, const std::string& worker,
                    const std::string& flavor = "") {
  std::vector<std::string> out;
  for (const auto& c : s.after().all()) {
    if (c.field != field || c.entity[0] != worker || (!flavor.empty() && c.entity[1] != flavor) ||
        !changed(s, c))
      continue;
    const model::CellValue* old = s.before().find(c.field, c.entity);
    const std::string was =
        old == nullptr ? "" : quantity(c.entity[2], std::get<std::int64_t>(*old));
    const std::string what = flavor.empty() ? c.entity[1] + " " + c.entity[2] : c.entity[2];
    out.push_back(fmt::format("{} {} to {}", what, was, quantity_of(c)));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// Where the manager's view of a worker differs from its free capacity.
std::string stale_view(const model::Cells& cells, const std::string& worker) {
  std::vector<std::string> out;
  for (const auto& c : cells.all()) {
    if (c.field != "snapshot" || c.entity[0] != worker) continue;
    const model::CellValue* free = cells.find("capacity", c.entity);
    if (free != nullptr && *free != c.value)
      out.push_back(fmt::format("{} {} {} is {} in the view, {} free", worker, c.entity[1],
                                c.entity[2], quantity_of(c),
                                quantity(c.entity[2], std::get<std::int64_t>(*free))));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// ------------------------------------------------- actions become lines

// What became of the other copies when a worker was selected: Kueue deletes
// them; a broken variant keeps them, and the trace shows which.
std::string losers(const StepView& s) {
  const std::string j = s.job(), w = s.worker();
  std::vector<std::string> deleted, kept;
  for (const auto& o : s.fleet.workers) {
    if (o == w || remote_phase(s.before(), j, o) == "None") continue;
    (remote_phase(s.after(), j, o) == "None" ? deleted : kept).push_back(o);
  }
  std::string out;
  if (!deleted.empty()) out += fmt::format(", deletes the copies on {}", fmt::join(deleted, ", "));
  if (!kept.empty()) out += fmt::format(", keeps the copies on {}", fmt::join(kept, ", "));
  return out;
}

void draw_dispatch(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string j = s.job();
  auto newly_nominated = [&] {
    std::vector<std::string> ws;
    for (const auto& w : s.fleet.workers)
      if (is_nominated(s.after(), j, w) && !is_nominated(s.before(), j, w)) ws.push_back(w);
    return fmt::format("{}", fmt::join(ws, ", "));
  };
  if (kind == "ReserveQuota") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("reserve quota for {}{}", j, quota_moved(s, "manager"))});
  } else if (kind == "Nominate") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("dispatcher nominates {} for {}", newly_nominated(), j)});
  } else if (kind == "NominateNextRound") {
    out.push_back({s.i, "manager", "manager",
                   fmt::format("next dispatch round nominates {} for {}", newly_nominated(), j)});
  } else if (kind == "NominateWorker") {
    const std::string w = s.worker();
    s.worker_index();  // the pick must name a lane
    out.push_back({s.i, "snapshot", "manager",
                   fmt::format("view shows room on {}: nominate it for {}", w, j)});
    const std::string stale = stale_view(s.before(), w);
    if (!stale.empty()) out.push_back({s.i, "snapshot", "", "stale: " + stale});
  } else if (kind == "Renominate") {
    std::vector<std::string> dropped;
    for (const auto& w : s.fleet.workers)
      if (is_nominated(s.before(), j, w) && !is_nominated(s.after(), j, w)) dropped.push_back(w);
    out.push_back({s.i, "manager", "manager",
                   fmt::format("drop the rejected copies of {} ({}) and nominate again", j,
                               fmt::join(dropped, ", "))});
  } else if (kind == "CreateRemoteWorkload") {
    out.push_back({s.i, "manager", s.worker_lane(), fmt::format("create remote Workload {}", j)});
  } else if (kind == "RecreateRemoteWorkload") {
    out.push_back({s.i, "manager", s.worker_lane(),
                   fmt::format("copy of {} deactivated there, out of sync: delete it, create it "
                               "again (a new ProvisioningRequest)",
                               j)});
  } else if (kind == "SelectWorker") {
    const std::string w = s.worker();
    out.push_back({s.i, s.worker_lane(), "manager",
                   fmt::format("copy of {} is {}: MultiKueue selects {}{}", j,
                               remote_phase(s.before(), j, w), w, losers(s))});
  } else {  // RetryDispatch
    out.push_back(
        {s.i, "manager", "manager",
         fmt::format(
             "copy of {} on {} is gone: MultiKueue check Retry, evict, release quota, requeue", j,
             s.worker())});
  }
}

// After a failed or timed-out ProvisioningRequest: retried, or rejected
// once the check's backoff limit is reached.
std::string after_failure(const StepView& s) {
  return remote_phase(s.after(), s.job(), s.worker()) == "Rejected"
             ? "check Rejected (backoff limit reached)"
             : "quota released, check Retry, requeued";
}

void draw_worker(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string j = s.job(), w = s.worker(), wl = s.worker_lane(), al = s.autoscaler_lane();
  if (kind == "ReserveQuotaOnWorker") {
    const std::string quota = fmt::format("reserve quota for {}{}", j, quota_moved(s, w));
    if (value(s.after(), "prov", {j, w}) != "None") {
      out.push_back({s.i, wl, wl, quota});
      out.push_back({s.i, wl, al, fmt::format("create ProvisioningRequest for {}", j)});
    } else {
      out.push_back({s.i, wl, wl, quota + ": Admitted (no admission checks)"});
    }
  } else if (kind == "ProvisioningAccepted") {
    out.push_back(
        {s.i, al, wl, fmt::format("ProvisioningRequest for {} Accepted (no capacity yet)", j)});
  } else if (kind == "ProvisioningProvisioned") {
    out.push_back(
        {s.i, al, wl,
         fmt::format("ProvisioningRequest for {} Provisioned: nodes booked, Workload Admitted",
                     j)});
  } else if (kind == "ProvisioningFailed") {
    out.push_back(
        {s.i, al, wl, fmt::format("ProvisioningRequest for {} Failed: {}", j, after_failure(s))});
  } else if (kind == "ProvisioningTimeout") {
    out.push_back({s.i, wl, wl,
                   fmt::format("ProvisioningRequest for {} timed out, counted as Failed: {}", j,
                               after_failure(s))});
  } else {  // JobStarted
    out.push_back({s.i, wl, wl, fmt::format("pods of {} start running", j)});
  }
}

void draw_environment(const StepView& s, const std::string& kind, std::vector<Line>& out) {
  const std::string w = s.worker(), wl = s.worker_lane();
  if (kind == "JobFinished") {
    out.push_back({s.i, wl, "manager",
                   fmt::format("{} finished: quota released on {} and the manager", s.job(), w)});
  } else if (kind == "SpotReclaim") {
    out.push_back(
        {s.i, wl, "",
         fmt::format("spot reclaim: the nodes of {} are gone, its copy is evicted and requeued",
                     s.job())});
  } else if (kind == "CapacityLost") {
    const std::string flavor = s.pick("flavor");
    const std::string lost = changes(s, "capacity", w, flavor);
    out.push_back({s.i, wl, "",
                   fmt::format("capacity lost: the idle {} nodes are gone{}", flavor,
                               lost.empty() ? "" : ", free " + lost)});
  } else {  // RefreshSnapshot
    const std::string seen = changes(s, "snapshot", w);
    out.push_back(
        {s.i, wl, "snapshot",
         fmt::format("refresh the view of {}: {}", w, seen.empty() ? "unchanged" : seen)});
  }
}

void draw_step(const StepView& s, std::vector<Line>& out) {
  static const std::map<std::string,
                        void (*)(const StepView&, const std::string&, std::vector<Line>&)>
      by_kind = {
          {"ReserveQuota", draw_dispatch},
          {"Nominate", draw_dispatch},
          {"NominateNextRound", draw_dispatch},
          {"NominateWorker", draw_dispatch},
          {"Renominate", draw_dispatch},
          {"CreateRemoteWorkload", draw_dispatch},
          {"RecreateRemoteWorkload", draw_dispatch},
          {"SelectWorker", draw_dispatch},
          {"RetryDispatch", draw_dispatch},
          {"ReserveQuotaOnWorker", draw_worker},
          {"ProvisioningAccepted", draw_worker},
          {"ProvisioningProvisioned", draw_worker},
          {"ProvisioningFailed", draw_worker},
          {"ProvisioningTimeout", draw_worker},
          {"JobStarted", draw_worker},
          {"JobFinished", draw_environment},
          {"SpotReclaim", draw_environment},
          {"CapacityLost", draw_environment},
          {"RefreshSnapshot", draw_environment},
      };
  const std::string& kind = s.t.steps[s.i].action;
  auto it = by_kind.find(kind);
  if (it == by_kind.end())
    bad(s.t, fmt::format("states[{}].mbt::actionTaken", s.i),
        fmt::format(
            "unknown action {}: kmc renders MultiKueue actions (ReserveQuota, NominateWorker, ...)",
            kind));
  it->second(s, kind, out);
}

Diagram make_diagram(const ItfDoc& t) {
  const Fleet fleet = fleet_of(t);
  Diagram d;
  d.lanes = lanes_of(fleet);
  d.loop = t.loop;
  d.title = t.property.empty() ? "a trace" : t.property;
  if (!t.source.empty()) d.title += " in " + t.source;
  for (const auto& job : fleet.jobs) {
    const std::string cluster = value(t.steps[0].cells, "cluster", {job});
    d.lines.push_back(
        {0, "user", "manager",
         fmt::format("submit Job {} (Workload {}{})", job, value(t.steps[0].cells, "phase", {job}),
                     cluster.empty() ? "" : " on " + cluster)});
  }
  for (std::size_t i = 1; i < t.steps.size(); ++i) draw_step(StepView{t, fleet, i}, d.lines);
  d.closing = t.property.empty() ? "end of the trace" : fmt::format("{} is violated", t.property);
  if (!t.detail.empty()) d.closing += ": " + t.detail;
  if (t.loop && *t.loop + 1 >= t.steps.size())
    d.closing += fmt::format(" (state {} repeats forever)", *t.loop);
  if (!t.replay.empty())
    d.replay =
        t.source.empty() ? t.replay : fmt::format("kmc check {} --replay {}", t.source, t.replay);
  return d;
}

}  // namespace

std::string render_trace(const ItfDocument& itf, RenderFormat format) {
  const Diagram d = make_diagram(read_trace(itf));
  return format == RenderFormat::Mermaid ? print_mermaid(d) : print_text(d);
}

std::string render_trace(const nlohmann::json& itf, RenderFormat format, const std::string& file) {
  return render_trace(itf_in_memory(file, itf), format);
}

}  // namespace kmc::cx
