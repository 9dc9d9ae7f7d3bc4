// Built into dtplan_tests only with the NCCL backend; loading cuBLAS needs no GPU.
#include "replay/nccl/cublas_api.h"

#include <doctest/doctest.h>

namespace dtplan::replay {
namespace {

TEST_CASE("cublas api: loaded at run time, once, with its status texts") {
  auto api = cublas_api();
  REQUIRE_MESSAGE(api.ok(), (api.ok() ? std::string() : api.error().message));
  CHECK(api.value() == cublas_api().value());  // loaded once
  const CublasApi& a = *api.value();
  CHECK(static_cast<bool>(a.create));
  CHECK(static_cast<bool>(a.gemm_ex));
  CHECK(cublas_status(a, CUBLAS_STATUS_SUCCESS, "cublasCreate").ok());
  const core::Status s = cublas_status(a, CUBLAS_STATUS_NOT_INITIALIZED, "cublasCreate");
  CHECK(s.error().kind == core::ErrorKind::kInternal);
  CHECK(s.error().message.rfind("cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED (", 0) == 0);
}

}  // namespace
}  // namespace dtplan::replay
