// Checking hand-built kueue-admission instances in protocol tests: the CLI's
// pipeline (properties, shrinking) over the registry's properties.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "counterexamples/pipeline.hpp"
#include "invariants/admission_registry.hpp"
#include "model/scenario.hpp"
#include "protocols/kueue_admission/rules.hpp"
#include "protocols/kueue_admission/spec.hpp"

namespace ka_check {

// Every default property unless `properties` names some. Compiled once, in
// ka_check.cpp: the pipeline's templates cost each test file that
// instantiated them 15 s of a cold build.
kmc::cx::CheckOutcome check(const kmc::protocols::ka::AdmissionParams& params,
                            std::vector<std::string> properties = {});

// A state stepped by hand through the rules: each action must be enabled.
struct Walk {
  explicit Walk(const kmc::protocols::ka::AdmissionParams& p)
      : rules(p, {}), s(kmc::protocols::ka::Spec::initial(p)) {}
  void operator()(kmc::protocols::ka::Action a) {
    REQUIRE(rules.enabled(s, a));
    rules.apply_in_place(s, a);
  }
  kmc::protocols::ka::Rules<std::int64_t> rules;
  kmc::protocols::ka::State<std::int64_t> s;
};

// cq0 {cpu: quota} and n workloads of 1 cpu each, created in index order;
// p.finish() is the caller's, once it has added what it tests.
inline kmc::protocols::ka::AdmissionParams queue_of_one(int n, std::int64_t quota = 1) {
  namespace ka = kmc::protocols::ka;
  ka::AdmissionParams p;
  p.resources = {"cpu"};
  p.flavors = {"default"};
  ka::CqParams q;
  q.quota = {"cq0", -1, {quota}, {ka::kNoLimit}, {ka::kNoLimit}};
  q.flavors = {0};
  q.covered = {0};
  p.cqs.push_back(q);
  for (int i = 0; i < n; ++i) {
    ka::WorkloadParams w;
    w.name = "ns/w" + std::to_string(i);
    w.cq = 0;
    w.created = i;
    w.req = {1};
    w.eligible = {true};
    w.reserved_at = i;
    p.workloads.push_back(w);
  }
  return p;
}

// A workload of ClusterQueue cq, eligible for the first `flavors` flavors,
// created at `order` and, where flavor >= 0, holding quota in it from then.
inline kmc::protocols::ka::WorkloadParams workload(const std::string& name, int cq,
                                                   std::int64_t priority,
                                                   std::vector<std::int64_t> req, int flavor,
                                                   int order, int flavors = 1) {
  kmc::protocols::ka::WorkloadParams w;
  w.name = name;
  w.cq = cq;
  w.priority = priority;
  w.created = order;
  w.req = std::move(req);
  w.eligible.assign(static_cast<std::size_t>(flavors), true);
  w.initial_flavor = flavor;
  w.reserved_at = order;
  return w;
}

// Cohort "co" {cpu: 0} over cq0 {cpu: q0} and cq1 {cpu: q1}; w0 (cq0, 2 cpu)
// and w1 (cq1, 1 cpu). p.finish() is the caller's.
inline kmc::protocols::ka::AdmissionParams two_in_cohort(std::int64_t q0, std::int64_t q1) {
  namespace ka = kmc::protocols::ka;
  auto p = queue_of_one(2, q0);
  p.cohorts.push_back({"co", -1, {0}, {ka::kNoLimit}, {ka::kNoLimit}});
  p.cqs.push_back(p.cqs[0]);
  p.cqs[1].quota.name = "cq1";
  p.cqs[1].quota.nominal = {q1};
  p.cqs[0].quota.parent = p.cqs[1].quota.parent = 0;
  p.workloads[0].req = {2};
  p.workloads[1].cq = 1;
  return p;
}

// The steps the hand-stepped tests take most (Walk): `using namespace ka_check::steps;`.
namespace steps {
inline const kmc::protocols::ka::Action kSchedule{kmc::protocols::ka::kSchedule, -1};
inline const kmc::protocols::ka::Action kEdit{kmc::protocols::ka::kQueueEdited, -1};
inline kmc::protocols::ka::Action finish(std::int16_t w) {
  return kmc::protocols::ka::Action{kmc::protocols::ka::kFinish, w};
}
}  // namespace steps

}  // namespace ka_check
