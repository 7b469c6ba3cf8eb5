// A ClusterQueue's namespaceSelector as Kueue's scheduler reads it
// (ValidateAdmissibility): a workload is admitted only from a namespace it
// selects; a nil one (not written) selects none. Every other workload is
// NamespaceMismatch at each cycle that pops it. Both protocols that admit
// (kueue-admission, MultiKueue on each cluster) ask it of every queued job.
#pragma once

#include <string>

#include "model/diagnostics.hpp"
#include "model/kueue_objects.hpp"

namespace kmc::model {

// Whether `cq` (of cluster `m`) selects namespace `ns`. Where it does not, a
// warning (once per ClusterQueue and namespace); where it reads labels of a
// Namespace the input lacks, an answer-changing one: kmc takes that Namespace
// to carry its name label alone.
bool cluster_queue_selects(const ClusterManifests& m, const ClusterQueue& cq, const std::string& ns,
                           Warnings& warnings);

}  // namespace kmc::model
