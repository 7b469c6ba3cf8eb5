// `kmc diff OLD NEW`: the same properties on two versions of a scenario (a
// policy change under review), and which verdicts the change turns. A
// property Violated in NEW and not in OLD is a new violation, printed with
// its trace and replay token; one Violated in OLD and Verified in NEW is
// named fixed. Each property gets its own verdict: a check stops examining
// the graph properties after its first violation (cli/check_report.hpp), so
// those are re-checked one at a time.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/check_report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "cli/stop_signals.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/timeline.hpp"

namespace kmc::cli {

namespace {

struct DiffArgs {
  std::string old_dir, new_dir;
  std::vector<std::string> properties;
  std::string time_limit = "60";  // per check, as given (cli/options.hpp)
  std::optional<std::string> max_memory;
  std::string threads = "1";
  std::string output = "text";
  bool strict = false;
};

struct Side {
  checker::Verdict verdict = checker::Verdict::Incomplete;
  std::string note;  // the detail of a violation, or the bound that stopped the run
  std::optional<cx::CheckOutcome> violation;  // the outcome that carries its trace
};

struct PropertyDiff {
  std::string name, description;
  std::optional<Side> old_side, new_side;  // unset: that version does not check it
  std::string change() const;
};

std::string PropertyDiff::change() const {
  using V = checker::Verdict;
  if (!old_side) return "only in new";
  if (!new_side) return "only in old";
  const V o = old_side->verdict, n = new_side->verdict;
  if (n == V::Violated && o != V::Violated) return "new violation";
  if (o == V::Violated && n == V::Verified) return "fixed";
  if (o == n) return "unchanged";
  if (o == V::Incomplete || n == V::Incomplete) return "undecided";
  // A premise that no longer holds is no fix: the new version's property says nothing.
  if (n == V::Vacuous) return "now vacuous";
  return "no longer vacuous";  // old Vacuous, new Verified
}

cx::CheckRequest request(const DiffArgs& a, std::vector<std::string> properties) {
  cx::CheckRequest r;
  r.properties = std::move(properties);
  r.time_limit_s = seconds_option("--time-limit", a.time_limit);
  r.max_memory_bytes = memory_option("--max-memory", a.max_memory);
  r.threads = static_cast<int>(integer_option("--threads", a.threads, 1, 4096));
  r.stop = stop_requested;
  r.warn = [strict = a.strict](const model::Warnings& ws) {
    for (const auto& line : model::review_warnings(ws, strict))
      fmt::print(stderr, "warning: {}\n", line);
  };
  return r;
}

Side side_of(const cx::CheckOutcome& o, std::size_t i) {
  const auto& r = o.result;
  Side s;
  s.verdict = r.properties[i].verdict;
  if (s.verdict == checker::Verdict::Incomplete) s.note = "stopped by " + r.incomplete_reason;
  if (s.verdict == checker::Verdict::Vacuous) s.note = checker::why(s.verdict);
  if (r.violation && r.violation->property == r.properties[i].name) {
    s.note = r.violation->detail;
    s.violation = o;
  }
  return s;
}

// Every property of one version, each with its own verdict, in the protocol's order.
std::vector<PropertyDiff> check_version(const std::string& dir, const DiffArgs& a) {
  const model::Scenario sc = load_checked_scenario(dir);
  const ProtocolEntry& protocol = protocol_of(sc);
  const cx::CheckOutcome all = protocol.check(sc, request(a, a.properties));
  std::vector<PropertyDiff> out;
  const auto& props = all.result.properties;
  for (std::size_t i = 0; i < props.size(); ++i) {
    const std::string description = i < all.descriptions.size() ? all.descriptions[i] : "";
    Side side = side_of(all, i);
    // Not examined because another property failed first: check it on its own.
    if (side.verdict == checker::Verdict::Incomplete && all.result.violation &&
        stop_requested().empty()) {
      cx::CheckRequest again = request(a, {props[i].name});
      again.warn = nullptr;  // told once per version, above
      const cx::CheckOutcome one = protocol.check(sc, again);
      for (std::size_t k = 0; k < one.result.properties.size(); ++k)
        if (one.result.properties[k].name == props[i].name) side = side_of(one, k);
    }
    out.push_back({props[i].name, description, std::nullopt, std::move(side)});
  }
  return out;
}

std::vector<PropertyDiff> diff(const DiffArgs& a) {
  // Each version's verdicts arrive as new_side; the old ones move over.
  const auto old_props = check_version(a.old_dir, a);
  auto out = check_version(a.new_dir, a);
  const auto named = [](const std::vector<PropertyDiff>& list, const std::string& name) {
    return std::find_if(list.begin(), list.end(),
                        [&](const PropertyDiff& d) { return d.name == name; });
  };
  for (auto& d : out)
    if (auto it = named(old_props, d.name); it != old_props.end()) d.old_side = it->new_side;
  for (const auto& o : old_props)
    if (named(out, o.name) == out.end())
      out.push_back({o.name, o.description, o.new_side, std::nullopt});
  return out;
}

std::string verdict_text(const std::optional<Side>& s) {
  return s ? checker::to_string(s->verdict) : "-";
}

std::string render_text(const DiffArgs& a, const std::vector<PropertyDiff>& diffs) {
  std::string out = fmt::format("kmc diff {} {}\n\n", a.old_dir, a.new_dir);
  std::size_t width = 8;
  for (const auto& d : diffs) width = std::max(width, d.name.size());
  out += fmt::format("  {:<{}}  {:<10}  {:<10}  {}\n", "property", width, "old", "new", "change");
  for (const auto& d : diffs)
    out += fmt::format("  {:<{}}  {:<10}  {:<10}  {}\n", d.name, width, verdict_text(d.old_side),
                       verdict_text(d.new_side), d.change());
  int news = 0, fixed = 0;
  for (const auto& d : diffs) {
    fixed += d.change() == "fixed";
    if (d.change() != "new violation") continue;
    ++news;
    const Side& s = *d.new_side;
    out += fmt::format("\nNew violation of {} ({}).\n", d.name, d.description);
    if (!s.note.empty()) out += s.note + ".\n";
    if (s.violation && s.violation->trace) {
      out += "\n";
      out += cx::render_timeline(*s.violation->trace);
      if (!s.violation->token.empty())
        out += fmt::format("Replay: kmc check {} --replay {}\n", s.violation->token_dir(),
                           s.violation->token);
    }
  }
  for (const auto& d : diffs)
    if (d.change() == "undecided")
      out += fmt::format("\n{} is undecided in one version: {}\n", d.name,
                         d.new_side && d.new_side->verdict == checker::Verdict::Incomplete
                             ? d.new_side->note
                             : d.old_side->note);
  for (const auto& d : diffs)
    if (d.change() == "now vacuous")
      out += fmt::format("\n{} is vacuous in the new version: {}.\n", d.name, d.new_side->note);
  out += fmt::format("\nResult: {} new violation{}, {} fixed, {} propert{} compared\n", news,
                     news == 1 ? "" : "s", fixed, diffs.size(), diffs.size() == 1 ? "y" : "ies");
  return out;
}

nlohmann::json render_json(const DiffArgs& a, const std::vector<PropertyDiff>& diffs) {
  nlohmann::json props = nlohmann::json::array();
  for (const auto& d : diffs) {
    nlohmann::json p = {{"name", d.name},
                        {"description", d.description},
                        {"old", d.old_side ? nlohmann::json(verdict_text(d.old_side)) : nullptr},
                        {"new", d.new_side ? nlohmann::json(verdict_text(d.new_side)) : nullptr},
                        {"change", d.change()}};
    if (d.change() == "new violation" && d.new_side->violation) {
      const auto& v = *d.new_side->violation;
      p["detail"] = d.new_side->note;
      p["trace"] = v.trace ? cx::to_itf(*v.trace, v.token_dir(), v.token) : nlohmann::json();
      p["replay"] = v.token;
    }
    props.push_back(p);
  }
  return {{"old", a.old_dir}, {"new", a.new_dir}, {"properties", props}};
}

int run_diff(const DiffArgs& a) {
  choice_option("--output", a.output, {"text", "json"});
  request(a, {});  // every option read before any input
  const StopOnSignals signals;
  const auto diffs = diff(a);
  if (a.output == "json")
    std::cout << render_json(a, diffs).dump(2) << "\n";
  else
    std::cout << render_text(a, diffs);
  bool news = false, undecided = false;
  for (const auto& d : diffs) {
    news = news || d.change() == "new violation";
    undecided = undecided || (d.new_side && d.new_side->verdict == checker::Verdict::Incomplete);
  }
  return news ? 1 : undecided ? 2 : 0;
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand(
      "diff", "Check two versions of a scenario and report which verdicts the change turns");
  cmd->add_option("old", args->old_dir, "The scenario folder before the change")->required();
  cmd->add_option("new", args->new_dir, "The scenario folder after the change")->required();
  cmd->add_option("--property", args->properties, "Compare only this property (repeatable)");
  cmd->add_option("--time-limit", args->time_limit, "Seconds per check (Incomplete past it)");
  cmd->add_option("--max-memory", args->max_memory, "As kmc check --max-memory")
      ->option_text("SIZE");
  cmd->add_option("--threads", args->threads, "Worker threads per check");
  cmd->add_option("--output", args->output, "text or json");
  cmd->add_flag("--strict", args->strict, "As kmc check --strict, for both versions");
  cmd->callback([args, &exit_code] { exit_code = guarded([&] { return run_diff(*args); }); });
}

}  // namespace kmc::cli
