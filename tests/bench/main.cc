// Google Benchmark entry point; benchmarks live in the other files of tests/bench/.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
