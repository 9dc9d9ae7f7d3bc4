#pragma once
// An edge's cost matrix (row-major, see problem.h): immutable values shared between copies, so
// that edges priced alike hold one matrix (every layer of a model shares its layers' matrices:
// LLaMA3-70B with 80 layers on 8x8x8 has ~750M matrix entries over 228 distinct matrices).
// Copying a Matrix copies a pointer; edit() gives a private copy to change (copy on write).
//
//   Matrix a = {0, 5, 5, 0};
//   Matrix b = a;        // shares a's values
//   b.edit()[1] = 3;     // b now owns {0, 3, 5, 0}; a is unchanged
//   a == b;              // false: == compares values

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace dtplan::solve {

class Matrix {
 public:
  Matrix() = default;
  Matrix(std::vector<double> values)  // NOLINT(google-explicit-constructor): a matrix is its values
      : data_(std::make_shared<std::vector<double>>(std::move(values))), owned_(true) {}
  Matrix(std::initializer_list<double> values) : Matrix(std::vector<double>(values)) {}
  // Shares values someone else keeps (never changed through this Matrix).
  explicit Matrix(std::shared_ptr<const std::vector<double>> shared) : data_(std::move(shared)) {}

  [[nodiscard]] const std::vector<double>& values() const { return data_ ? *data_ : none(); }
  [[nodiscard]] std::size_t size() const { return values().size(); }
  [[nodiscard]] bool empty() const { return values().empty(); }
  [[nodiscard]] const double& operator[](std::size_t i) const { return values()[i]; }
  [[nodiscard]] const double* data() const { return values().data(); }
  [[nodiscard]] auto begin() const { return values().begin(); }
  [[nodiscard]] auto end() const { return values().end(); }

  // The values to change: copied first unless this Matrix alone holds values it created.
  std::vector<double>& edit() {
    if (!owned_ || data_.use_count() != 1) {
      data_ = std::make_shared<std::vector<double>>(values());
      owned_ = true;
    }
    return const_cast<std::vector<double>&>(*data_);  // created non-const by this class
  }
  // The values, moved out where this Matrix alone holds values it created, else copied.
  [[nodiscard]] std::vector<double> take() && {
    if (owned_ && data_.use_count() == 1) {
      std::vector<double> out = std::move(const_cast<std::vector<double>&>(*data_));
      data_.reset();
      return out;
    }
    return values();
  }
  // True when both share one set of values (then also ==).
  [[nodiscard]] bool shares(const Matrix& other) const { return data_ && data_ == other.data_; }

  bool operator==(const Matrix& other) const { return shares(other) || values() == other.values(); }

 private:
  static const std::vector<double>& none() {
    static const std::vector<double> none;
    return none;
  }
  std::shared_ptr<const std::vector<double>> data_;
  bool owned_ = false;  // data_ was created (non-const) by this class
};

}  // namespace dtplan::solve
