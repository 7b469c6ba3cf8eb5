#include "engine/simulate.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <random>

#include "model/diagnostics.hpp"
#include "model/quantity.hpp"

namespace kmc::engine {

namespace {

struct Reader {
  std::string file;
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field,
                         const std::string& msg) const {
    throw model::InputError({file, n.Mark().line + 1}, field, msg);
  }
  template <class T>
  T get(const YAML::Node& n, const char* key, const std::string& path, T def) const {
    const YAML::Node v = n[key];
    if (!v) return def;
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      fail(v, path + "." + key, "not a valid value");
    }
  }
  void known(const YAML::Node& n, const std::string& path,
             std::initializer_list<const char*> keys) const {
    if (!n.IsMap()) fail(n, path, "expected a mapping");
    for (const auto& kv : n) {
      const std::string k = kv.first.as<std::string>();
      if (std::none_of(keys.begin(), keys.end(), [&](const char* x) { return k == x; })) {
        fail(kv.first, path + "." + k, "unknown field");
      }
    }
  }
};

GeneratorQueuesSet read_queues_set(const Reader& r, const YAML::Node& n, const std::string& path) {
  r.known(n, path,
          {"className", "count", "nominalQuota", "borrowingLimit", "reclaimWithinCohort",
           "withinClusterQueue", "workloadsSets"});
  GeneratorQueuesSet q;
  q.class_name = r.get<std::string>(n, "className", path, "");
  q.count = r.get<int>(n, "count", path, 0);
  q.nominal_quota = r.get<std::string>(n, "nominalQuota", path, "0");
  q.borrowing_limit = r.get<std::string>(n, "borrowingLimit", path, "");
  q.reclaim_within_cohort = r.get<std::string>(n, "reclaimWithinCohort", path, "Never");
  q.within_cluster_queue = r.get<std::string>(n, "withinClusterQueue", path, "Never");
  int si = 0;
  for (const auto& ws : n["workloadsSets"]) {
    const std::string wpath = fmt::format("{}.workloadsSets[{}]", path, si++);
    r.known(ws, wpath, {"count", "creationIntervalMs", "workloads"});
    GeneratorWorkloadsSet set;
    set.count = r.get<int>(ws, "count", wpath, 0);
    set.creation_interval_ms = r.get<std::int64_t>(ws, "creationIntervalMs", wpath, 0);
    int wi = 0;
    for (const auto& w : ws["workloads"]) {
      const std::string p = fmt::format("{}.workloads[{}]", wpath, wi++);
      r.known(w, p,
              {"className", "runtimeMs", "priority", "request", "podCount", "tasConstraint",
               "tasLevel", "sliceSize"});
      set.workloads.push_back(
          {r.get<std::string>(w, "className", p, ""), r.get<std::int64_t>(w, "runtimeMs", p, 0),
           r.get<std::int32_t>(w, "priority", p, 0), r.get<std::string>(w, "request", p, "1")});
    }
    q.workloads_sets.push_back(std::move(set));
  }
  return q;
}

model::Quantity quantity(const Reader& r, const YAML::Node& where, const std::string& field,
                         const std::string& text) {
  try {
    return model::parse_quantity(text);
  } catch (const model::QuantityError& e) {
    r.fail(where, field, e.what());
  }
}

}  // namespace

GeneratorConfig load_generator(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw model::InputError({path, 0}, "", "cannot read the file");
  } catch (const YAML::ParserException& e) {
    throw model::InputError({path, e.mark.line + 1}, "", e.msg);
  }
  Reader r{path};
  r.known(root, "", {"cohorts", "resourceFlavor", "topology"});
  if (root["topology"])
    r.fail(root["topology"], "topology", "topology-aware scheduling is not simulated");
  GeneratorConfig c;
  if (root["resourceFlavor"])
    c.flavor = r.get<std::string>(root["resourceFlavor"], "name", "resourceFlavor", "rf");
  if (!root["cohorts"] || root["cohorts"].size() == 0)
    r.fail(root, "cohorts", "config must contain at least one cohort");
  int ci = 0;
  for (const auto& cn : root["cohorts"]) {
    const std::string p = fmt::format("cohorts[{}]", ci++);
    r.known(cn, p, {"className", "count", "queuesSets"});
    GeneratorCohortSet cs;
    cs.class_name = r.get<std::string>(cn, "className", p, "");
    cs.count = r.get<int>(cn, "count", p, 0);
    int qi = 0;
    for (const auto& qn : cn["queuesSets"]) {
      const std::string qp = fmt::format("{}.queuesSets[{}]", p, qi++);
      GeneratorQueuesSet q = read_queues_set(r, qn, qp);
      quantity(r, qn, qp + ".nominalQuota", q.nominal_quota);
      if (!q.borrowing_limit.empty()) quantity(r, qn, qp + ".borrowingLimit", q.borrowing_limit);
      for (const auto& ws : q.workloads_sets) {
        for (const auto& w : ws.workloads)
          quantity(r, qn, qp + ".workloadsSets.workloads.request", w.request);
      }
      cs.queues_sets.push_back(std::move(q));
    }
    c.cohorts.push_back(std::move(cs));
  }
  return c;
}

namespace {

model::ReclaimWithinCohortPolicy reclaim(const std::string& s) {
  if (s == "Any") return model::ReclaimWithinCohortPolicy::Any;
  if (s == "LowerPriority") return model::ReclaimWithinCohortPolicy::LowerPriority;
  return model::ReclaimWithinCohortPolicy::Never;
}

model::WithinClusterQueuePolicy within(const std::string& s) {
  if (s == "LowerPriority") return model::WithinClusterQueuePolicy::LowerPriority;
  if (s == "LowerOrNewerEqualPriority")
    return model::WithinClusterQueuePolicy::LowerOrNewerEqualPriority;
  return model::WithinClusterQueuePolicy::Never;
}

struct Planned {
  TimeMs at;
  std::uint64_t tie;
  model::Workload w;
  std::int64_t runtime_ms;
};

// generateQueue: one ClusterQueue, namespace and LocalQueue per queue, all named alike.
void add_queue(model::ClusterManifests& m, const GeneratorConfig& c, const GeneratorQueuesSet& q,
               const std::string& cohort, const std::string& name) {
  model::ClusterQueue cq;
  cq.meta.name = name;
  cq.cohort = cohort;
  cq.namespace_selector.present = true;
  model::ResourceQuota rq;
  rq.name = "cpu";
  rq.nominal_quota = model::parse_quantity(q.nominal_quota);
  if (!q.borrowing_limit.empty()) rq.borrowing_limit = model::parse_quantity(q.borrowing_limit);
  cq.resource_groups.push_back(
      model::ResourceGroup{{"cpu"}, {model::FlavorQuotas{c.flavor, {rq}}}});
  cq.preemption.reclaim_within_cohort = reclaim(q.reclaim_within_cohort);
  cq.preemption.within_cluster_queue = within(q.within_cluster_queue);
  m.cluster_queues.push_back(cq);
  model::Namespace ns;
  ns.meta.name = name;
  m.namespaces.push_back(ns);
  model::LocalQueue lq;
  lq.meta.name = name;
  lq.meta.namespace_ = name;
  lq.cluster_queue = name;
  m.local_queues.push_back(lq);
}

void plan_workloads(const GeneratorQueuesSet& q, const std::string& ns, std::mt19937_64& rng,
                    std::vector<Planned>& out) {
  for (size_t set_idx = 0; set_idx < q.workloads_sets.size(); ++set_idx) {
    const GeneratorWorkloadsSet& set = q.workloads_sets[set_idx];
    TimeMs at = 0;
    for (int si = 0; si < set.count; ++si) {
      for (size_t i = 0; i < set.workloads.size(); ++i) {
        const GeneratorWorkload& t = set.workloads[i];
        at += set.creation_interval_ms;  // generateWlSet waits before each creation
        model::Workload w;
        w.meta.name = fmt::format("{}-{}-{}-{}", t.class_name, set_idx, si, i);
        w.meta.namespace_ = ns;
        w.meta.labels["kueue.x-k8s.io/performance-scheduler-class"] = t.class_name;
        w.queue_name = ns;
        w.priority = t.priority;
        model::PodSet ps;
        ps.requests["cpu"] = model::parse_quantity(t.request);
        w.pod_sets.push_back(ps);
        out.push_back({at, rng(), std::move(w), t.runtime_ms});
      }
    }
  }
}

}  // namespace

// The recorder's view: CPU usage integrated per ClusterQueue over virtual time,
// and per workload the last admission time minus the creation time.
SimulationSummary run_simulation(Engine& e, const std::map<std::string, std::string>& class_of_cq,
                                 std::int64_t total, std::uint64_t seed, const Progress& progress) {
  SimulationSummary s;
  s.seed = seed;
  s.workloads = total;
  const FrId cpu = e.frs.find(e.manifests.resource_flavors.at(0).meta.name, "cpu");
  std::vector<long double> used(e.cluster_queues.size(), 0);  // milli-cpu x ms
  std::int64_t next_progress_ms = 0;
  for (;;) {
    while (!e.events.empty() && e.events.next_time() <= e.now_ms) e.handle(e.events.pop().second);
    CycleStats st = e.schedule();
    ++s.cycles;
    int at_instant = 1;
    while (st.heads > 0 && !st.idle() && at_instant++ < e.options.max_cycles_per_instant) {
      while (!e.events.empty() && e.events.next_time() <= e.now_ms) e.handle(e.events.pop().second);
      st = e.schedule();
      ++s.cycles;
    }
    if (!e.events.empty() && e.events.next_time() <= e.now_ms) continue;
    if (e.events.empty()) break;
    const TimeMs next = e.events.next_time();
    for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
      used[i] += static_cast<long double>(e.tree.usage(e.cluster_queues[i].node, cpu)) *
                 static_cast<long double>(next - e.now_ms);
    }
    e.now_ms = next;
    if (progress && e.now_ms >= next_progress_ms) {
      std::int64_t finished = 0;
      for (const auto& w : e.workloads) finished += w.is_finished() ? 1 : 0;
      progress(e.now_ms, finished, total);
      next_progress_ms = e.now_ms + 10'000;
    }
  }
  // The recorder stops when no queue has pending or reserving workloads: the last finish,
  // not the trailing requeue timers.
  s.virtual_ms = 0;
  for (const auto& w : e.workloads) {
    if (auto it = w.condition_ms.find("Finished"); it != w.condition_ms.end())
      s.virtual_ms = std::max(s.virtual_ms, it->second);
  }
  if (s.virtual_ms == 0) s.virtual_ms = e.now_ms;
  std::map<std::string, long double> used_by_class;
  for (size_t i = 0; i < e.cluster_queues.size(); ++i) {
    const std::string& cls = class_of_cq.at(e.cluster_queues[i].name);
    used_by_class[cls] += used[i];
    s.cluster_queue_classes[cls].nominal_milli += e.tree.nominal(e.cluster_queues[i].node, cpu);
    s.cluster_queue_classes[cls].queues++;
  }
  for (auto& [cls, u] : s.cluster_queue_classes) {
    if (u.nominal_milli > 0 && s.virtual_ms > 0) {
      u.usage_percent = static_cast<double>(
          used_by_class[cls] * 100 / (static_cast<long double>(u.nominal_milli) * s.virtual_ms));
    }
  }
  std::map<std::string, std::pair<long double, long double>> sums;
  for (const auto& w : e.workloads) {
    const std::string& cls = w.obj.meta.labels.at("kueue.x-k8s.io/performance-scheduler-class");
    auto& c = s.workload_classes[cls];
    c.count++;
    if (w.is_finished()) s.finished++;
    if (w.preempted_ever) s.evictions++;
    if (auto it = w.condition_ms.find("Admitted");
        it != w.condition_ms.end() && w.is_true("Admitted")) {
      sums[cls].first += static_cast<long double>(it->second - w.created_ms);
    }
    if (auto it = w.condition_ms.find("Finished"); it != w.condition_ms.end()) {
      sums[cls].second += static_cast<long double>(it->second - w.created_ms);
    }
  }
  for (auto& [cls, c] : s.workload_classes) {
    c.avg_time_to_admission_ms = static_cast<std::int64_t>(sums[cls].first / c.count);
    c.avg_time_to_finish_ms = static_cast<std::int64_t>(sums[cls].second / c.count);
  }
  return s;
}

SimulationSummary simulate(const GeneratorConfig& c, std::uint64_t seed, const Progress& progress) {
  model::ClusterManifests m;
  model::ResourceFlavor rf;
  rf.meta.name = c.flavor;
  m.resource_flavors.push_back(rf);
  std::mt19937_64 rng(seed);
  std::vector<Planned> plan;
  std::map<std::string, std::string> class_of_cq;
  for (const auto& cs : c.cohorts) {
    for (int ci = 0; ci < cs.count; ++ci) {
      const std::string cohort = fmt::format("{}-{}", cs.class_name, ci);
      for (size_t qsi = 0; qsi < cs.queues_sets.size(); ++qsi) {
        const auto& q = cs.queues_sets[qsi];
        for (int qi = 0; qi < q.count; ++qi) {
          const std::string name = fmt::format("{}-{}-{}-{}", q.class_name, qsi, qi, cohort);
          add_queue(m, c, q, cohort, name);
          class_of_cq[name] = q.class_name;
          plan_workloads(q, name, rng, plan);
        }
      }
    }
  }
  // Kueue's generator creates concurrently: the seed orders creations at the same millisecond.
  std::sort(plan.begin(), plan.end(), [](const Planned& a, const Planned& b) {
    return std::tie(a.at, a.tie) < std::tie(b.at, b.tie);
  });
  Engine e(m);
  e.now_ms = 0;
  for (auto& p : plan) e.post(p.at, ev::WorkloadCreated{std::move(p.w), p.runtime_ms});
  return run_simulation(e, class_of_cq, static_cast<std::int64_t>(plan.size()), seed, progress);
}

}  // namespace kmc::engine
