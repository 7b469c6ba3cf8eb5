#include "counterexamples/multikueue/shrink_entities.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "invariants/multikueue_registry.hpp"
#include "model/checked.hpp"

namespace kmc::cx {

namespace {

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

namespace {

std::string job_name(const model::ObjectMeta& m) {
  return m.namespace_.empty() ? m.name : m.namespace_ + "/" + m.name;
}

}  // namespace

model::Scenario reduce(const model::Scenario& sc, const Reduction& r) {
  model::Scenario out = sc;
  std::erase_if(out.manager.workloads,
                [&](const model::Workload& wl) { return contains(r.jobs, job_name(wl.meta)); });
  for (std::size_t i = out.fleet.workers.size(); i-- > 0;)
    if (contains(r.workers, out.fleet.workers[i].name)) {
      out.fleet.workers.erase(out.fleet.workers.begin() + static_cast<std::ptrdiff_t>(i));
      out.workers.erase(out.workers.begin() + static_cast<std::ptrdiff_t>(i));
    }
  for (const auto& w : r.workers) out.fleet.snapshot.erase(w), out.fleet.snapshot_pos.erase(w);
  std::erase_if(out.manager.multikueue_clusters,
                [&](const auto& c) { return contains(r.workers, c.meta.name); });
  for (auto& config : out.manager.multikueue_configs)
    std::erase_if(config.clusters, [&](const std::string& c) { return contains(r.workers, c); });
  return out;
}

namespace {

namespace fs = std::filesystem;

[[noreturn]] void write_error(const std::string& path, const std::string& message) {
  throw model::InputError({path, 0}, "", message);
}

std::string scalar(const YAML::Node& n, const char* key) {
  return n.IsMap() && n[key] && n[key].IsScalar() ? n[key].as<std::string>() : "";
}

// One object of a manifest: dropped, changed in place, or kept as written.
enum class Edit { Keep, Drop, Changed };

// Reads go through const nodes: yaml-cpp's non-const operator[] adds the key it looks up.
Edit edit_object(YAML::Node object, const Reduction& r) {
  const YAML::Node& read = object;
  const std::string kind = scalar(read, "kind");
  const YAML::Node meta = read.IsMap() ? read["metadata"] : YAML::Node();
  const std::string name = scalar(meta, "name");
  const std::string ns = meta && meta["namespace"] ? scalar(meta, "namespace")
                                                   : "default";  // as the loader defaults it
  if ((kind == "Job" || kind == "Workload") && contains(r.jobs, ns + "/" + name)) return Edit::Drop;
  if (kind == "MultiKueueCluster" && contains(r.workers, name)) return Edit::Drop;
  if (kind != "MultiKueueConfig" || !read["spec"] || !read["spec"]["clusters"]) return Edit::Keep;
  const YAML::Node clusters = read["spec"]["clusters"];
  YAML::Node kept(YAML::NodeType::Sequence);
  for (const auto& c : clusters)
    if (!contains(r.workers, c.as<std::string>())) kept.push_back(c);
  if (kept.size() == clusters.size()) return Edit::Keep;
  object["spec"]["clusters"] = kept;
  return Edit::Changed;
}

Edit edit_document(YAML::Node doc, const Reduction& r) {
  const YAML::Node& read = doc;
  if (scalar(read, "kind") != "List" || !read["items"]) return edit_object(doc, r);
  YAML::Node items(YAML::NodeType::Sequence);
  bool changed = false;
  for (auto item : read["items"]) {
    const Edit e = edit_object(item, r);
    changed = changed || e != Edit::Keep;
    if (e != Edit::Drop) items.push_back(item);
  }
  if (!changed) return Edit::Keep;
  doc["items"] = items;
  return Edit::Changed;
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return std::string(out.c_str()) + "\n";
}

// A manifest file without the dropped objects; nullopt when nothing in it changes.
std::optional<std::string> edit_manifest(const std::string& text, const Reduction& r) {
  std::vector<std::string> docs{""};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("---", 0) == 0)
      docs.emplace_back();
    else
      docs.back() += line + "\n";
  }
  bool changed = false;
  std::vector<std::string> kept;
  for (const auto& doc : docs) {
    YAML::Node node = YAML::Load(doc);
    const Edit e = node.IsMap() ? edit_document(node, r) : Edit::Keep;
    changed = changed || e != Edit::Keep;
    if (e == Edit::Keep && doc.find_first_not_of(" \n\t") != std::string::npos) kept.push_back(doc);
    if (e == Edit::Changed) kept.push_back(emit(node));
  }
  if (!changed) return std::nullopt;
  return fmt::format("{}", fmt::join(kept, "---\n"));
}

std::string edit_fleet(const std::string& text, const model::Scenario& from, const Reduction& r) {
  YAML::Node fleet = YAML::Load(text);
  const YAML::Node& read = fleet;
  YAML::Node workers(YAML::NodeType::Sequence);
  for (const auto& w : read["workers"])
    if (!contains(r.workers, scalar(w, "name"))) workers.push_back(w);
  fleet["workers"] = workers;
  if (read["snapshot"])
    for (const auto& w : r.workers) fleet["snapshot"].remove(w);
  std::vector<std::string> gone;
  for (const auto& j : r.jobs) gone.push_back("job " + j);
  for (const auto& w : r.workers) gone.push_back("worker " + w);
  return fmt::format("# {} without {}: kmc check --shrink-scenario wrote this folder.\n{}",
                     from.dir, fmt::join(gone, ", "), emit(fleet));
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

void write_reduced_scenario(const model::Scenario& from, const Reduction& r,
                            const std::string& to) {
  std::error_code ec;
  if (fs::exists(to, ec) && !(fs::is_directory(to, ec) && fs::is_empty(to, ec)))
    write_error(to, "--shrink-scenario needs a folder that does not exist yet or is empty");
  const fs::path root(from.dir), manager = root / "manager";
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    if (it->is_directory()) {
      if (rel.parent_path() == "workers" && contains(r.workers, rel.filename().string()))
        it.disable_recursion_pending();
      else
        fs::create_directories(fs::path(to) / rel);
      continue;
    }
    const fs::path out = fs::path(to) / rel;
    fs::create_directories(out.parent_path());
    std::optional<std::string> text;
    try {
      if (rel == "kmc.yaml")
        text = edit_fleet(slurp(it->path()), from, r);
      else if (*rel.begin() == "manager" &&
               (rel.extension() == ".yaml" || rel.extension() == ".yml"))
        text = edit_manifest(slurp(it->path()), r);
    } catch (const YAML::Exception& e) {
      write_error(it->path().string(), std::string("cannot rewrite: ") + e.what());
    }
    if (text)
      std::ofstream(out, std::ios::binary) << *text;
    else
      fs::copy_file(it->path(), out);
  }
}

// ---- Shrinking a MultiKueue violation ----

namespace {

using Clock = std::chrono::steady_clock;

const invariants::MkProperty& property_named(const std::vector<invariants::MkProperty>& props,
                                             const std::string& name) {
  for (const auto& p : props)
    if (p.name() == name) return p;
  throw std::invalid_argument("shrink: no property " + name);
}

// The jobs, clusters and flavors a path's actions pick.
std::set<std::string> picked_names(const protocols::MultiKueue& mk, const checker::Path& path) {
  std::set<std::string> out;
  for (const auto& a : checker::replay_actions(mk, path))
    for (const auto& [what, name] : mk.picks(a)) out.insert(name);
  return out;
}

// Actions and picks of v in mk; the detail follows the shrunk trace's end.
ActionShrink shrink_in(const protocols::MultiKueue& mk, const checker::Violation& v,
                       const MkShrinkOptions& o) {
  const auto props = invariants::multikueue_properties(mk);
  const auto& prop = property_named(props, v.property);
  FairnessPlan f;
  if (o.options) {
    const auto opts = o.options(mk);
    f = FairnessPlan{opts.fairness, opts.per_instance};
  }
  return shrink_violation(mk, prop, v, f);
}

struct Attempt {
  const model::Scenario& original;
  const MkShrinkOptions& o;
  std::string subject;  // the job a StuckFree or LeadsTo violation is about; empty for Always
  ShrinkReport& report;

  // v's property violated the same way in the scenario without r, by a trace of at most `steps_max`
  // steps.
  std::optional<MkShrunk> in(const Reduction& r, const checker::Violation& v,
                             std::size_t steps_max) {
    model::Scenario reduced = reduce(original, r);
    std::optional<protocols::MultiKueue> mk;
    try {
      mk.emplace(o.compile ? o.compile(reduced) : protocols::compile_multikueue(reduced));
    } catch (const model::InputError&) {
      return std::nullopt;  // e.g. the last job, or a queue that needed the worker
    }
    const auto props = invariants::multikueue_properties(*mk);
    auto opts = o.options ? o.options(*mk) : checker::CheckOptions{};
    opts.properties = {v.property};
    opts.progress = {};
    ++report.rechecks;
    const auto result = checker::Bfs(model::Checked<protocols::MultiKueue>{*mk, props}, opts).run();
    if (!result.violation || result.violation->property != v.property ||
        result.violation->kind != v.kind)
      return std::nullopt;
    const auto& found = *result.violation;
    if (found.path.choices.empty() && !found.loop) return std::nullopt;
    if (!subject.empty() && (found.subject < 0 || mk->params().jobs.at(found.subject) != subject))
      return std::nullopt;
    auto s = shrink_in(*mk, found, o);
    report.replays += s.report.replays;
    if (s.violation.path.choices.size() > steps_max) return std::nullopt;
    return MkShrunk{r, std::move(reduced), *mk, s.violation, s.report};
  }
};

}  // namespace

MkShrunk shrink_multikueue(const model::Scenario& sc, const protocols::MultiKueue& mk,
                           const checker::Violation& v, const MkShrinkOptions& o) {
  const auto start = Clock::now();
  MkShrunk best{{}, sc, mk, v, {}};
  best.report.steps_before = best.report.steps_after = v.path.choices.size();
  if (v.path.choices.empty() && !v.loop) return best;
  auto first = shrink_in(mk, v, o);
  best.violation = first.violation;
  best.report = first.report;  // always the action shrink of the trace in best.scenario
  ShrinkReport tally;          // replays and re-checks over every attempt
  tally.replays = first.report.replays;
  if (o.drop_entities) {
    Attempt attempt{sc, o, v.subject >= 0 ? mk.params().jobs.at(v.subject) : "", tally};
    for (bool changed = true; changed;) {
      changed = false;
      const auto& p = best.protocol.params();
      std::vector<Reduction> tries;
      for (const auto& j : p.jobs)
        if (j != attempt.subject && p.J() > 1)
          tries.push_back(best.reduction), tries.back().jobs.push_back(j);
      for (const auto& w : p.workers)
        if (p.W() > 1) tries.push_back(best.reduction), tries.back().workers.push_back(w);
      // What the trace does not mention goes first, so the story stays the one the checker told.
      const auto mentioned = picked_names(best.protocol, best.violation.path);
      std::stable_partition(tries.begin(), tries.end(), [&](const Reduction& r) {
        const auto& last =
            r.workers.size() > best.reduction.workers.size() ? r.workers.back() : r.jobs.back();
        return !mentioned.count(last);
      });
      for (const auto& r : tries)
        if (auto s = attempt.in(r, best.violation, best.violation.path.choices.size())) {
          best = std::move(*s);
          changed = true;
          break;
        }
    }
  }
  // Dropped actions and changed picks are those of the trace in the final
  // scenario: with jobs or workers left out, that is the checker's trace there.
  ShrinkReport report = best.report;
  report.steps_reduced = best.reduction.empty() ? 0 : best.report.steps_before;
  report.steps_before = v.path.choices.size();
  report.steps_after = best.violation.path.choices.size();
  report.dropped_jobs = best.reduction.jobs;
  report.dropped_workers = best.reduction.workers;
  report.entities_tried = o.drop_entities;
  report.replays = tally.replays;
  report.rechecks = tally.rechecks;
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  best.report = std::move(report);
  return best;
}

}  // namespace kmc::cx
