// Whether operations record the graph. Off inside `no_grad` (and while a
// backward pass runs, unless create_graph asks for a differentiable one).
#pragma once

namespace aakaar::autograd {

bool grad_enabled();
void set_grad_enabled(bool enabled);

// Sets grad mode for a scope and restores the previous mode on exit.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) : prev_(grad_enabled()) { set_grad_enabled(enabled); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace aakaar::autograd
