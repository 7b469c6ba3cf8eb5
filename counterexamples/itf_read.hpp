// Reading a kmc ITF trace back (the writer is itf.cpp): each state's action
// and picks resolved to the protocol's job and worker indices, the cells the
// replay compares, and the free capacity the environment had. Anything that
// is not a kmc trace of this scenario is an InputError naming the file, the
// line of the state and the field.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocols/multikueue_params.hpp"
#include "protocols/multikueue_state.hpp"

namespace kmc::cx {

struct ItfDocument {
  std::string file;
  std::string text;  // for line numbers
  nlohmann::json doc;
};

// Parses `text`; a JSON syntax error names the file and line.
ItfDocument parse_itf(const std::string& file, const std::string& text);
ItfDocument load_itf(const std::string& file);

struct ItfStep {
  std::size_t index = 0;
  protocols::ActionKind kind = protocols::ActionKind::ReserveQuota;
  bool init = false;
  int job = -1, worker = -1;
  std::string flavor;
  std::map<std::string, std::string> cells;  // "<job> @<cluster>" -> text
  std::map<std::string, std::string> free;   // "<worker> <flavor> <resource>" -> quantity
};

struct ItfTrace {
  std::string property;
  std::string source;  // the scenario folder it was made from (#meta.source)
  std::string token;   // #meta.replay
  int subject = 0;     // the job the property is about (from the token)
  std::optional<std::size_t> loop;
  std::map<std::string, std::string> levers;  // #meta.levers: a kmc matrix cell's settings
  std::vector<ItfStep> steps;
};

// The document's #meta alone (no scenario needed yet).
ItfTrace read_itf_meta(const ItfDocument& d);
ItfTrace read_itf(const ItfDocument& d, const protocols::MkParams& p);

}  // namespace kmc::cx
