// A scenario folder: kmc.yaml, manager/, workers/<name>/ (see scenario.hpp).
//
// Paths in diagnostics are the scenario folder as the user typed it joined
// with the file inside, so "examples/gpu-hunter/manager/cq.yaml:12" can be
// pasted into an editor from where kmc was run.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "model/scenario.hpp"

namespace kmc::model {
namespace {

namespace fs = std::filesystem;

std::string join(const std::string& a, const std::string& b) {
  return (fs::path(a) / b).string();
}

ClusterManifests load_cluster_folder(const std::string& folder, SourcePos named_at,
                                     const std::string& field) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(std::move(named_at), field, fmt::format("folder {} is missing", folder));
  return load_cluster_manifests({folder});
}

// Every folder under workers/ must be a worker of kmc.yaml: a forgotten entry
// would silently drop a cluster from the check.
void check_no_extra_workers(const std::string& dir, const Fleet& fleet) {
  const std::string workers = join(dir, "workers");
  std::error_code ec;
  if (!fs::is_directory(workers, ec)) return;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(workers))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const bool listed = std::any_of(fleet.workers.begin(), fleet.workers.end(),
                                    [&](const WorkerSpec& w) { return w.name == name; });
    if (!listed)
      throw InputError(
          {join(workers, name), 0}, "",
          fmt::format("worker folder '{}' is not listed under workers in kmc.yaml", name));
  }
}

void check_flavors_exist(const ClusterManifests& worker, const FlavorResources& flavors,
                         const SourcePos& pos, const std::string& field,
                         const std::string& worker_name) {
  for (const auto& [flavor, resources] : flavors)
    if (!worker.find_flavor(flavor))
      throw InputError(
          pos, fmt::format("{}.{}", field, flavor),
          fmt::format("ResourceFlavor '{}' not found on worker '{}'", flavor, worker_name));
}

// Each worker is reached through a MultiKueueCluster of its name on the manager.
void check_worker_is_connected(const Scenario& s, std::size_t i, Warnings& warnings) {
  const WorkerSpec& w = s.fleet.workers[i];
  const auto& clusters = s.manager.multikueue_clusters;
  const bool found = std::any_of(clusters.begin(), clusters.end(),
                                 [&](const MultiKueueCluster& c) { return c.meta.name == w.name; });
  if (!found)
    throw InputError(w.pos, fmt::format("workers[{}].name", i),
                     fmt::format("no MultiKueueCluster '{}' on the manager", w.name));
  const auto& configs = s.manager.multikueue_configs;
  const bool listed = std::any_of(configs.begin(), configs.end(), [&](const MultiKueueConfig& m) {
    return std::find(m.clusters.begin(), m.clusters.end(), w.name) != m.clusters.end();
  });
  if (!listed)
    warnings.push_back(Diagnostic{
        w.pos, fmt::format("workers[{}].name", i),
        fmt::format("worker '{}' is in no MultiKueueConfig; nothing is dispatched to it", w.name)});
}

}  // namespace

Scenario load_scenario(const std::string& dir) {
  Scenario s;
  s.dir = dir;
  const std::string fleet_file = join(dir, "kmc.yaml");
  std::error_code ec;
  if (!fs::is_regular_file(fleet_file, ec))
    throw InputError({fleet_file, 0}, "", "required file is missing (the fleet description)");
  s.fleet = load_fleet(fleet_file);
  s.manager = load_cluster_folder(join(dir, s.fleet.cluster_dir), {dir, 0}, "");
  validate_cluster_references(s.manager, s.manager.warnings);
  for (std::size_t i = 0; i < s.fleet.workers.size(); ++i) {
    const WorkerSpec& w = s.fleet.workers[i];
    ClusterManifests worker = load_cluster_folder(join(join(dir, "workers"), w.name), w.pos,
                                                  fmt::format("workers[{}].name", i));
    validate_cluster_references(worker, worker.warnings);
    check_flavors_exist(worker, w.capacity, w.capacity_pos, fmt::format("workers[{}].capacity", i),
                        w.name);
    if (auto it = s.fleet.snapshot.find(w.name); it != s.fleet.snapshot.end())
      check_flavors_exist(worker, it->second, s.fleet.snapshot_pos[w.name], "snapshot." + w.name,
                          w.name);
    s.workers.push_back(std::move(worker));
  }
  check_no_extra_workers(dir, s.fleet);
  for (std::size_t i = 0; i < s.fleet.workers.size(); ++i)
    check_worker_is_connected(s, i, s.warnings);
  // Manager's warnings first, then each worker's, then the scenario's own.
  Warnings all = s.manager.warnings;
  for (const auto& w : s.workers) all.insert(all.end(), w.warnings.begin(), w.warnings.end());
  all.insert(all.end(), s.warnings.begin(), s.warnings.end());
  s.warnings = std::move(all);
  return s;
}

}  // namespace kmc::model
