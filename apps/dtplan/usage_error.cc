#include "usage_error.h"

#include <iostream>
#include <optional>
#include <vector>

#include "core/strings.h"

namespace dtplan::cli {

namespace {

// The subcommand being parsed when the error came, or nullptr.
const CLI::App* parsed_subcommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->parsed()) return sub;
  }
  return nullptr;
}

// "--shap: unknown flag; did you mean '--shape'?" or "'word': unexpected argument".
std::string extras_message(const CLI::App& where) {
  const std::vector<std::string> extras = where.remaining();
  if (extras.empty()) return "unexpected arguments";
  const std::string& extra = extras.front();
  if (!extra.starts_with("-")) return "'" + extra + "': unexpected argument";
  const std::string flag = extra.substr(0, extra.find('='));
  std::vector<std::string> longs;
  for (const CLI::Option* opt : where.get_options()) {
    for (const auto& n : opt->get_lnames()) longs.push_back("--" + n);
  }
  std::string message = flag + ": unknown flag";
  if (auto near = core::closest_name(flag, longs)) {
    return message + "; did you mean '" + *near + "'?";
  }
  return message + " (--help lists the flags)";
}

// "<name>: <rest>" when `text` starts with a flag name followed by `separator`.
std::optional<std::string> flag_first(const std::string& text, const std::string& separator,
                                      const std::string& rest_prefix = "") {
  if (!text.starts_with("-")) return std::nullopt;
  const std::size_t at = text.find(separator);
  if (at == std::string::npos) return std::nullopt;
  return text.substr(0, at) + ": " + rest_prefix + text.substr(at + separator.size());
}

// Whether `error` is an E. By type: CLI11 sets get_name() to the subcommand's name for some.
template <class E>
bool is(const CLI::ParseError& error) {
  return dynamic_cast<const E*>(&error) != nullptr;
}

// CLI11's message for an error it raised on its own, rephrased to start with the flag.
std::string rephrase(const CLI::ParseError& error) {
  const std::string text = error.what();
  if (is<CLI::RequiredError>(error)) {
    if (text == "A subcommand is required") {
      return "a command is required; 'dtplan --help' lists them";
    }
    if (text.ends_with(" is required")) return text.substr(0, text.size() - 12) + ": required";
  }
  // "--x: 1 required TEXT missing"
  if (is<CLI::ArgumentMismatch>(error) && text.starts_with("-") && text.ends_with(" missing")) {
    return text.substr(0, text.find(": ")) + ": missing its value";
  }
  if (is<CLI::ConversionError>(error)) {  // "Could not convert: --x = y"
    const std::string prefix = "Could not convert: ";
    if (text.starts_with(prefix)) {
      const std::string rest = text.substr(prefix.size());
      const std::size_t eq = rest.find(" = ");
      if (eq != std::string::npos) {
        return rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a valid value";
      }
    }
  }
  if (is<CLI::ExcludesError>(error)) {
    if (auto m = flag_first(text, " excludes ", "cannot be combined with ")) return *m;
  }
  if (is<CLI::RequiresError>(error)) {
    if (auto m = flag_first(text, " requires ", "requires ")) return *m;
  }
  return text;
}

}  // namespace

std::string usage_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* sub = parsed_subcommand(app);
  return core::escape_controls(is<CLI::ExtrasError>(error) ? extras_message(sub ? *sub : app)
                                                           : rephrase(error));
}

int report_usage_error(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* sub = parsed_subcommand(app);
  const std::string command = sub ? "dtplan " + sub->get_name() : std::string("dtplan");
  std::cerr << command << ": error: " << usage_error_message(app, error) << "\n";
  return 2;
}

}  // namespace dtplan::cli
