#pragma once
// A small well-formedness check for the HTML/SVG the sweep writes (which is XML apart from its
// doctype): every tag closed in order, attributes quoted, entities known, no stray '<' or '&'.
// Returns the element names in document order, or an error saying where it broke.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace dtplan::testing {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  int depth = 0;
  // The value of an attribute, "" when absent.
  std::string attr(std::string_view key) const;
};

// Parses `text` (a leading "<!DOCTYPE ...>" is skipped); one root element.
core::Result<std::vector<XmlElement>> parse_xml(std::string_view text);

}  // namespace dtplan::testing
