#include "mesh/py_text.h"

namespace dtplan::mesh {

namespace {
template <class T, class F>
std::string join_py(std::span<const T> items, F item, const char* open, const char* close,
                    bool one_comma) {
  std::string out = open;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += item(items[i]);
  }
  if (one_comma && items.size() == 1) out += ",";
  return out + close;
}

std::string quote(const std::string& s) { return "'" + s + "'"; }
std::string decimal(std::int64_t v) { return std::to_string(v); }
}  // namespace

std::string py_tuple(std::span<const std::string> names) {
  return join_py(names, quote, "(", ")", true);
}

std::string py_list(std::span<const std::string> names) {
  return join_py(names, quote, "[", "]", false);
}

std::string py_tuple(std::span<const std::int64_t> values) {
  return join_py(values, decimal, "(", ")", true);
}

}  // namespace dtplan::mesh
