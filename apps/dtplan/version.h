#pragma once

namespace dtplan::cli {
inline constexpr const char* kVersion = "0.1.0";
}
