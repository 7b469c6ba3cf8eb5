#include "cli/ci_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cli/version.hpp"

namespace kmc::cli {

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and carriage return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

void add(std::vector<model::SourcePos>& out, const model::SourcePos& pos) {
  if (pos.file.empty() || pos.line <= 0) return;
  if (std::find(out.begin(), out.end(), pos) == out.end()) out.push_back(pos);
}

// Every named object of a cluster's manifests, by the names picks use.
void index_cluster(const model::ClusterManifests& m,
                   std::map<std::string, model::SourcePos>& names) {
  for (const auto& w : m.workloads)
    names.emplace(w.meta.namespace_ + "/" + w.meta.name, w.meta.pos);
  for (const auto& cq : m.cluster_queues) names.emplace(cq.meta.name, cq.meta.pos);
}

}  // namespace

std::string to_junit(const std::string& suite, const std::vector<CiCase>& cases) {
  int failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  for (const auto& c : cases) {
    failures += c.verdict == checker::Verdict::Violated;
    errors += c.verdict == checker::Verdict::Incomplete;
    skipped += c.verdict == checker::Verdict::Vacuous;
    seconds += c.seconds;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"kmc\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      cases.size(), failures, errors, skipped, seconds);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      xml_escape(suite), cases.size(), failures, errors, skipped, seconds);
  for (const auto& c : cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                       xml_escape(c.group), xml_escape(c.name), c.seconds);
    if (c.verdict == checker::Verdict::Verified) {
      out += "/>\n";
      continue;
    }
    if (c.verdict == checker::Verdict::Vacuous) {  // says nothing: neither a pass nor a failure
      out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                         xml_escape(c.message));
      continue;
    }
    const bool violated = c.verdict == checker::Verdict::Violated;
    std::string body = c.description.empty() ? "" : c.description + "\n";
    for (const auto& pos : c.locations) body += fmt::format("at {}:{}\n", pos.file, pos.line);
    if (!c.story.empty()) body += "\n" + c.story;
    out += fmt::format(">\n      <{} message=\"{}\" type=\"{}\">{}</{}>\n    </testcase>\n",
                       violated ? "failure" : "error", xml_escape(c.message),
                       violated ? "Violated" : "Incomplete", xml_escape(body),
                       violated ? "failure" : "error");
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

nlohmann::json to_sarif(const std::vector<CiCase>& cases) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, std::size_t> rule_index;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& c : cases) {
    if (c.verdict == checker::Verdict::Verified) continue;
    if (!rule_index.contains(c.rule)) {
      rule_index[c.rule] = rules.size();
      rules.push_back(
          {{"id", c.rule},
           {"name", c.rule},
           {"shortDescription", {{"text", c.description.empty() ? c.rule : c.description}}}});
    }
    const bool violated = c.verdict == checker::Verdict::Violated;
    const bool vacuous = c.verdict == checker::Verdict::Vacuous;
    // SARIF 2.1.0 (3.27.9, 3.27.10): a result that is no failure has level "none"; a vacuous
    // property was not evaluated on any behaviour, so it does not apply.
    const char* kind = violated ? "fail" : (vacuous ? "notApplicable" : "open");
    const char* level = violated ? "error" : (vacuous ? "none" : "warning");
    const char* is = violated ? "is violated" : (vacuous ? "is Vacuous" : "is Incomplete");
    nlohmann::json locations = nlohmann::json::array();
    for (const auto& pos : c.locations)
      locations.push_back(
          {{"physicalLocation",
            {{"artifactLocation", {{"uri", pos.file}}}, {"region", {{"startLine", pos.line}}}}}});
    nlohmann::json result = {{"ruleId", c.rule},
                             {"ruleIndex", rule_index[c.rule]},
                             {"kind", kind},
                             {"level", level},
                             {"message",
                              {{"text", fmt::format("{}: {} {}{}{}", c.group, c.name, is,
                                                    c.message.empty() ? "" : ": ", c.message)}}},
                             {"locations", locations}};
    if (!c.story.empty()) result["properties"] = {{"trace", c.story}};
    results.push_back(result);
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           {{{"tool", {{"driver", {{"name", "kmc"}, {"version", kVersion}, {"rules", rules}}}}},
             {"results", results}}}}};
}

std::vector<model::SourcePos> involved_objects(const model::Scenario& sc, const cx::Trace& trace) {
  std::map<std::string, model::SourcePos> names;
  index_cluster(sc.manager, names);
  for (const auto& w : sc.workers) index_cluster(w, names);
  for (const auto& w : sc.fleet.workers) names.emplace(w.name, w.pos);
  std::vector<model::SourcePos> out;
  for (const auto& step : trace.steps)
    for (const auto& [key, value] : step.picks)
      if (auto it = names.find(value); it != names.end()) add(out, it->second);
  if (out.empty()) add(out, sc.fleet.pos);
  return out;
}

}  // namespace kmc::cli
