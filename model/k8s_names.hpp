// Kubernetes' own name rules (k8s.io/apimachinery/pkg/util/validation), for
// the fields that Kubernetes or Kueue's webhooks refuse when they break them.
// Internal to model/.
#pragma once

#include <string_view>

namespace kmc::model {

// IsDNS1123Subdomain: at most 253 characters of lowercase alphanumerics, '-'
// and '.', each dot-separated part starting and ending with an alphanumeric.
bool is_dns1123_subdomain(std::string_view s);

// IsQualifiedName, a label key: an optional DNS-1123 subdomain prefix and '/',
// then a name of at most 63 alphanumerics, '-', '_' and '.', starting and
// ending with an alphanumeric.
bool is_qualified_name(std::string_view s);

// IsValidLabelValue: empty, or a name as in a qualified name.
bool is_label_value(std::string_view s);

}  // namespace kmc::model
