// A recursive-descent parser for model/expression.hpp's language, resolving
// names against the layout as it goes, so every error points at the token
// that caused it.
#include "model/expression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include <utility>

#include "model/diagnostics.hpp"

namespace kmc::model {

namespace {

struct Token {
  enum Kind { End, Int, Ident, String, Punct } kind = End;
  std::string text;
  std::int64_t value = 0;
  int offset = 0;
};

class Parser {
 public:
  Parser(const std::string& text, const TextPos& where, std::string field, const Layout& layout,
         const std::vector<std::pair<std::string, int>>& bound)
      : text_(text), where_(where), field_(std::move(field)), layout_(layout) {
    tokenize();
    for (const auto& [name, axis] : bound) bind(name, axis, 0);
  }

  Compiled parse() {
    Expr e = implies();
    if (peek().kind != Token::End) fail(peek().offset, "unexpected '" + peek().text + "'");
    if (e.op == Expr::Op::Name)  // a name means something only compared with a cell
      fail(e.offset, fmt::format("'{}' is not a field, a bound variable or a number", e.name));
    const bool boolean = is_bool(e);
    return {std::make_shared<const Expr>(std::move(e)), slots_, boolean};
  }

  [[noreturn]] void fail(int offset, const std::string& message) const {
    // Line and column of `offset`, counting the newlines of a multi-line expression.
    int line = where_.pos.line, column = where_.column;
    int start = 0;
    for (int i = 0; i < offset && i < static_cast<int>(text_.size()); ++i)
      if (text_[i] == '\n') ++line, start = i + 1;
    column = line == where_.pos.line && column > 0 ? column + offset : offset - start + 1;
    throw InputError({where_.pos.file, line}, field_,
                     fmt::format("column {}: {} (in \"{}\")", column, message, text_));
  }

 private:
  // ---- tokens
  void tokenize() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.offset = static_cast<int>(i);
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t j = i;
        while (j < text_.size() && std::isdigit(static_cast<unsigned char>(text_[j]))) ++j;
        t.kind = Token::Int;
        t.text = text_.substr(i, j - i);
        if (t.text.size() > 18) fail(t.offset, "number too large");
        t.value = std::stoll(t.text);
        i = j;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[j])) ||
                                    text_[j] == '_' || text_[j] == '-' || text_[j] == '/' ||
                                    (text_[j] == '.' && j + 1 < text_.size() &&
                                     std::isalnum(static_cast<unsigned char>(text_[j + 1])))))
          ++j;
        t.kind = Token::Ident;
        t.text = text_.substr(i, j - i);
        i = j;
      } else if (c == '"' || c == '\'') {
        const std::size_t close = text_.find(c, i + 1);
        if (close == std::string::npos) fail(t.offset, "unterminated string");
        t.kind = Token::String;
        t.text = text_.substr(i + 1, close - i - 1);
        i = close + 1;
      } else {
        static const char* two[] = {"==", "!=", "<=", ">=", "&&", "||", "=>"};
        t.kind = Token::Punct;
        t.text = std::string(1, c);
        for (const char* op : two)
          if (text_.compare(i, 2, op) == 0) t.text = op;
        if (std::string("()[]{},.:<>!+-").find(c) == std::string::npos && t.text.size() == 1)
          fail(t.offset, fmt::format("unexpected character '{}'", c));
        i += t.text.size();
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.offset = static_cast<int>(text_.size());
    end.text = "end of expression";
    tokens_.push_back(end);
  }
  const Token& peek() const { return tokens_[at_]; }
  Token next() { return tokens_[at_ == tokens_.size() - 1 ? at_ : at_++]; }
  bool accept(const std::string& punct_or_word) {
    const Token& t = peek();
    if ((t.kind == Token::Punct || t.kind == Token::Ident) && t.text == punct_or_word) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(const std::string& punct) {
    if (!accept(punct))
      fail(peek().offset, fmt::format("expected '{}', found '{}'", punct, peek().text));
  }

  // ---- types
  static bool is_bool(const Expr& e) {
    switch (e.op) {
      case Expr::Op::Int:
      case Expr::Op::Cell:
      case Expr::Op::Name:
      case Expr::Op::Var:
      case Expr::Op::Add:
      case Expr::Op::Sub:
      case Expr::Op::Count:
      case Expr::Op::Sum:
        return false;
      default:
        return true;
    }
  }
  Expr condition(Expr e) const {
    if (!is_bool(e)) fail(e.offset, "expected a condition, found a number or a name");
    return e;
  }
  Expr number(Expr e) const {
    if (is_bool(e)) fail(e.offset, "expected a number, found a condition");
    if (e.op == Expr::Op::Name)
      fail(e.offset, fmt::format("'{}' is a name: compare it with a cell (== or in)", e.name));
    return e;
  }

  // ---- grammar, loosest first
  // Nesting is recursion: bound it, so a hostile "((((..." is an error, not a stack overflow.
  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(p.peek().offset, fmt::format("nested more than {} deep", kMaxNesting));
    }
    ~Nest() { --p.depth_; }
  };
  static constexpr int kMaxNesting = 200;

  Expr implies() {
    const Nest nest(*this);
    Expr left = disjunction();
    if (peek().text == "=>" && peek().kind == Token::Punct) {
      const int off = next().offset;
      Expr right = implies();
      return binary(Expr::Op::Implies, condition(std::move(left)), condition(std::move(right)),
                    off);
    }
    return left;
  }
  Expr disjunction() {
    Expr left = conjunction();
    while (peek().text == "||" || (peek().kind == Token::Ident && peek().text == "or")) {
      const int off = next().offset;
      left = binary(Expr::Op::Or, condition(std::move(left)), condition(conjunction()), off);
    }
    return left;
  }
  Expr conjunction() {
    Expr left = negation();
    while (peek().text == "&&" || (peek().kind == Token::Ident && peek().text == "and")) {
      const int off = next().offset;
      left = binary(Expr::Op::And, condition(std::move(left)), condition(negation()), off);
    }
    return left;
  }
  Expr negation() {
    const Nest nest(*this);
    if ((peek().kind == Token::Punct && peek().text == "!") ||
        (peek().kind == Token::Ident && peek().text == "not")) {
      Expr e;
      e.op = Expr::Op::Not;
      e.offset = next().offset;
      e.kids.push_back(condition(negation()));
      return e;
    }
    for (auto [word, op] : {std::pair{"all", Expr::Op::All}, std::pair{"some", Expr::Op::Some},
                            std::pair{"no", Expr::Op::No}})
      if (peek().kind == Token::Ident && peek().text == word && is_quantifier())
        return quantifier(op, true);
    return comparison();
  }
  // "all j: job." rather than a cell or name called `all`.
  bool is_quantifier() const {
    return at_ + 2 < tokens_.size() && tokens_[at_ + 1].kind == Token::Ident &&
           tokens_[at_ + 2].text == ":";
  }
  Expr quantifier(Expr::Op op, bool body_is_condition) {
    Expr e;
    e.op = op;
    e.offset = next().offset;
    const Token var = next();
    expect(":");
    const Token axis = next();
    const int a = layout_.axis(axis.text);
    if (a < 0) fail(axis.offset, fmt::format("no axis '{}'; axes are {}", axis.text, axis_names()));
    if (layout_.axes[a].parent >= 0)
      fail(axis.offset, fmt::format("'{}' depends on '{}': name its entities instead of "
                                    "quantifying over them",
                                    axis.text, layout_.axes[layout_.axes[a].parent].name));
    expect(".");
    const auto saved = scope_;
    e.var = bind(var.text, a, var.offset);
    e.axis = a;
    Expr body = implies();
    e.kids.push_back(body_is_condition ? condition(std::move(body)) : number(std::move(body)));
    scope_ = saved;
    return e;
  }
  Expr comparison() {
    Expr left = additive();
    static const std::pair<const char*, Expr::Op> ops[] = {
        {"==", Expr::Op::Eq}, {"!=", Expr::Op::Ne}, {"<=", Expr::Op::Le},
        {">=", Expr::Op::Ge}, {"<", Expr::Op::Lt},  {">", Expr::Op::Gt}};
    if (peek().kind == Token::Punct)
      for (const auto& [text, op] : ops)
        if (peek().text == text) {
          const int off = next().offset;
          Expr right = additive();
          return compare(op, std::move(left), std::move(right), off);
        }
    if (peek().kind == Token::Ident && peek().text == "in") {
      const int off = next().offset;
      Expr e;
      e.op = Expr::Op::In;
      e.offset = off;
      e.kids.push_back(number(std::move(left)));  // a name's meaning comes from a cell
      expect("{");
      do {
        e.kids.push_back(resolve_against(e.kids.front(), primary()));
      } while (accept(","));
      expect("}");
      return e;
    }
    return left;
  }
  Expr additive() {
    Expr left = primary();
    while (peek().kind == Token::Punct && (peek().text == "+" || peek().text == "-")) {
      const Token op = next();
      left = binary(op.text == "+" ? Expr::Op::Add : Expr::Op::Sub, number(std::move(left)),
                    number(primary()), op.offset);
    }
    return left;
  }
  Expr primary() {
    const Token t = peek();
    if (t.kind == Token::Int) {
      next();
      Expr e;
      e.op = Expr::Op::Int;
      e.value = t.value;
      e.offset = t.offset;
      return e;
    }
    if (t.kind == Token::Punct && t.text == "-") {  // a negative number: -1 is "unlimited"
      next();
      Expr e = primary();
      if (e.op != Expr::Op::Int) fail(t.offset, "'-' before a number only");
      e.value = -e.value;
      e.offset = t.offset;
      return e;
    }
    if (t.kind == Token::Punct && t.text == "(") {
      next();
      Expr e = implies();
      expect(")");
      return e;
    }
    if (t.kind == Token::Ident && (t.text == "count" || t.text == "sum") && is_quantifier())
      return quantifier(t.text == "count" ? Expr::Op::Count : Expr::Op::Sum, t.text == "count");
    if (t.kind == Token::String) {
      next();
      Expr e;
      e.op = Expr::Op::Name;
      e.name = t.text;
      e.offset = t.offset;
      return e;
    }
    if (t.kind == Token::Ident && scope_.count(t.text)) {
      next();
      Expr e;
      e.op = Expr::Op::Var;
      std::tie(e.var, e.axis) = scope_.at(t.text);
      e.offset = t.offset;
      return e;
    }
    if (t.kind == Token::Ident) {
      next();
      for (std::size_t f = 0; f < layout_.fields.size(); ++f)
        if (layout_.fields[f].name == t.text) return cell(static_cast<int>(f), t.offset);
      if (peek().kind == Token::Punct && peek().text == "[") {
        std::vector<std::string> names;
        for (const auto& f : layout_.fields) names.push_back(f.name);
        fail(t.offset, fmt::format("no field '{}'; fields are {}", t.text, fmt::join(names, ", ")));
      }
      Expr e;
      e.op = Expr::Op::Name;
      e.name = t.text;
      e.offset = t.offset;
      return e;
    }
    fail(t.offset, fmt::format("expected a number, a cell or '(', found '{}'", t.text));
  }
  Expr cell(int f, int offset) {
    const Field& field = layout_.fields[f];
    Expr e;
    e.op = Expr::Op::Cell;
    e.field = f;
    e.offset = offset;
    if (field.axes.empty()) return e;
    expect("[");
    const auto arity = [&] {
      fail(peek().offset,
           fmt::format("{} takes {} argument{} ({}), found '{}'", field.name, field.axes.size(),
                       field.axes.size() == 1 ? "" : "s", axes_of(field), peek().text));
    };
    for (std::size_t k = 0; k < field.axes.size(); ++k) {
      if (k > 0 && !accept(",")) arity();
      const Token arg = next();
      const Axis& axis = layout_.axes[field.axes[k]];
      CellArg a;
      if (arg.kind == Token::Ident && scope_.count(arg.text)) {
        const auto& [slot, var_axis] = scope_.at(arg.text);
        if (var_axis != field.axes[k])
          fail(arg.offset,
               fmt::format("'{}' ranges over {}, but {}'s argument {} is a {}", arg.text,
                           layout_.axes[var_axis].name, field.name, k + 1, axis.name));
        a.var = slot;
      } else if (arg.kind == Token::Ident || arg.kind == Token::String) {
        if (axis.parent >= 0) {
          bool anywhere = false;
          for (const auto& labels : axis.labels_of)
            anywhere =
                anywhere || std::find(labels.begin(), labels.end(), arg.text) != labels.end();
          if (!anywhere)
            fail(arg.offset, fmt::format("no {} '{}' in this scenario", axis.name, arg.text));
          a.name = arg.text;
        } else {
          const auto it = std::find(axis.labels.begin(), axis.labels.end(), arg.text);
          if (it == axis.labels.end())
            fail(arg.offset, fmt::format("no {} '{}' in this scenario; there are: {}", axis.name,
                                         arg.text, fmt::join(axis.labels, ", ")));
          a.index = static_cast<int>(it - axis.labels.begin());
        }
      } else {
        fail(arg.offset, fmt::format("expected a {} (a name or a bound variable), found '{}'",
                                     axis.name, arg.text));
      }
      e.args.push_back(std::move(a));
    }
    if (!accept("]"))
      fail(peek().offset,
           fmt::format("{} takes {} argument{} ({}), found '{}'", field.name, field.axes.size(),
                       field.axes.size() == 1 ? "" : "s", axes_of(field), peek().text));
    return e;
  }

  Expr compare(Expr::Op op, Expr left, Expr right, int offset) {
    if (right.op == Expr::Op::Name) right = resolve_against(left, std::move(right));
    if (left.op == Expr::Op::Name) left = resolve_against(right, std::move(left));
    if ((left.op == Expr::Op::Name || right.op == Expr::Op::Name) && op != Expr::Op::Eq &&
        op != Expr::Op::Ne)
      fail(offset, "names compare with == and != only");
    return binary(op, number_or_cell(std::move(left)), number_or_cell(std::move(right)), offset);
  }
  Expr number_or_cell(Expr e) const {
    if (e.op == Expr::Op::Name) return e;  // resolved in compare/resolve_against
    return number(std::move(e));
  }
  // A name compared with `against`: an enum value becomes its number; an entity of an independent
  // axis its index; of a dependent axis it stays a name, resolved when evaluated.
  Expr resolve_against(const Expr& against, Expr name) const {
    if (name.op != Expr::Op::Name) return number(std::move(name));
    if (against.op != Expr::Op::Cell)
      fail(name.offset, fmt::format("'{}' is not a field, a bound variable or a number; compare a "
                                    "name with a cell",
                                    name.name));
    const Field& f = layout_.fields[against.field];
    if (f.kind == FieldKind::Enum) {
      const auto it = std::find(f.names.begin(), f.names.end(), name.name);
      if (it == f.names.end())
        fail(name.offset, fmt::format("{} is never '{}'; its values are {}", f.name, name.name,
                                      fmt::join(f.names, ", ")));
      name.op = Expr::Op::Int;
      name.value = f.lo + (it - f.names.begin());
      return name;
    }
    if (f.kind == FieldKind::Index) {
      const Axis& axis = layout_.axes[f.index_axis];
      if (name.name == "none") {
        name.op = Expr::Op::Int;
        name.value = -1;
        return name;
      }
      if (axis.parent < 0) {
        const auto it = std::find(axis.labels.begin(), axis.labels.end(), name.name);
        if (it == axis.labels.end())
          fail(name.offset, fmt::format("no {} '{}' in this scenario; there are: {}", axis.name,
                                        name.name, fmt::join(axis.labels, ", ")));
        name.op = Expr::Op::Int;
        name.value = it - axis.labels.begin();
        return name;
      }
      bool anywhere = false;
      for (const auto& labels : axis.labels_of)
        anywhere = anywhere || std::find(labels.begin(), labels.end(), name.name) != labels.end();
      if (!anywhere)
        fail(name.offset, fmt::format("no {} '{}' in this scenario", axis.name, name.name));
      name.field = against.field;  // resolved under the cell's parent entity when evaluated
      return name;
    }
    fail(name.offset, fmt::format("{} holds numbers, not names like '{}'", f.name, name.name));
  }

  static Expr binary(Expr::Op op, Expr a, Expr b, int offset) {
    Expr e;
    e.op = op;
    e.offset = offset;
    e.kids.push_back(std::move(a));
    e.kids.push_back(std::move(b));
    return e;
  }

  int bind(const std::string& name, int axis, int offset) {
    for (const auto& f : layout_.fields)
      if (f.name == name)
        fail(offset, fmt::format("'{}' names a field; choose another variable", name));
    scope_[name] = {slots_, axis};
    return slots_++;
  }
  std::string axis_names() const {
    std::vector<std::string> names;
    for (const auto& a : layout_.axes)
      if (a.parent < 0) names.push_back(a.name);
    return fmt::format("{}", fmt::join(names, ", "));
  }
  std::string axes_of(const Field& f) const {
    std::vector<std::string> names;
    for (int a : f.axes) names.push_back(layout_.axes[a].name);
    return fmt::format("{}", fmt::join(names, ", "));
  }

  const std::string& text_;
  TextPos where_;
  std::string field_;
  const Layout& layout_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  std::map<std::string, std::pair<int, int>> scope_;  // variable -> (slot, axis)
  int slots_ = 0;
  int depth_ = 0;
};

}  // namespace

Compiled compile_expression(const std::string& text, const TextPos& where, const std::string& field,
                            const Layout& layout,
                            const std::vector<std::pair<std::string, int>>& bound) {
  Parser parser(text, where, field, layout, bound);
  return parser.parse();
}

}  // namespace kmc::model
