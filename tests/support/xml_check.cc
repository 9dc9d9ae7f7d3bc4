#include "support/xml_check.h"

#include <cctype>

namespace dtplan::testing {

namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':';
}

core::Error at(std::size_t pos, const std::string& what) {
  return core::Error::bad_input("offset " + std::to_string(pos) + ": " + what);
}

// Checks the entities of text or an attribute value.
core::Status check_text(std::string_view text, std::size_t base) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') return at(base + i, "'<' in text");
    if (text[i] != '&') continue;
    const std::size_t semi = text.find(';', i);
    if (semi == std::string_view::npos) return at(base + i, "unterminated entity");
    const std::string_view e = text.substr(i + 1, semi - i - 1);
    if (e != "amp" && e != "lt" && e != "gt" && e != "quot" && e != "#39") {
      return at(base + i, "unknown entity &" + std::string(e) + ";");
    }
  }
  return {};
}

}  // namespace

std::string XmlElement::attr(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return v;
  }
  return "";
}

core::Result<std::vector<XmlElement>> parse_xml(std::string_view text) {
  std::size_t i = 0;
  if (text.substr(0, 9) == "<!DOCTYPE") {
    i = text.find('>');
    if (i == std::string_view::npos) return at(0, "unterminated doctype");
    ++i;
  }
  std::vector<XmlElement> out;
  std::vector<std::string> open;
  bool root_closed = false;
  while (i < text.size()) {
    const std::size_t lt = text.find('<', i);
    const std::string_view chunk =
        text.substr(i, lt == std::string_view::npos ? text.npos : lt - i);
    DTPLAN_CHECK(check_text(chunk, i));
    if (open.empty() && chunk.find_first_not_of(" \n\r\t") != std::string_view::npos) {
      return at(i, "text outside the root element");
    }
    if (lt == std::string_view::npos) break;
    i = lt + 1;
    const bool closing = i < text.size() && text[i] == '/';
    if (closing) ++i;
    const std::size_t name_start = i;
    while (i < text.size() && name_char(text[i])) ++i;
    const std::string name(text.substr(name_start, i - name_start));
    if (name.empty()) return at(name_start, "missing element name");
    if (closing) {
      if (open.empty() || open.back() != name) return at(name_start, "unexpected </" + name + ">");
      open.pop_back();
      if (i >= text.size() || text[i] != '>') return at(i, "expected '>'");
      ++i;
      if (open.empty()) root_closed = true;
      continue;
    }
    if (root_closed || (open.empty() && !out.empty())) return at(name_start, "second root");
    XmlElement e{name, {}, static_cast<int>(open.size())};
    for (;;) {
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (i >= text.size()) return at(i, "unterminated tag <" + name + ">");
      if (text[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (text.substr(i, 2) == "/>") {
        i += 2;
        if (open.empty()) root_closed = true;
        break;
      }
      const std::size_t key_start = i;
      while (i < text.size() && name_char(text[i])) ++i;
      const std::string key(text.substr(key_start, i - key_start));
      if (key.empty() || text.substr(i, 2) != "=\"")
        return at(i, "bad attribute in <" + name + ">");
      i += 2;
      const std::size_t end = text.find('"', i);
      if (end == std::string_view::npos) return at(i, "unterminated attribute value");
      DTPLAN_CHECK(check_text(text.substr(i, end - i), i));
      for (const auto& [k, v] : e.attributes) {
        if (k == key) return at(key_start, "duplicate attribute " + key);
      }
      e.attributes.emplace_back(key, std::string(text.substr(i, end - i)));
      i = end + 1;
    }
    out.push_back(std::move(e));
  }
  if (!open.empty()) return at(text.size(), "unclosed <" + open.back() + ">");
  if (out.empty()) return at(0, "no element");
  return out;
}

}  // namespace dtplan::testing
