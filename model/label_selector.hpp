// Label selectors as Kubernetes evaluates them (metav1.LabelSelectorAsSelector):
// a ClusterQueue's namespaceSelector, the Configuration's
// managedJobsNamespaceSelector. Both select namespaces, by the labels their
// Namespace objects carry.
#pragma once

#include <string>
#include <vector>

#include "model/kueue_objects.hpp"

namespace kmc::model {

// The label the API server sets on every Namespace (NamespaceDefaultLabelName,
// GA in Kubernetes 1.22): its name. Selectors name namespaces by it.
inline constexpr const char* kNamespaceNameLabel = "kubernetes.io/metadata.name";

// A nil selector (absent) selects nothing; {} selects everything.
bool selector_matches(const LabelSelector& selector, const Labels& labels);

// Whether the selector reads some label other than kNamespaceNameLabel: of
// a namespace, one only its Namespace object tells.
bool reads_more_than_the_name(const LabelSelector& selector);

// The input's Namespace of that name; null where it has none.
const Namespace* find_namespace(const std::vector<Namespace>& namespaces, const std::string& name);

// A namespace's labels as a selector sees them: its Namespace object's (`ns`),
// or, where the input has none (null), the name label alone (the object's
// other labels are unknown).
Labels namespace_labels(const Namespace* ns, const std::string& name);

}  // namespace kmc::model
