// The fused optimizer step (optimizer.cpp): what aakaar.optim's optimizers call
// once per parameter group.
#pragma once
#include <vector>

#include "core/backend.h"

namespace aakaar::ops {

// One step of `step.kind` over params[i] with gradients grads[i] and state
// tensors states[k][i] (k in the slot order of core/optimizer_math.h; an unused
// slot is an empty list). `steps` (Adam, Adagrad, RMSprop, Adamax, NAdam, RAdam,
// Adadelta) are the parameters' step counters, 0-d CPU tensors that this
// increments; `mu_products` (NAdam) are its running products of momentum
// coefficients, updated here too; `scalars` (ASGD) are [etas, mus], each
// parameter's eta and mu, read for the step and renewed after it. The numbers that depend on the step count
// (bias corrections, ...) are worked out here, in double, as torch.optim does
// in Python. Checks every tensor against its parameter; groups the parameters
// by dtype, device and step count, and makes one backend call per group (the
// device's fused kernel, or on a device without one, SGD and Adam composed of
// primitives). Runs without recording a graph.
void optimizer_step(OptimizerStep step, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states, const TensorList& steps, const TensorList& mu_products,
                    const std::vector<TensorList>& scalars = {});

// The same step with PyTorch's capturable=True, for parameters on a device whose table has
// optimizer_step_capturable (core/backend.h; "cuda"): `steps`, `mu_products` and `scalars`
// live on each parameter's device, and the device increments and renews them and works out
// the numbers that depend on them itself, so that the step never reads a value back to the
// host. `lr` (null: step.lr) is a one-element tensor on the parameters' device, read there,
// or on the CPU. Groups the parameters by dtype and device only.
void optimizer_step_capturable(OptimizerStep step, const TensorList& params, const TensorList& grads,
                               const std::vector<TensorList>& states, const TensorList& steps,
                               const TensorList& mu_products, const std::vector<TensorList>& scalars,
                               const TensorPtr& lr);

}  // namespace aakaar::ops
