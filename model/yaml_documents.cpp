// Splitting a YAML file into documents, with syntax errors as InputError.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "model/yaml_node.hpp"

namespace kmc::model {

std::vector<YamlNode> parse_yaml_text(const std::string& text, const std::string& file,
                                      int line_offset) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    // ParserException carries the 0-based line of the offending token.
    const int line = e.mark.is_null() ? 0 : e.mark.line + 1 + line_offset;
    throw InputError({file, line}, "", fmt::format("YAML syntax error: {}", e.msg));
  }
  std::vector<YamlNode> out;
  for (auto& doc : documents) {
    if (!doc.IsDefined() || doc.IsNull()) continue;  // "---" followed by nothing
    out.emplace_back(doc, file, "", line_offset + 1, line_offset);
  }
  return out;
}

std::vector<YamlNode> load_yaml_file(const std::string& path, const std::string& shown_as) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({shown_as, 0}, "", "cannot read file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_yaml_text(text.str(), shown_as, 0);
}

}  // namespace kmc::model
