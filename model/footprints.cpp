#include "model/footprints.hpp"

namespace kmc::model {

std::int64_t Formula::eval(const std::vector<std::int64_t>& state,
                           std::vector<std::int64_t>& v) const {
  v.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const std::uint32_t* k = kids.data() + n.first;
    auto arg = [&](std::uint32_t j) { return v[k[j]]; };
    std::int64_t out = 0;
    switch (n.op) {
      case Op::Const:
        out = n.value;
        break;
      case Op::Var:
        out = state[static_cast<std::size_t>(n.value)];
        break;
      case Op::Add:
        for (std::uint32_t j = 0; j < n.count; ++j) out += arg(j);
        break;
      case Op::Sub:
        out = arg(0);
        for (std::uint32_t j = 1; j < n.count; ++j) out -= arg(j);
        break;
      case Op::Mul:
        out = 1;
        for (std::uint32_t j = 0; j < n.count; ++j) out *= arg(j);
        break;
      case Op::Neg:
        out = -arg(0);
        break;
      case Op::Ite:
        out = arg(0) != 0 ? arg(1) : arg(2);
        break;
      case Op::Eq:
        out = arg(0) == arg(1);
        break;
      case Op::Ne:
        out = arg(0) != arg(1);
        break;
      case Op::Le:
        out = arg(0) <= arg(1);
        break;
      case Op::Lt:
        out = arg(0) < arg(1);
        break;
      case Op::Ge:
        out = arg(0) >= arg(1);
        break;
      case Op::Gt:
        out = arg(0) > arg(1);
        break;
      case Op::And:
        out = 1;
        for (std::uint32_t j = 0; j < n.count && out; ++j) out = arg(j) != 0;
        break;
      case Op::Or:
        for (std::uint32_t j = 0; j < n.count && !out; ++j) out = arg(j) != 0;
        break;
      case Op::Not:
        out = arg(0) == 0;
        break;
      case Op::Implies:
        out = arg(0) == 0 || arg(1) != 0;
        break;
    }
    v[i] = out;
  }
  return v.back();
}

}  // namespace kmc::model
