// solve::Matrix: copies share values, edit() copies on write, take() moves only what it owns.

#include "solve/matrix.h"

#include <doctest/doctest.h>

#include <memory>
#include <vector>

namespace dtplan::solve {
namespace {

TEST_CASE("matrix: copies share, edit() copies on write, == compares values") {
  const Matrix a = {0, 5, 5, 0};
  Matrix b = a;
  CHECK(b.shares(a));
  CHECK(b == a);
  b.edit()[1] = 3;
  CHECK_FALSE(b.shares(a));
  CHECK(a.values() == std::vector<double>{0, 5, 5, 0});
  CHECK(b.values() == std::vector<double>{0, 3, 5, 0});
  CHECK_FALSE(a == b);
  // A matrix alone with its values edits them in place.
  const double* before = b.data();
  b.edit()[2] = 4;
  CHECK(b.data() == before);
  CHECK(b[2] == 4);
  // Equal values in different storage are ==.
  CHECK(Matrix{0, 3, 4, 0} == b);
  CHECK(Matrix{}.empty());
  CHECK(Matrix{}.size() == 0);
  CHECK(Matrix{} == Matrix(std::vector<double>{}));
}

TEST_CASE("matrix: values kept elsewhere are shared, never changed, and copied on take()") {
  const auto kept = std::make_shared<const std::vector<double>>(std::vector<double>{1, 2});
  Matrix m(kept);
  CHECK(m.data() == kept->data());
  m.edit()[0] = 7;
  CHECK(kept->at(0) == 1);
  CHECK(m[0] == 7);
  Matrix shared(kept);
  const std::vector<double> copy = std::move(shared).take();
  CHECK(copy == *kept);
  CHECK(kept->size() == 2);
  // Owned and alone: moved out, no copy.
  Matrix own = {4, 5, 6};
  const double* where = own.data();
  const std::vector<double> moved = std::move(own).take();
  CHECK(moved.data() == where);
  // Owned but shared with a copy: copied, the copy keeps its values.
  Matrix first = {8, 9};
  const Matrix second = first;
  const std::vector<double> out = std::move(first).take();
  CHECK(out == std::vector<double>{8, 9});
  CHECK(second.values() == std::vector<double>{8, 9});
}

}  // namespace
}  // namespace dtplan::solve
