// The MultiKueue state as typed cells (model/cell.hpp), for ITF traces,
// rendering, engine replay and validation.
//
// kFields below is the one place that knows each state field's axes and the
// kind of its values; cell_fields() (the schema a reader checks a trace
// against) and cells() (a state's values) are both read off it. When the
// state is declared over named axes (issue 9, ProtocolSpec), this table is
// what the declaration replaces.
#include <array>
#include <cassert>
#include <string_view>

#include "protocols/multikueue.hpp"

namespace kmc::protocols {

namespace {

using State = MultiKueue::State;

// Which entities index a field. Flavors and slots are named, never numbered:
// a ClusterQueue's flavors are its own, a worker's slots are its flavors.
enum class Axes { Job, JobWorker, CqFlavorResource, WorkerSlotResource, Worker, Budget };

// What a field's integers mean.
enum class Kind {
  ManagerPhase,
  RemotePhase,
  ProvPhase,
  Count,
  WorkerIndex,
  ManagerFlavor,
  WorkerFlavor
};

struct Field {
  const char* name;
  Axes axes;
  Kind kind;
  bool snapshot_only;  // kept by the manager only with the capacity-snapshot dispatcher
  std::vector<std::int64_t> State::*member;
};

const std::array<Field, 13> kFields = {{
    {"phase", Axes::Job, Kind::ManagerPhase, false, &State::phase},
    {"cluster", Axes::Job, Kind::WorkerIndex, false, &State::cluster},
    {"mgr_flavor", Axes::Job, Kind::ManagerFlavor, false, &State::mgr_flavor},
    {"nominated", Axes::JobWorker, Kind::Count, false, &State::nominated},
    {"remote", Axes::JobWorker, Kind::RemotePhase, false, &State::remote},
    {"remote_flavor", Axes::JobWorker, Kind::WorkerFlavor, false, &State::remote_flavor},
    {"prov", Axes::JobWorker, Kind::ProvPhase, false, &State::prov},
    {"attempts", Axes::JobWorker, Kind::Count, false, &State::attempts},
    {"usage", Axes::CqFlavorResource, Kind::Count, false, &State::usage},
    {"capacity", Axes::WorkerSlotResource, Kind::Count, false, &State::capacity},
    {"snapshot", Axes::WorkerSlotResource, Kind::Count, true, &State::snapshot},
    {"staleness", Axes::Worker, Kind::Count, true, &State::staleness},
    {"budget", Axes::Budget, Kind::Count, false, &State::budget},
}};

// The names of the enums' values in traces. "None" where describe() prints
// "-": a trace value is a name, not a picture.
const std::vector<std::string> kManagerPhases = {"Pending", "QuotaReserved", "Admitted",
                                                 "Finished"};
const std::vector<std::string> kRemotePhases = {"None",    "Pending",  "QuotaReserved", "Admitted",
                                                "Running", "Finished", "Rejected"};
const std::vector<std::string> kProvPhases = {"None", "Requested", "Accepted", "Provisioned"};
const std::array<const char*, kBudgets> kBudgetNames = {"spotReclaims", "capacityLosses",
                                                        "snapshotRefreshes"};

std::vector<std::string> axis_names(Axes a) {
  switch (a) {
    case Axes::Job:
      return {"job"};
    case Axes::JobWorker:
      return {"job", "worker"};
    case Axes::CqFlavorResource:
      return {"clusterQueue", "flavor", "resource"};
    case Axes::WorkerSlotResource:
      return {"worker", "flavor", "resource"};
    case Axes::Worker:
      return {"worker"};
    case Axes::Budget:
      return {"budget"};
  }
  return {};
}

const std::vector<std::string>* enum_values(Kind k) {
  switch (k) {
    case Kind::ManagerPhase:
      return &kManagerPhases;
    case Kind::RemotePhase:
      return &kRemotePhases;
    case Kind::ProvPhase:
      return &kProvPhases;
    default:
      return nullptr;
  }
}

// One entity of a field: where its value sits in the state vector, the job
// and worker it belongs to (for names that depend on them), and its names.
struct Entity {
  int at;
  int j = -1, w = -1;
  std::vector<std::string> names;
};

std::vector<Entity> entities(Axes a, const MultiKueue& mk, bool snapshot) {
  const MkParams& p = mk.params();
  std::vector<Entity> out;
  switch (a) {
    case Axes::Job:
      for (int j = 0; j < p.J(); ++j) out.push_back({j, j, -1, {p.jobs[j]}});
      break;
    case Axes::JobWorker:
      for (int j = 0; j < p.J(); ++j)
        for (int w = 0; w < p.W(); ++w)
          out.push_back({mk.jw(j, w), j, w, {p.jobs[j], p.workers[w]}});
      break;
    case Axes::CqFlavorResource:
      // The (flavor, resource) pairs the ClusterQueue's quota defines.
      for (std::size_t q = 0; q < p.cqs.size(); ++q) {
        const CqParams& cq = p.cqs[q];
        const std::string name =
            (cq.cluster < 0 ? "manager" : p.workers[cq.cluster]) + "/" + cq.name;
        for (std::size_t f = 0; f < cq.flavors.size(); ++f)
          for (int r = 0; r < p.R(); ++r)
            if (cq.nominal[f * p.R() + r] >= 0)
              out.push_back({mk.u(static_cast<int>(q), static_cast<int>(f), r),
                             -1,
                             -1,
                             {name, cq.flavors[f], p.resources[r]}});
      }
      break;
    case Axes::WorkerSlotResource:
      for (int w = 0; w < p.W(); ++w)
        for (std::size_t slot = 0; slot < p.worker_flavors[w].size(); ++slot)
          for (int r = 0; r < p.R(); ++r)
            out.push_back({mk.c(w, static_cast<int>(slot), r),
                           -1,
                           w,
                           {p.workers[w], p.worker_flavors[w][slot], p.resources[r]}});
      break;
    case Axes::Worker:
      for (int w = 0; w < p.W(); ++w) out.push_back({w, -1, w, {p.workers[w]}});
      break;
    case Axes::Budget:
      for (int b = 0; b < kBudgets; ++b)
        if (b != kSnapshotRefreshes || snapshot) out.push_back({b, -1, -1, {kBudgetNames[b]}});
      break;
  }
  return out;
}

std::string name_at(const std::vector<std::string>& names, std::int64_t v) {
  return v >= 0 && v < static_cast<std::int64_t>(names.size()) ? names[static_cast<std::size_t>(v)]
                                                               : "";
}

model::CellValue value_of(Kind k, std::int64_t v, const Entity& e, const MkParams& p) {
  switch (k) {
    case Kind::ManagerPhase:
    case Kind::RemotePhase:
    case Kind::ProvPhase:
      return name_at(*enum_values(k), v);
    case Kind::Count:
      return v;
    case Kind::WorkerIndex:
      return name_at(p.workers, v);
    case Kind::ManagerFlavor:
      return name_at(p.cqs[p.manager_cq[e.j]].flavors, v);
    case Kind::WorkerFlavor: {
      const int cq = p.worker_cq[e.w][e.j];
      return cq < 0 ? std::string() : name_at(p.cqs[cq].flavors, v);
    }
  }
  return v;
}

}  // namespace

const std::vector<model::FieldSchema>& MultiKueue::cell_fields() {
  static const std::vector<model::FieldSchema> fields = [] {
    std::vector<model::FieldSchema> out;
    for (const Field& f : kFields) {
      model::FieldSchema s{f.name, axis_names(f.axes), model::CellKind::Int, {}, f.snapshot_only};
      if (const auto* values = enum_values(f.kind)) {
        s.kind = model::CellKind::Enum;
        s.values = *values;
      } else if (f.kind != Kind::Count) {
        s.kind = model::CellKind::Name;
      }
      out.push_back(std::move(s));
    }
    return out;
  }();
  return fields;
}

std::string MultiKueue::cell_enum(std::string_view field, std::int64_t v) {
  for (const Field& f : kFields)
    if (field == f.name && enum_values(f.kind) != nullptr) return name_at(*enum_values(f.kind), v);
  return "";
}

std::vector<model::Cell> MultiKueue::cells(const State& s) const {
  const MkParams& p_ = params();
  const bool snapshot = p_.dispatcher == Dispatcher::CapacitySnapshot;
  std::vector<model::Cell> out;
  for (const Field& f : kFields) {
    if (f.snapshot_only && !snapshot) continue;
    const std::vector<std::int64_t>& values = s.*f.member;
    for (const Entity& e : entities(f.axes, *this, snapshot)) {
      assert(e.at >= 0 && static_cast<std::size_t>(e.at) < values.size());
      out.push_back(
          {f.name, e.names, value_of(f.kind, values[static_cast<std::size_t>(e.at)], e, p_)});
    }
  }
  return out;
}

}  // namespace kmc::protocols
