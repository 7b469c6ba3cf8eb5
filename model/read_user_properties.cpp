// kmc.yaml's `properties:`: the user's own always, sometimes and leadsTo
// properties, as text with where each expression starts. They compile
// against a protocol's layout when a check builds its instance
// (model/user_properties.hpp), where a field, entity or value name can be
// checked; here only their shape is.
#include <fmt/format.h>

#include <set>

#include "model/fleet.hpp"
#include "model/manifest_readers.hpp"
#include "model/yaml_node.hpp"

namespace kmc::model {

namespace {

ExpressionSpec expression(const YamlNode& node) {
  ExpressionSpec e;
  e.text = node.str();
  if (e.text.find_first_not_of(" \t\n") == std::string::npos) node.fail("must not be empty");
  const YAML::Mark mark = node.raw().Mark();
  e.pos = {node.file(), mark.is_null() ? node.line() : mark.line + 1};
  // A quoted scalar's text starts after its quote; yaml-cpp tags quoted scalars "!".
  if (!mark.is_null()) e.column = mark.column + 1 + (node.raw().Tag() == "!" ? 1 : 0);
  return e;
}

}  // namespace

std::vector<UserPropertySpec> read_user_properties(const YamlNode& list) {
  std::vector<UserPropertySpec> out;
  std::set<std::string> names;
  Warnings unused;
  for (const auto& item : list.items()) {
    check_keys(item, {.modeled = {"name", "description", "always", "sometimes", "leadsTo"}},
               unused);
    UserPropertySpec p;
    p.pos = item.pos();
    const YamlNode name = require(item, "name");
    p.name = name.str();
    if (p.name.empty() ||
        p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
      name.fail(
          "a property name is lower-case letters, digits and '-' (it is typed after "
          "--property)");
    if (!names.insert(p.name).second)
      name.fail(fmt::format("property '{}' is defined twice", p.name));
    if (item["description"].present()) p.description = item["description"].str();
    int kinds = 0;
    if (item["always"].present()) {
      ++kinds, p.kind = UserPropertySpec::Kind::Always, p.holds = expression(item["always"]);
    }
    if (item["sometimes"].present()) {
      ++kinds, p.kind = UserPropertySpec::Kind::Sometimes, p.holds = expression(item["sometimes"]);
    }
    if (item["leadsTo"].present()) {
      ++kinds, p.kind = UserPropertySpec::Kind::LeadsTo;
      const YamlNode lt = item["leadsTo"];
      check_keys(lt, {.modeled = {"from", "to", "each"}}, unused);
      p.premise = expression(require(lt, "from"));
      p.goal = expression(require(lt, "to"));
      if (lt["each"].present()) {
        // "j: job": a variable the premise and goal share, one subject per entity of the axis.
        const std::string each = lt["each"].str();
        const auto colon = each.find(':');
        const auto trim = [](std::string s) {
          s.erase(0, s.find_first_not_of(" \t"));
          s.erase(s.find_last_not_of(" \t") + 1);
          return s;
        };
        if (colon == std::string::npos || trim(each.substr(0, colon)).empty() ||
            trim(each.substr(colon + 1)).empty())
          lt["each"].fail("write VARIABLE: AXIS, e.g. \"j: job\"");
        p.each_var = trim(each.substr(0, colon));
        p.each_axis = trim(each.substr(colon + 1));
        p.each_pos = lt["each"].pos();
      }
    }
    if (kinds != 1)
      item.fail(
          "a property is exactly one of always: CONDITION, sometimes: CONDITION, leadsTo: "
          "{from: CONDITION, to: CONDITION, each: \"j: job\"}");
    if (p.description.empty())
      p.description = p.kind == UserPropertySpec::Kind::LeadsTo
                          ? fmt::format("{} leads to {}", p.premise.text, p.goal.text)
                          : p.holds.text;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace kmc::model
