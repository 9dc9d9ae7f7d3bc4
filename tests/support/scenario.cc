#include "support/scenario.h"

#include <algorithm>

namespace dtplan::testing {

namespace {

using Json = nlohmann::json;

core::Error bad(const std::string& source, const std::string& what) {
  return core::Error::bad_input(source + ": " + what);
}

core::Result<std::vector<std::string>> string_list(const Json& v, const std::string& source,
                                                   const std::string& field) {
  if (!v.is_array()) return bad(source, "field '" + field + "': expected a list of strings");
  std::vector<std::string> out;
  for (const Json& s : v) {
    if (!s.is_string()) return bad(source, "field '" + field + "': expected a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// The values at a JSON pointer whose segments may be "*" (every element of an array or every
// value of an object). Missing paths give no values.
void resolve(const Json& doc, const std::vector<std::string>& segments, std::size_t i,
             std::vector<const Json*>& out) {
  if (i == segments.size()) {
    out.push_back(&doc);
    return;
  }
  const std::string& s = segments[i];
  if (s == "*") {
    if (doc.is_array() || doc.is_object()) {
      for (const Json& child : doc) resolve(child, segments, i + 1, out);
    }
    return;
  }
  if (doc.is_object()) {
    auto it = doc.find(s);
    if (it != doc.end()) resolve(*it, segments, i + 1, out);
  } else if (doc.is_array()) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return;
    const std::size_t k = std::stoul(s);
    if (k < doc.size()) resolve(doc[k], segments, i + 1, out);
  }
}

std::vector<std::string> split_pointer(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 1;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    std::string seg = path.substr(i, j - i);
    for (std::size_t p = 0; (p = seg.find('~', p)) != std::string::npos; ++p) {
      seg.replace(p, 2, seg.compare(p, 2, "~1") == 0 ? "/" : "~");
    }
    out.push_back(seg);
    i = j + 1;
  }
  return out;
}

std::string check_one(const Json& v, const std::string& op, const Json& want) {
  if (op == "equals") {
    return v == want ? "" : v.dump() + ", expected " + want.dump();
  }
  if (op == "size") {
    if (!v.is_array() && !v.is_object() && !v.is_string()) return v.dump() + " has no size";
    const std::size_t n = v.is_string() ? v.get<std::string>().size() : v.size();
    return n == want.get<std::size_t>() ? ""
                                        : "size " + std::to_string(n) + ", expected " + want.dump();
  }
  if (op == "min" || op == "max") {
    if (!v.is_number()) return v.dump() + " is not a number";
    const double x = v.get<double>();
    const double bound = want.get<double>();
    const bool ok = op == "min" ? x >= bound : x <= bound;
    return ok ? "" : v.dump() + ", expected " + (op == "min" ? ">= " : "<= ") + want.dump();
  }
  if (op == "contains") {
    if (v.is_string()) {
      return v.get<std::string>().find(want.get<std::string>()) != std::string::npos
                 ? ""
                 : v.dump() + " does not contain " + want.dump();
    }
    if (v.is_array()) {
      return std::find(v.begin(), v.end(), want) != v.end()
                 ? ""
                 : v.dump() + " has no element " + want.dump();
    }
    return v.dump() + " is neither a string nor a list";
  }
  if (op == "exists") return "";  // handled by the caller
  return "unknown operator " + op;
}

// Validates the shape of an expectation: "path" and exactly one operator of the right type.
std::string expectation_problem(const Json& e) {
  if (!e.is_object()) return "expected an object";
  if (!e.contains("path") || !e["path"].is_string()) return "missing \"path\"";
  const std::string path = e["path"].get<std::string>();
  if (!path.empty() && path[0] != '/') return "path must start with '/' (a JSON pointer)";
  int ops = 0;
  for (const auto& [key, value] : e.items()) {
    if (key == "path") continue;
    const auto& known = expectation_ops();
    if (std::find(known.begin(), known.end(), key) == known.end()) return "unknown key " + key;
    ++ops;
    if ((key == "min" || key == "max") && !value.is_number()) return key + " needs a number";
    if (key == "size" && !value.is_number_unsigned()) return "size needs a count";
    if (key == "exists" && !value.is_boolean()) return "exists needs true or false";
    if (key == "ascending" && value != true) return "ascending needs true";
  }
  return ops == 1 ? "" : "needs exactly one operator";
}

}  // namespace

const std::vector<std::string>& expectation_ops() {
  static const std::vector<std::string> ops = {"equals",   "size",   "min",      "max",
                                               "contains", "exists", "ascending"};
  return ops;
}

core::Result<Scenario> parse_scenario(const std::string& text, const std::string& source) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return bad(source, "not a JSON object");
  Scenario s;
  for (const auto& [key, v] : doc.items()) {
    if (key == "name" && v.is_string()) {
      s.name = v.get<std::string>();
    } else if (key == "description" && v.is_string()) {
      s.description = v.get<std::string>();
    } else if (key == "args") {
      DTPLAN_TRY(s.args, string_list(v, source, "args"));
    } else if (key == "json" && v.is_boolean()) {
      s.json = v.get<bool>();
    } else if (key == "exit_code" && v.is_number_integer()) {
      s.exit_code = v.get<int>();
    } else if (key == "expect" && v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string problem = expectation_problem(v[i]);
        if (!problem.empty()) {
          return bad(source, "field 'expect[" + std::to_string(i) + "]': " + problem);
        }
        s.expect.push_back(v[i]);
      }
    } else if (key == "stderr_contains") {
      DTPLAN_TRY(s.stderr_contains, string_list(v, source, key));
    } else if (key == "same_output" && v.is_array()) {
      for (const Json& args : v) {
        DTPLAN_TRY(std::vector<std::string> a, string_list(args, source, key));
        s.same_output.push_back(std::move(a));
      }
    } else {
      return bad(source, "field '" + key + "': unknown or of the wrong type");
    }
  }
  if (s.name.empty()) return bad(source, "field 'name': required");
  if (s.description.empty()) return bad(source, "field 'description': required");
  if (s.args.empty()) return bad(source, "field 'args': required (the subcommand first)");
  if (!s.expect.empty() && !s.json) {
    return bad(source, "field 'expect': needs JSON output (\"json\": true)");
  }
  return s;
}

std::string shell_command(const std::vector<std::string>& args, bool json) {
  std::string out;
  for (const std::string& a : args) {
    if (!out.empty()) out += ' ';
    out += '\'';
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  if (json) out += " --json";
  return out;
}

std::string check_expectation(const Json& doc, const Json& e) {
  const std::string path = e["path"].get<std::string>();
  std::vector<const Json*> values;
  resolve(doc, split_pointer(path), 0, values);
  for (const auto& [op, want] : e.items()) {
    if (op == "path") continue;
    if (op == "exists") {
      const bool exists = !values.empty();
      return exists == want.get<bool>()
                 ? ""
                 : path + (exists ? ": exists, expected absent" : ": missing, expected present");
    }
    if (values.empty()) return path + ": missing";
    if (op == "ascending") {
      for (std::size_t i = 0; i + 1 < values.size(); ++i) {
        if (!(*values[i] <= *values[i + 1])) {
          return path + ": " + values[i]->dump() + " before " + values[i + 1]->dump() +
                 ", expected ascending";
        }
      }
      return "";
    }
    for (const Json* v : values) {
      const std::string failure = check_one(*v, op, want);
      if (!failure.empty()) return path + ": " + failure;
    }
  }
  return "";
}

}  // namespace dtplan::testing
