// `kmc matrix DIR`: the checker over every combination of the levers that
// kmc.yaml's `matrix:` section names, one row per combination and one
// column per property, each cell Verified, Violated (with its trace) or
// Incomplete. Markdown for pull requests and docs, JSON for programs.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/ci_report.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/protocols.hpp"
#include "cli/stop_signals.hpp"
#include "counterexamples/itf.hpp"
#include "counterexamples/multikueue/pipeline.hpp"
#include "counterexamples/timeline.hpp"
#include "invariants/multikueue_registry.hpp"
#include "model/scenario.hpp"
#include "protocols/multikueue.hpp"
#include "protocols/multikueue_levers.hpp"

namespace kmc::cli {

namespace {

struct MatrixArgs {
  std::string dir;
  std::vector<std::string> properties;
  std::string output = "markdown";
  std::string out_dir;
  std::string time_limit = "60";  // as given (cli/options.hpp)
  double time_limit_s = 60;       // as read
  std::optional<std::string> max_memory;
  std::optional<std::size_t> max_memory_bytes;  // as read; unset: kmc.yaml's, else the default
};

struct Cell {
  checker::Verdict verdict = checker::Verdict::Incomplete;
  std::string note;   // which bound, or which property a liveness run tripped first
  std::string trace;  // path of the ITF file, when written
  // For the CI formats: the violation's detail and story, the manifests it involves.
  std::string detail, story;
  std::vector<model::SourcePos> locations;
  double seconds = 0;
};

struct Row {
  std::vector<std::string> values;  // per lever
  std::vector<Cell> cells;          // per property
};

// Every property: the defaults, then the liveness ones (eventual admission,
// no endless retry), which a matrix of fixes is mostly about.
std::vector<std::string> columns(const MatrixArgs& a, const protocols::MultiKueue& mk) {
  if (!a.properties.empty()) return a.properties;
  auto names = invariants::default_properties(mk);
  for (const auto& prop : invariants::multikueue_properties(mk))
    if (model::is_liveness(prop.kind())) names.push_back(prop.name());
  return names;
}

// The row's lever values as kmc.yaml spells them, for the trace's #meta: enough
// to rebuild the cell's scenario and replay its trace.
nlohmann::json lever_meta(const std::vector<model::Lever>& levers,
                          const std::vector<std::string>& values) {
  nlohmann::json meta = nlohmann::json::object();
  for (std::size_t i = 0; i < levers.size(); ++i) meta[levers[i].name] = values[i];
  return meta;
}

// One cell: the pipeline with the row's levers applied to the scenario's
// parameters. Shrunk by actions and picks only: a cell's trace must replay
// against the scenario with the cell's levers, so no job or worker is left out.
Cell run_cell(const model::Scenario& sc, const cx::MkCompile& compile, const std::string& property,
              const MatrixArgs& a, const std::string& trace_name, const nlohmann::json& levers) {
  cx::CheckRequest req;
  req.properties = {property};
  req.max_depth = -1;
  req.time_limit_s = a.time_limit_s;
  req.max_memory_bytes = a.max_memory_bytes;
  req.stop = stop_requested;
  const auto o = cx::check_multikueue(sc, req, compile);
  const auto& r = o.result;
  Cell cell;
  cell.verdict = r.verdict;
  cell.note = r.incomplete_reason;
  cell.seconds = r.stats.seconds;
  if (r.violation) cell.detail = r.violation->detail;
  if (o.trace) {
    cell.story = cx::render_timeline(*o.trace);
    cell.locations = involved_objects(sc, *o.trace);
  }
  if (r.violation && r.violation->property != property)
    cell.note = r.violation->property;  // a stuck job, found first
  // The column's premise never holds, and nothing else failed: the cell says so (Vacuous), and
  // the CI formats give the sentence why. A stuck job found first still makes the cell Violated.
  for (const auto& p : r.properties)
    if (p.name == property && p.verdict == checker::Verdict::Vacuous && !r.violation) {
      cell.verdict = p.verdict;
      cell.detail = checker::why(p.verdict);
    }
  if (o.trace && !a.out_dir.empty()) {
    cell.trace = (std::filesystem::path(a.out_dir) / (trace_name + ".itf.json")).string();
    auto itf = cx::to_itf(*o.trace, o.token_dir(), o.token);
    itf["#meta"]["levers"] = levers;
    std::ofstream(cell.trace) << cx::itf_text(itf) << "\n";
  }
  return cell;
}

std::string cell_text(const Cell& c) {
  std::string text = checker::to_string(c.verdict);
  if (!c.note.empty()) text += " (" + c.note + ")";
  if (!c.trace.empty()) text += fmt::format(" [trace]({})", c.trace);
  return text;
}

void print_markdown(const std::vector<model::Lever>& levers, const std::vector<std::string>& cols,
                    const std::vector<Row>& rows) {
  std::vector<std::string> head;
  for (const auto& l : levers) head.push_back(l.name);
  head.insert(head.end(), cols.begin(), cols.end());
  std::string rule = "|";
  for (std::size_t i = 0; i < head.size(); ++i) rule += "---|";
  fmt::print("| {} |\n{}\n", fmt::join(head, " | "), rule);
  for (const auto& row : rows) {
    std::vector<std::string> cells = row.values;
    for (const auto& c : row.cells) cells.push_back(cell_text(c));
    fmt::print("| {} |\n", fmt::join(cells, " | "));
  }
}

nlohmann::json to_json(const std::vector<model::Lever>& levers,
                       const std::vector<std::string>& cols, const std::vector<Row>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json r;
    for (std::size_t i = 0; i < levers.size(); ++i) r["levers"][levers[i].name] = row.values[i];
    for (std::size_t i = 0; i < cols.size(); ++i)
      r["properties"][cols[i]] = {{"verdict", checker::to_string(row.cells[i].verdict)},
                                  {"note", row.cells[i].note},
                                  {"trace", row.cells[i].trace}};
    out.push_back(r);
  }
  return out;
}

// A testcase per cell, grouped by row: CI shows which combination of fixes leaves which property
// violated.
std::vector<CiCase> ci_cases(const model::Scenario& sc, const std::vector<model::Lever>& levers,
                             const std::vector<std::string>& cols, const std::vector<Row>& rows) {
  std::vector<CiCase> cases;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < levers.size(); ++i)
      values.push_back(levers[i].name + "=" + rows[r].values[i]);
    for (std::size_t k = 0; k < cols.size(); ++k) {
      const Cell& cell = rows[r].cells[k];
      CiCase c;
      c.group = fmt::format("{} row {}: {}", sc.dir, r + 1, fmt::join(values, ", "));
      c.name = c.rule = cols[k];
      c.verdict = cell.verdict;
      c.seconds = cell.seconds;
      c.message = cell.verdict == checker::Verdict::Incomplete
                      ? (cell.note.starts_with("not run") ? cell.note : "stopped by " + cell.note)
                      : (cell.detail.empty() ? cell.note : cell.detail);
      c.story = cell.story;
      if (!cell.trace.empty()) c.story += "\nTrace: " + cell.trace + "\n";
      c.locations = cell.locations;
      if (c.locations.empty() && c.verdict != checker::Verdict::Verified)
        c.locations = {sc.fleet.pos};
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

int run_matrix(const MatrixArgs& given) {
  MatrixArgs a = given;
  choice_option("--output", a.output, {"markdown", "json", "junit", "sarif"});
  a.time_limit_s = seconds_option("--time-limit", a.time_limit);
  a.max_memory_bytes = memory_option("--max-memory", a.max_memory);
  // SIGINT and SIGTERM stop the cell that is running; the cells not run yet say so.
  const StopOnSignals signals;
  const auto start = std::chrono::steady_clock::now();
  const model::Scenario sc = load_checked_scenario(a.dir);
  // Matrix levers are MultiKueue's (protocols/multikueue_levers.hpp).
  if (protocol_of(sc).name != "multikueue")
    throw model::InputError(sc.fleet.protocol_pos, "protocol",
                            "kmc matrix turns MultiKueue's levers; it does not run protocol " +
                                sc.fleet.protocol + " yet (use kmc check with options.variant)");
  const auto base = protocols::compile_multikueue(sc);
  const auto& levers = sc.fleet.matrix;
  if (levers.empty())
    throw model::InputError(sc.fleet.pos, "matrix",
                            "kmc matrix needs a matrix: section naming the levers to turn");
  for (const auto& l : levers)
    for (const auto& v : l.values) {
      auto probe = base;
      protocols::apply_lever(probe, l, v);  // every value is checked before any run
    }
  if (!a.out_dir.empty()) std::filesystem::create_directories(a.out_dir);
  std::vector<std::size_t> pick(levers.size(), 0);
  std::vector<Row> rows;
  std::vector<std::string> cols;
  for (bool more = true; more;) {
    Row row;
    for (std::size_t i = 0; i < levers.size(); ++i) row.values.push_back(levers[i].values[pick[i]]);
    const auto compile = [&levers, values = row.values](const model::Scenario& s) {
      auto params = protocols::compile_multikueue(s);
      for (std::size_t i = 0; i < levers.size(); ++i)
        protocols::apply_lever(params, levers[i], values[i]);
      return params;
    };
    const protocols::MultiKueue mk(compile(sc));
    if (cols.empty()) {
      cols = columns(a, mk);
      invariants::require_known_properties(mk, cols, {}, "--property");
    }
    for (const auto& prop : cols) {
      if (const std::string stop = stop_requested(); !stop.empty()) {
        Cell not_run;
        not_run.note = "not run: " + stop;
        row.cells.push_back(std::move(not_run));
        continue;
      }
      fmt::print(stderr, "row {}: {} ...\n", rows.size() + 1, prop);
      row.cells.push_back(run_cell(sc, compile, prop, a,
                                   fmt::format("row{}-{}", rows.size() + 1, prop),
                                   lever_meta(levers, row.values)));
    }
    rows.push_back(std::move(row));
    more = false;  // odometer: the last lever turns fastest
    for (std::size_t i = levers.size(); i-- > 0;) {
      if (++pick[i] < levers[i].values.size()) {
        more = true;
        break;
      }
      pick[i] = 0;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.output == "junit") {
    std::cout << to_junit("kmc matrix " + a.dir, ci_cases(sc, levers, cols, rows));
  } else if (a.output == "sarif") {
    std::cout << to_sarif(ci_cases(sc, levers, cols, rows)).dump(2) << "\n";
  } else if (a.output == "json") {
    std::cout << nlohmann::json{{"scenario", a.dir},
                                {"rows", to_json(levers, cols, rows)},
                                {"seconds", seconds}}
                     .dump(2)
              << "\n";
  } else {
    print_markdown(levers, cols, rows);
    fmt::print("\n{} combinations x {} properties in {:.1f} s.\n", rows.size(), cols.size(),
               seconds);
  }
  bool violated = false, incomplete = false;
  for (const auto& row : rows)
    for (const auto& c : row.cells) {
      violated = violated || c.verdict == checker::Verdict::Violated;
      incomplete = incomplete || c.verdict == checker::Verdict::Incomplete;
    }
  return violated ? 1 : incomplete ? 2 : 0;
}

}  // namespace

void add_matrix_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MatrixArgs>();
  auto* cmd = app.add_subcommand("matrix",
                                 "Check every combination of the levers kmc.yaml's matrix: names");
  cmd->add_option("dir", args->dir, "Scenario folder with a matrix: section in kmc.yaml")
      ->required();
  cmd->add_option("--property", args->properties, "Columns (repeatable); default: every property");
  cmd->add_option("--output", args->output, "markdown, json, junit (a testcase per cell) or sarif");
  cmd->add_option("--out", args->out_dir, "Write each violation's ITF trace into this folder");
  cmd->add_option("--time-limit", args->time_limit, "Seconds per cell (Incomplete past it)");
  cmd->add_option("--max-memory", args->max_memory,
                  "Stop a cell when resident memory reaches SIZE (as kmc check --max-memory)")
      ->option_text("SIZE");
  cmd->callback([args, &exit_code] { exit_code = guarded([&] { return run_matrix(*args); }); });
}

}  // namespace kmc::cli
