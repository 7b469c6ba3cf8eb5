// A stored trace against today's model: its replay token's path is re-run
// in the protocol and every state must read as the trace wrote it, cell by
// cell (field, entity, value). This is
// how the corpus notices that the model changed under a known bug.
#pragma once

#include <optional>
#include <string>

#include "counterexamples/multikueue/itf_read.hpp"
#include "protocols/multikueue.hpp"

namespace kmc::cx {

// nullopt when the model takes the same path through the same states; else
// the first difference, in words.
std::optional<std::string> model_difference(const protocols::MultiKueue& mk,
                                            const ItfDocument& itf);

}  // namespace kmc::cx
