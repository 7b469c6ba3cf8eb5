// The named properties of the MultiKueue protocol. Each lives in its own
// file; this registry lists them in the order they are checked and printed.
#pragma once

#include <string>
#include <vector>

#include "model/protocol.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::invariants {

using MkProperty = model::Property<protocols::MultiKueue::State>;

MkProperty no_job_on_two_workers(const protocols::MultiKueue& p);
MkProperty cluster_queue_within_quota(const protocols::MultiKueue& p);
MkProperty quota_counted_once(const protocols::MultiKueue& p);
MkProperty no_stuck_job(const protocols::MultiKueue& p);
MkProperty some_job_runs(const protocols::MultiKueue& p);
MkProperty eventually_runs(const protocols::MultiKueue& p);
MkProperty work_conservation(const protocols::MultiKueue& p);
MkProperty no_endless_retry(const protocols::MultiKueue& p);

// Every property, in registry order. The protocol must outlive them.
// Liveness (leads-to, recurrence-free) properties come last and are checked only when named.
std::vector<MkProperty> multikueue_properties(const protocols::MultiKueue& p);

// What runs when nobody names properties: every safety, stuck and sometimes
// property. Liveness needs stated fairness, so it runs only when asked for.
std::vector<std::string> default_properties(const protocols::MultiKueue& p);

// Throws model::InputError naming `where` for a name that is not a property.
void require_known_properties(const protocols::MultiKueue& p, const std::vector<std::string>& names,
                              const model::SourcePos& where, const std::string& field);

}  // namespace kmc::invariants
