#include "checker/result.hpp"

namespace kmc::checker {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Verified:
      return "Verified";
    case Verdict::Violated:
      return "Violated";
    case Verdict::Incomplete:
      return "Incomplete";
    case Verdict::Vacuous:
      return "Vacuous";
  }
  return "?";
}

const char* why(Verdict v) {
  switch (v) {
    case Verdict::Vacuous:
      return "the premise never holds, so the property says nothing";
    case Verdict::Verified:
    case Verdict::Violated:
    case Verdict::Incomplete:
      return "";
  }
  return "";
}

const char* to_string(Shape s) {
  switch (s) {
    case Shape::Reached:
      return "reached";
    case Shape::Unwitnessed:
      return "unwitnessed";
    case Shape::Stuck:
      return "stuck";
    case Shape::Stutter:
      return "stutter";
    case Shape::Loop:
      return "loop";
  }
  return "?";
}

std::string story(Shape s, model::PropertyKind kind) {
  switch (s) {
    case Shape::Reached:
      return "";
    case Shape::Unwitnessed:
      return "no reachable state satisfies it";
    case Shape::Stuck:
      return "";
    case Shape::Stutter:
      return "the behaviour stops for good where no fairly scheduled action is enabled";
    case Shape::Loop:
      return kind == model::PropertyKind::RecurrenceFree
                 ? "the behaviour loops forever, fairly, repeating the step while the premise holds"
                 : "the behaviour loops forever, fairly, without reaching the goal";
  }
  return "";
}

Shape lasso_shape(std::size_t loop, std::size_t steps) {
  return loop == steps ? Shape::Stutter : Shape::Loop;
}

}  // namespace kmc::checker
