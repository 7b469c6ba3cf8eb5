#include "model/spec.hpp"

#include <algorithm>

#include "model/assert.hpp"

namespace kmc::model {

int Axis::extent() const {
  if (parent < 0) return static_cast<int>(labels.size());
  std::size_t most = static_cast<std::size_t>(std::max(0, padded_to));
  for (const auto& l : labels_of) most = std::max(most, l.size());
  return static_cast<int>(most);
}

const std::string& Axis::label(int i, int p) const {
  static const std::string padding;
  if (parent < 0) {
    KMC_ASSERT(i >= 0 && i < static_cast<int>(labels.size()));
    return labels[i];
  }
  KMC_ASSERT(p >= 0 && p < static_cast<int>(labels_of.size()));
  const auto& l = labels_of[p];
  return i < static_cast<int>(l.size()) ? l[i] : padding;
}

int Layout::axis(const std::string& name) const {
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (axes[a].name == name) return static_cast<int>(a);
  return -1;
}

std::size_t Layout::offset(const Field& f, const std::vector<int>& at) const {
  KMC_ASSERT(at.size() == f.axes.size());
  std::size_t off = 0;
  for (std::size_t k = 0; k < f.axes.size(); ++k) {
    const int extent = axes[f.axes[k]].extent();
    KMC_ASSERT(at[k] >= 0 && at[k] < extent);
    off = off * static_cast<std::size_t>(extent) + static_cast<std::size_t>(at[k]);
  }
  return off;
}

std::size_t Layout::size(const Field& f) const {
  std::size_t n = 1;
  for (int a : f.axes) n *= static_cast<std::size_t>(axes[a].extent());
  return n;
}

}  // namespace kmc::model
