// Sanitizer canaries (built only with DTPLAN_SANITIZE): each mode commits one error that the
// sanitizers must turn into a failing exit, so the suite proves that a report in any test would
// fail CI instead of scrolling past. CTest expects each mode's report on the output and no
// "canary survived" line (printed only when the program goes on after the error).
//
//   dtplan_sanitize_canary ubsan   signed overflow (UBSan, -fno-sanitize-recover=undefined)
//   dtplan_sanitize_canary asan    heap buffer overflow (ASan)
//   dtplan_sanitize_canary leak    leaked allocation (LeakSanitizer, detect_leaks=1)

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

// Kept opaque to the optimizer, so that the error happens at run time.
volatile int g_opaque = INT_MAX;

int ubsan() {
  int x = g_opaque;
  x += g_opaque;  // signed overflow: undefined behaviour
  std::printf("ubsan canary survived: %d\n", x);
  return 0;
}

int asan() {
  char* buffer = new char[8];
  std::memset(buffer, 0, 8);
  // Written through an opaque pointer, so that UBSan's object-size check (active when optimizing)
  // cannot see the allocation and the overflow is left for ASan to report.
  char* volatile alias = buffer;
  volatile int index = 8;
  alias[index] = 1;  // one past the end
  std::printf("asan canary survived: %d\n", buffer[0]);
  delete[] buffer;
  return 0;
}

int leak() {
  char* volatile lost = new char[64];
  lost[0] = 1;
  lost = nullptr;
  std::printf("leak canary ran\n");  // the leak is reported at exit
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "ubsan") return ubsan();
  if (mode == "asan") return asan();
  if (mode == "leak") return leak();
  std::fprintf(stderr, "usage: dtplan_sanitize_canary ubsan|asan|leak\n");
  std::printf("canary survived (no mode)\n");
  return 1;
}
