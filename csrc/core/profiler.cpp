#include "core/profiler.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/error.h"

namespace aakaar::profiler {
namespace {

// Every entry of the table, in its order. A new entry must be added here: the
// static_assert below fails until it is, so nothing escapes the profile.
#define AK_BACKEND_ENTRIES(X)                                                                              \
  X(allocate) X(copy) X(fill) X(binary) X(unary) X(where) X(reduce) X(arg_reduce) X(softmax) X(cumsum)     \
  X(bmm) X(gather) X(scatter) X(random_uniform) X(random_normal) X(linear) X(linear_backward)             \
  X(cross_entropy) X(cross_entropy_backward) X(add_scaled) X(lerp_scalar) X(index_select) X(optimizer_step) \
  X(optimizer_step_capturable) X(pointwise_loss) X(pointwise_loss_backward) X(ctc_loss) X(ctc_loss_backward) \
  X(conv2d) X(conv2d_backward) X(max_pool2d) X(avg_pool2d) X(avg_pool2d_backward)                   \
  /* api-shape branch */ X(sort) X(scan) X(scatter_reduce)

enum Entry : int {
#define AK_ENUM(name) k_##name,
  AK_BACKEND_ENTRIES(AK_ENUM)
#undef AK_ENUM
  kNumEntries
};
constexpr const char* kEntryNames[] = {
#define AK_NAME(name) #name,
    AK_BACKEND_ENTRIES(AK_NAME)
#undef AK_NAME
};
static_assert(sizeof(Backend) == kNumEntries * sizeof(void (*)()),
              "a backend entry was added or removed: list it in AK_BACKEND_ENTRIES (core/profiler.cpp)");

// The operation of the entries that take one as their first argument (PyTorch's names).
constexpr const char* kBinaryNames[] = {"add", "sub", "mul", "div", "floor_divide", "remainder", "pow",
                                        "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                                        "logical_and", "logical_or", "logical_xor"};
constexpr const char* kUnaryNames[] = {"neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
                                       "sin", "cos", "tanh", "sigmoid", "relu", "gelu", "gelu_tanh", "silu",
                                       "softplus", "logical_not", "floor", "ceil", "round", "reciprocal",
                                       "square", "leaky_relu", "elu", "clamp", "erf"};
constexpr const char* kReduceNames[] = {"sum", "prod", "max", "min", "all", "any"};
constexpr const char* kLossNames[] = {"mse", "l1", "huber", "smooth_l1", "bce", "bce_with_logits"};
constexpr const char* kScanNames[] = {"cumprod", "cummax", "cummin", "logcumsumexp"};
constexpr const char* kScatterReduceNames[] = {"sum", "prod", "amax", "amin"};

constexpr int kMaxOps = 72;  // op slots per entry; an op beyond the name lists shows as "op#N"

struct Slot {
  std::atomic<int64_t> calls{0}, self_ns{0}, total_ns{0};
};
std::array<std::array<std::array<Slot, kMaxOps>, kNumEntries>, kNumDeviceTypes> g_slots;
std::atomic<bool> g_recording{false};
std::mutex g_mutex;
std::array<std::atomic<const Backend*>, kNumDeviceTypes> g_real{};  // the tables the trampolines call
std::array<Backend, kNumDeviceTypes> g_wrapped{};
std::array<const Backend*, kNumDeviceTypes> g_wrapped_from{};  // which real table g_wrapped copies

// The time of the entries called while this thread is inside an entry, so the caller's self time excludes it.
thread_local int64_t* t_children_ns = nullptr;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename T>
int op_of(const T& first) {
  if constexpr (std::is_same_v<T, BinaryOp> || std::is_same_v<T, UnaryOp> || std::is_same_v<T, ReduceOp> ||
                std::is_same_v<T, PointwiseLoss> || std::is_same_v<T, ScanOp> ||
                std::is_same_v<T, ScatterReduceOp>) {
    return std::clamp(static_cast<int>(first), 0, kMaxOps - 1);
  } else {
    return 0;
  }
}

// Times one call of an entry; records it when it ends, by return or by exception.
class Scope {
 public:
  explicit Scope(Slot& slot) : slot_(slot), outer_(t_children_ns), start_(now_ns()) { t_children_ns = &children_; }
  ~Scope() {
    const int64_t total = now_ns() - start_;
    t_children_ns = outer_;
    if (outer_ != nullptr) *outer_ += total;
    slot_.calls.fetch_add(1, std::memory_order_relaxed);
    slot_.total_ns.fetch_add(total, std::memory_order_relaxed);
    slot_.self_ns.fetch_add(total - children_, std::memory_order_relaxed);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Slot& slot_;
  int64_t* outer_;
  int64_t children_ = 0;
  int64_t start_;
};

template <int D, int E, auto Member, typename Fn>
struct Trampoline;

template <int D, int E, auto Member, typename R, typename... Args>
struct Trampoline<D, E, Member, R (*)(Args...)> {
  static R call(Args... args) {
    int op = 0;
    if constexpr (sizeof...(Args) > 0) op = op_of(std::get<0>(std::forward_as_tuple(args...)));
    Scope scope(g_slots[D][E][op]);
    return (g_real[D].load(std::memory_order_relaxed)->*Member)(std::forward<Args>(args)...);
  }
};

static_assert(kNumDeviceTypes == 2, "profiled(): give the new device type its own trampolines");

template <int D>
void wrap(Backend& table) {
#define AK_WRAP(name)                                                                                   \
  if (table.name != nullptr)                                                                           \
    table.name = &Trampoline<D, k_##name, &Backend::name, std::remove_reference_t<decltype(table.name)>>::call;
  AK_BACKEND_ENTRIES(AK_WRAP)
#undef AK_WRAP
}

const char* op_name(int entry, int op) {
  auto pick = [op](const auto& names) -> const char* {
    return op < static_cast<int>(std::size(names)) ? names[op] : nullptr;
  };
  switch (entry) {
    case k_binary: return pick(kBinaryNames);
    case k_unary: return pick(kUnaryNames);
    case k_reduce: return pick(kReduceNames);
    case k_pointwise_loss:
    case k_pointwise_loss_backward: return pick(kLossNames);
    case k_scan: return pick(kScanNames);
    case k_scatter_reduce: return pick(kScatterReduceNames);
    default: return "";
  }
}

}  // namespace

bool recording() { return g_recording.load(std::memory_order_relaxed); }

void start() {
  std::lock_guard<std::mutex> lock(g_mutex);
  AK_CHECK(!g_recording.load(), RuntimeError, "the profiler is already recording: stop it before starting it again");
  for (auto& device : g_slots)
    for (auto& entry : device)
      for (auto& slot : entry) slot.calls = slot.self_ns = slot.total_ns = 0;
  g_recording.store(true);
}

std::vector<Record> stop() {
  std::lock_guard<std::mutex> lock(g_mutex);
  AK_CHECK(g_recording.load(), RuntimeError, "the profiler is not recording: start it first");
  g_recording.store(false);
  std::vector<Record> out;
  for (int d = 0; d < kNumDeviceTypes; ++d)
    for (int e = 0; e < kNumEntries; ++e)
      for (int op = 0; op < kMaxOps; ++op) {
        const Slot& s = g_slots[d][e][op];
        if (s.calls.load() == 0) continue;
        const char* name = op_name(e, op);
        // The profile sums over a device type's indices: "cuda", not "cuda:0".
        out.push_back({d == 0 ? "cpu" : "cuda", kEntryNames[e], name ? name : "op#" + std::to_string(op),
                       s.calls.load(), s.self_ns.load(), s.total_ns.load()});
      }
  std::sort(out.begin(), out.end(), [](const Record& a, const Record& b) { return a.self_ns > b.self_ns; });
  return out;
}

const Backend* profiled(DeviceType type, const Backend* real) {
  const int d = static_cast<int>(type);
  if (g_real[d].load(std::memory_order_acquire) == real) return &g_wrapped[d];
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_wrapped_from[d] != real) {
    g_wrapped[d] = *real;
    if (d == 0)
      wrap<0>(g_wrapped[d]);
    else
      wrap<1>(g_wrapped[d]);
    g_wrapped_from[d] = real;
  }
  g_real[d].store(real, std::memory_order_release);
  return &g_wrapped[d];
}

}  // namespace aakaar::profiler
