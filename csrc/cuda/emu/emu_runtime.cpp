// The CUDA emulator's runtime: runs a grid of blocks on a few OS threads, each block's
// threads as cooperative fibers on one OS thread, with CUDA's synchronisation semantics
// and checks that turn common kernel bugs into clear errors.
//
// Scheduling. A block's fibers run in turn (thread 0 first, or last first in reverse
// order); a fiber runs until it reaches a barrier, a warp operation, or its end. The
// last thread to reach a barrier releases the others; the last lane to reach a warp
// operation computes every lane's result. When no fiber can run and some have not
// finished, the block is stuck -- on a GPU it would hang -- and the emulator reports
// where every thread waits.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "emu_launch.h"
#include "fiber.h"

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread uint3 blockDim;
__thread uint3 gridDim;

namespace aakaar_emu {
namespace {

constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr size_t kMaxDynamicSmem = 48 * 1024;  // without an opt-in attribute on a GPU
constexpr size_t kCanaryBytes = 64;
constexpr unsigned char kCanaryByte = 0xCD;
constexpr unsigned char kFillByte = 0xFF;  // NaN as float/double: uninitialised reads show
constexpr size_t kStackBytes = 64 * 1024;
// What a shuffle returns when it reads an inactive or exited lane (undefined on a GPU):
// a NaN as float (low half) and as double, an odd large number as an integer.
constexpr uint64_t kPoison = 0x7FF4DEAD7FA0DEADull;

enum class FiberState : unsigned char { Runnable, AtBarrier, AtWarpOp, Done };

struct Fiber {
  FiberContext ctx;
  uint3 tid;
  int linear;
  FiberState state;
  const char* what;  // where it waits: name, file, line
  const char* file;
  int line;
};

// One pending warp operation: lanes deposit their values; the last lane computes all.
struct WarpRendezvous {
  unsigned present = 0;  // lanes that exist (the last warp of a block may be partial)
  unsigned exited = 0;
  unsigned arrived = 0;
  WarpOp op = WarpOp::Sync;
  unsigned mask = 0;
  const char* file = nullptr;
  int line = 0;
  uint64_t value[32];
  int src[32];
  uint64_t result[32];
};

struct GridJob;

// Everything one OS thread needs to run blocks, reused from block to block.
struct BlockRunner {
  StackPool stacks{kStackBytes};
  std::vector<Fiber> fibers;
  std::vector<WarpRendezvous> warps;
  std::vector<unsigned char> smem_storage;
  FiberContext scheduler;

  const GridJob* job = nullptr;
  int nthreads = 0;
  int current = 0;
  int done = 0;
  unsigned char* smem = nullptr;  // dynamic shared memory, between two canaries

  // the barrier being gathered
  int bar_arrived = 0;
  const char* bar_name = nullptr;
  const char* bar_file = nullptr;
  int bar_line = 0;
  int bar_mode = 0;
  bool bar_mismatch = false;
  int bar_acc = 0;
  int bar_result = 0;

  bool failed = false;  // a fiber threw; message in error
  std::string error;
};

struct GridJob {
  const LaunchSite* site;
  KernelThunk thunk;
  const void* args;
  uint3 grid, block;
  size_t smem;
  uint64_t nblocks;
  bool reverse;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::string error;
  uint64_t error_block = UINT64_MAX;
};

__thread BlockRunner* tl_runner = nullptr;  // set while this OS thread runs a block

std::string idx3(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}
std::string hex(unsigned m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", m);
  return buf;
}
std::string site_str(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }
bool same_site(const char* f1, int l1, const char* f2, int l2) {
  return l1 == l2 && (f1 == f2 || std::string(f1) == f2);
}
std::string kernel_str(const GridJob& j) {
  return "kernel '" + std::string(j.site->kernel) + "' launched at " + site_str(j.site->file, j.site->line);
}
std::string block_str(const BlockRunner& r) {
  return kernel_str(*r.job) + ", block " + idx3(blockIdx);
}

// "0..15, 32..47" or "1..63 step 2" from a sorted list of linear thread (or lane) ids.
std::string ranges(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    const int step = i + 1 < ids.size() ? ids[i + 1] - ids[i] : 1;
    while (j + 1 < ids.size() && ids[j + 1] - ids[j] == step) ++j;
    if (step > 1 && j - i < 2) j = i;  // two ids with a gap: list them one by one
    if (!s.empty()) s += ", ";
    s += std::to_string(ids[i]);
    if (j > i) s += ".." + std::to_string(ids[j]) + (step > 1 ? " step " + std::to_string(step) : "");
    i = j + 1;
  }
  return s;
}
std::vector<int> lanes_of(unsigned bits) {
  std::vector<int> v;
  for (int l = 0; l < 32; ++l)
    if (bits >> l & 1u) v.push_back(l);
  return v;
}

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Sync: return "__syncwarp()";
    case WarpOp::ShflIdx: return "__shfl_sync()";
    case WarpOp::ShflUp: return "__shfl_up_sync()";
    case WarpOp::ShflDown: return "__shfl_down_sync()";
    case WarpOp::ShflXor: return "__shfl_xor_sync()";
    case WarpOp::Ballot: return "__ballot_sync()";
    case WarpOp::Any: return "__any_sync()";
    case WarpOp::All: return "__all_sync()";
  }
  return "?";
}

BlockRunner& runner_or_throw(const char* what) {
  if (!tl_runner)
    throw KernelError(std::string("CUDA emulator: ") + what + " called outside a running kernel");
  return *tl_runner;
}

// The next runnable fiber after `from` in scheduling order, or -1 at the end of a pass.
int next_runnable(const BlockRunner& r, int from) {
  const int step = r.job->reverse ? -1 : 1;
  for (int i = from + step; i >= 0 && i < r.nthreads; i += step)
    if (r.fibers[i].state == FiberState::Runnable) return i;
  return -1;
}

// Suspends the running fiber (it is already marked as waiting or done) and resumes the
// next runnable one directly -- half the switches of returning to the scheduler each
// time. At the end of a pass the scheduler takes over and starts the next pass.
void switch_away(BlockRunner& r) {
  Fiber& me = r.fibers[r.current];
  const int next = next_runnable(r, r.current);
  if (next < 0) {
    fiber_switch(&me.ctx, &r.scheduler);
    return;
  }
  r.current = next;
  threadIdx = r.fibers[next].tid;
  fiber_switch(&me.ctx, &r.fibers[next].ctx);
}

// Empty when both canaries around dynamic shared memory are intact.
std::string broken_canary(const BlockRunner& r, const std::string& when) {
  const size_t n = r.job->smem;
  const unsigned char* before = r.smem - kCanaryBytes;
  const unsigned char* after = r.smem + n;
  for (size_t i = 0; i < kCanaryBytes; ++i) {
    if (after[i] != kCanaryByte)
      return "write past the end of dynamic shared memory: byte " + std::to_string(n + i) + " of a " +
             std::to_string(n) + "-byte allocation was overwritten (detected " + when + ")";
    if (before[kCanaryBytes - 1 - i] != kCanaryByte)
      return "write before the start of dynamic shared memory: byte -" + std::to_string(i + 1) +
             " was overwritten (detected " + when + ")";
  }
  return "";
}

bool warp_complete(const WarpRendezvous& w) {
  // Exited lanes (and lanes past the end of the block) are not waited for, as on a GPU.
  const unsigned needed = w.mask & w.present & ~w.exited;
  return (w.arrived & needed) == needed;
}

void finish_warp_op(BlockRunner& r, WarpRendezvous& w, int warp) {
  unsigned ballot = 0;
  for (int l = 0; l < 32; ++l)
    if ((w.arrived >> l & 1u) && w.value[l] != 0) ballot |= 1u << l;
  for (int l = 0; l < 32; ++l) {
    if (!(w.arrived >> l & 1u)) continue;
    uint64_t res = 0;
    switch (w.op) {
      case WarpOp::Sync: break;
      case WarpOp::Ballot: res = ballot; break;
      case WarpOp::Any: res = ballot != 0; break;
      case WarpOp::All: res = ballot == w.arrived; break;
      default: {
        const int s = w.src[l];
        res = (w.arrived >> s & 1u) ? w.value[s] : kPoison;
      }
    }
    w.result[l] = res;
    r.fibers[warp * 32 + l].state = FiberState::Runnable;
  }
  w.arrived = 0;
}

int source_lane(WarpOp op, int lane, int param, int width) {
  const int seg = lane & ~(width - 1);
  const unsigned delta = static_cast<unsigned>(param);
  switch (op) {
    case WarpOp::ShflIdx: return seg + (param & (width - 1));
    case WarpOp::ShflUp: return static_cast<unsigned>(lane - seg) >= delta ? lane - param : lane;
    case WarpOp::ShflDown: return static_cast<unsigned>(lane - seg) + delta < static_cast<unsigned>(width) ? lane + param : lane;
    case WarpOp::ShflXor: {
      const unsigned s = static_cast<unsigned>(lane) ^ delta;
      return s < static_cast<unsigned>(seg + width) ? static_cast<int>(s) : lane;
    }
    default: return lane;
  }
}

// Called on a fiber's own stack when its thread returns from the kernel.
void on_thread_exit(BlockRunner& r, Fiber& f) {
  f.state = FiberState::Done;
  ++r.done;
  WarpRendezvous& w = r.warps[f.linear / 32];
  w.exited |= 1u << (f.linear % 32);
  if (w.arrived && warp_complete(w)) finish_warp_op(r, w, f.linear / 32);
}

void fiber_main(void* arg) {
  Fiber& f = *static_cast<Fiber*>(arg);
  BlockRunner& r = *tl_runner;
  // Nothing may unwind past this frame: there is no caller above it on this stack.
  try {
    r.job->thunk(r.job->args);
  } catch (const std::exception& e) {
    r.failed = true;
    r.error = block_str(r) + ", thread " + idx3(f.tid) + ": " + e.what();
  } catch (...) {
    r.failed = true;
    r.error = block_str(r) + ", thread " + idx3(f.tid) + ": an exception that is not a std::exception";
  }
  if (r.failed) {
    fiber_switch(&f.ctx, &r.scheduler);  // the scheduler aborts the block
  } else {
    on_thread_exit(r, f);
    switch_away(r);
  }
  std::abort();  // a finished fiber is never resumed
}

// Where every unfinished thread waits, grouped, for the report of a stuck block.
std::string describe_stuck_block(const BlockRunner& r) {
  std::string msg = block_str(r) + " can never finish (on a GPU it would hang):";
  // Headline: the operation that cannot complete, and who is missing.
  bool warp_pending = false;
  for (size_t wi = 0; wi < r.warps.size(); ++wi) {
    const WarpRendezvous& w = r.warps[wi];
    if (!w.arrived) continue;
    warp_pending = true;
    const unsigned missing = w.mask & w.present & ~w.exited & ~w.arrived;
    msg += "\n  warp " + std::to_string(wi) + ": " + op_name(w.op) + " with mask " + hex(w.mask) +
           " at " + site_str(w.file, w.line) + " was reached by lanes " + ranges(lanes_of(w.arrived)) +
           ", but lanes " + ranges(lanes_of(missing)) +
           " named in the mask are waiting elsewhere (every lane in the mask must call it)";
  }
  if (r.bar_arrived > 0 && r.bar_mismatch) {
    msg += "\n  threads wait at different barriers; every thread of a block must reach the same "
           "__syncthreads() (a barrier inside divergent code?)";
  } else if (r.bar_arrived > 0 && !warp_pending) {
    msg += "\n  " + std::string(r.bar_name) + " at " + site_str(r.bar_file, r.bar_line) +
           " was reached by " + std::to_string(r.bar_arrived) + " of " + std::to_string(r.nthreads) +
           " threads; every thread of the block must reach it (did some threads return early?)";
  }
  // Then every thread, grouped by what it is doing.
  struct Group {
    FiberState state;
    const char* what;
    const char* file;
    int line;
    std::vector<int> ids;
  };
  std::vector<Group> groups;
  for (const Fiber& f : r.fibers) {
    const char* what = f.state == FiberState::Done ? nullptr : f.what;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.state == f.state &&
             (f.state == FiberState::Done || (g.what == what && same_site(g.file, g.line, f.file, f.line)));
    });
    if (it == groups.end()) {
      groups.push_back(Group{f.state, what, f.file, f.line, {}});
      it = groups.end() - 1;
    }
    it->ids.push_back(f.linear);
  }
  for (const Group& g : groups) {
    msg += "\n    threads " + ranges(g.ids) + ": ";
    msg += g.state == FiberState::Done ? std::string("exited")
                                       : "waiting in " + std::string(g.what) + " at " + site_str(g.file, g.line);
  }
  msg += "\n  (thread numbers are linear: threadIdx.x + threadIdx.y*blockDim.x + "
         "threadIdx.z*blockDim.x*blockDim.y; lane = thread % 32)";
  return msg;
}

void run_block(BlockRunner& r, const GridJob& job, uint64_t linear_block) {
  blockIdx = uint3{static_cast<unsigned>(linear_block % job.grid.x),
                   static_cast<unsigned>(linear_block / job.grid.x % job.grid.y),
                   static_cast<unsigned>(linear_block / (uint64_t(job.grid.x) * job.grid.y))};
  blockDim = job.block;
  gridDim = job.grid;
  const int n = static_cast<int>(job.block.x * job.block.y * job.block.z);
  r.job = &job;
  r.nthreads = n;
  r.done = 0;
  r.bar_arrived = 0;
  r.failed = false;

  // Dynamic shared memory: filled with a NaN pattern (it is not zeroed on a GPU either)
  // and fenced by canaries that reveal writes past either end.
  const size_t smem_total = job.smem + 2 * kCanaryBytes + 16;
  if (r.smem_storage.size() < smem_total) r.smem_storage.resize(smem_total);
  unsigned char* base = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(r.smem_storage.data()) + 15) & ~uintptr_t(15));
  std::memset(base, kCanaryByte, kCanaryBytes);
  r.smem = base + kCanaryBytes;
  std::memset(r.smem, kFillByte, job.smem);
  std::memset(r.smem + job.smem, kCanaryByte, kCanaryBytes);

  r.warps.assign((n + 31) / 32, WarpRendezvous{});
  for (int w = 0; w < static_cast<int>(r.warps.size()); ++w) {
    const int lanes = std::min(32, n - 32 * w);
    r.warps[w].present = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
  }
  r.fibers.resize(n);
  for (int i = 0; i < n; ++i) {
    Fiber& f = r.fibers[i];
    f.tid = uint3{i % job.block.x, i / job.block.x % job.block.y, i / (job.block.x * job.block.y)};
    f.linear = i;
    f.state = FiberState::Runnable;
    f.what = nullptr;
    f.file = "";
    f.line = 0;
    fiber_init(&f.ctx, r.stacks.get(i), &fiber_main, &f);
  }

  struct Guard {  // tl_runner is only set while a block runs on this thread
    explicit Guard(BlockRunner* p) { tl_runner = p; }
    ~Guard() { tl_runner = nullptr; }
  } guard(&r);

  // [[book:emu_block_loop]]
  // Each pass starts at the first runnable fiber; fibers hand over to each other until
  // the end of the pass (switch_away) and control returns here.
  while (r.done < n) {
    const int first = next_runnable(r, job.reverse ? n : -1);
    if (first < 0) throw KernelError(describe_stuck_block(r));
    r.current = first;
    threadIdx = r.fibers[first].tid;
    fiber_switch(&r.scheduler, &r.fibers[first].ctx);
    // An aborted block's other fibers are simply never resumed; their stacks are reused.
    if (r.failed) throw KernelError(r.error);
  }
  // [[/book:emu_block_loop]]
  const std::string canary = broken_canary(r, "when the block finished");
  if (!canary.empty()) throw KernelError(block_str(r) + ": " + canary);
}

// One OS thread's share of a grid: take block numbers until none are left.
void run_blocks(GridJob& job) {
  thread_local BlockRunner runner;
  for (;;) {
    if (job.failed.load(std::memory_order_relaxed)) return;
    const uint64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.nblocks) return;
    try {
      run_block(runner, job, i);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lk(job.error_mu);
      if (i < job.error_block) {  // report the lowest-numbered failing block seen
        job.error = e.what();
        job.error_block = i;
      }
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
}

// Worker OS threads that join the launching thread in running a grid's blocks.
class WorkerPool {
 public:
  void run(GridJob& job, int nthreads) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      while (static_cast<int>(workers_) < nthreads - 1) {
        std::thread([this] { worker_loop(); }).detach();
        ++workers_;
      }
      job_ = &job;
      ++generation_;
      seats_ = nthreads - 1;
      active_ = nthreads - 1;
    }
    cv_.notify_all();
    run_blocks(job);
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return active_ == 0; });
    job_ = nullptr;
  }

 private:
  void worker_loop() {
    uint64_t seen = 0;
    for (;;) {
      GridJob* job;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return generation_ != seen && seats_ > 0; });
        seen = generation_;
        --seats_;
        job = job_;
      }
      run_blocks(*job);
      std::lock_guard<std::mutex> lk(mu_);
      if (--active_ == 0) done_cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  size_t workers_ = 0;
  GridJob* job_ = nullptr;
  uint64_t generation_ = 0;
  int seats_ = 0, active_ = 0;
};

int default_threads() {
  if (const char* s = std::getenv("AAKAAR_EMU_THREADS")) {
    const int n = std::atoi(s);
    if (n >= 1) return std::min(n, 256);
  }
  return std::max(1u, std::min(64u, std::thread::hardware_concurrency()));
}
bool default_reverse() {
  const char* s = std::getenv("AAKAAR_EMU_ORDER");
  return s && std::string(s) == "reverse";
}
std::atomic<int> g_threads{0};  // 0: not yet read from the environment
std::atomic<int> g_reverse{-1};
std::mutex g_launch_mu;  // one grid at a time, like a single default stream

std::string dims(dim3 d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }

void validate(const LaunchSite& site, dim3 grid, dim3 block, size_t smem) {
  const std::string where = "kernel '" + std::string(site.kernel) + "' launched at " + site_str(site.file, site.line);
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (threads == 0 || uint64_t(grid.x) * grid.y * grid.z == 0)
    throw KernelError(where + " with gridDim " + dims(grid) + " and blockDim " + dims(block) +
                      ": a zero dimension is an invalid launch configuration (skip the launch for empty inputs)");
  if (threads > kMaxThreadsPerBlock || block.x > 1024 || block.y > 1024 || block.z > 64)
    throw KernelError(where + " with blockDim " + dims(block) + " = " + std::to_string(threads) +
                      " threads per block: a block holds at most 1024 threads (at most 1024 in x and y, 64 in z)");
  if (grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u)
    throw KernelError(where + " with gridDim " + dims(grid) +
                      ": the grid is limited to 2^31-1 blocks in x and 65535 in y and z");
  if (smem > kMaxDynamicSmem)
    throw KernelError(where + " asks for " + std::to_string(smem) + " bytes of dynamic shared memory; the limit is " +
                      std::to_string(kMaxDynamicSmem) + " bytes (49152)");
}

}  // namespace

void set_num_threads(int n) {
  if (n < 1) throw std::invalid_argument("aakaar_emu::set_num_threads: need at least 1 thread, got " + std::to_string(n));
  g_threads = n;
}
int get_num_threads() {
  if (g_threads.load() == 0) g_threads = default_threads();
  return g_threads.load();
}
void set_reverse_order(bool reverse) { g_reverse = reverse ? 1 : 0; }

void launch_grid(const LaunchSite& site, dim3 grid, dim3 block, size_t smem, KernelThunk thunk,
                 const void* args) {
  if (tl_runner)
    throw KernelError("kernel '" + std::string(site.kernel) + "' launched at " + site_str(site.file, site.line) +
                      " from inside a running kernel: dynamic parallelism is not emulated");
  validate(site, grid, block, smem);
  if (g_reverse.load() < 0) g_reverse = default_reverse() ? 1 : 0;

  GridJob job;
  job.site = &site;
  job.thunk = thunk;
  job.args = args;
  job.grid = grid;
  job.block = block;
  job.smem = smem;
  job.nblocks = uint64_t(grid.x) * grid.y * grid.z;
  job.reverse = g_reverse.load() == 1;

  std::lock_guard<std::mutex> lk(g_launch_mu);
  const int nthreads = static_cast<int>(std::min<uint64_t>(get_num_threads(), job.nblocks));
  if (nthreads <= 1) {
    run_blocks(job);
  } else {
    static WorkerPool* pool = new WorkerPool;  // never destroyed: workers outlive main()
    pool->run(job, nthreads);
  }
  if (job.failed) throw KernelError(job.error);
}

int block_barrier(const char* file, int line, const char* name, int mode, int pred) {
  BlockRunner& r = runner_or_throw(name);
  Fiber& f = r.fibers[r.current];
  if (r.bar_arrived == 0) {
    r.bar_name = name;
    r.bar_file = file;
    r.bar_line = line;
    r.bar_mode = mode;
    r.bar_mismatch = false;
    r.bar_acc = mode == kBarrierAnd ? 1 : 0;
  } else if (mode != r.bar_mode || !same_site(file, line, r.bar_file, r.bar_line)) {
    r.bar_mismatch = true;  // reported when the block gets stuck
  }
  // [[book:emu_barrier]]
  ++r.bar_arrived;
  if (mode == kBarrierCount) r.bar_acc += pred;
  if (mode == kBarrierAnd) r.bar_acc &= pred;
  if (mode == kBarrierOr) r.bar_acc |= pred;
  f.state = FiberState::AtBarrier;
  f.what = name;
  f.file = file;
  f.line = line;
  if (r.bar_arrived == r.nthreads && !r.bar_mismatch) {
    if (r.job->smem) {
      // Not thrown from here: that would blame this thread, the last to arrive, which
      // is not necessarily the one that wrote out of bounds.
      std::string canary = broken_canary(r, "at " + std::string(name) + " at " + site_str(file, line));
      if (!canary.empty()) {
        r.error = block_str(r) + ": " + canary;
        r.failed = true;
      }
    }
    if (r.failed) {
      fiber_switch(&f.ctx, &r.scheduler);  // the scheduler aborts the block
      std::abort();                         // never resumed
    }
    r.bar_result = r.bar_acc;
    r.bar_arrived = 0;
    for (Fiber& g : r.fibers)
      if (g.state == FiberState::AtBarrier) g.state = FiberState::Runnable;
    return r.bar_result;  // the last arrival continues without a switch
  }
  switch_away(r);
  return r.bar_result;  // cannot change before this thread reaches the next barrier
  // [[/book:emu_barrier]]
}

uint64_t warp_exchange(const char* file, int line, WarpOp op, unsigned mask, uint64_t value, int param,
                       int width) {
  BlockRunner& r = runner_or_throw(op_name(op));
  Fiber& f = r.fibers[r.current];
  const int warp = f.linear / 32, lane = f.linear % 32;
  if (!(mask >> lane & 1u))
    throw KernelError(std::string(op_name(op)) + " at " + site_str(file, line) + ": mask " + hex(mask) +
                      " does not include the calling lane " + std::to_string(lane) +
                      " (a thread must name itself in the mask)");
  if (width < 1 || width > 32 || (width & (width - 1)))
    throw KernelError(std::string(op_name(op)) + " at " + site_str(file, line) + ": width " + std::to_string(width) +
                      " is not a power of two between 1 and 32");
  WarpRendezvous& w = r.warps[warp];
  if (w.arrived == 0) {
    w.op = op;
    w.mask = mask;
    w.file = file;
    w.line = line;
  } else if (w.op != op || w.mask != mask) {
    throw KernelError(std::string(op_name(op)) + " with mask " + hex(mask) + " at " + site_str(file, line) +
                      " called by lane " + std::to_string(lane) + " of warp " + std::to_string(warp) +
                      " while lanes " + ranges(lanes_of(w.arrived)) + " wait in " + op_name(w.op) + " with mask " +
                      hex(w.mask) + " at " + site_str(w.file, w.line) +
                      ": the lanes of a mask must all call the same warp operation with the same mask");
  }
  w.arrived |= 1u << lane;
  w.value[lane] = value;
  w.src[lane] = source_lane(op, lane, param, width);
  if (warp_complete(w)) {
    finish_warp_op(r, w, warp);
    return w.result[lane];
  }
  f.state = FiberState::AtWarpOp;
  f.what = op_name(op);
  f.file = file;
  f.line = line;
  switch_away(r);
  return w.result[lane];  // stays valid until this lane joins the next warp operation
}

unsigned char* dynamic_shared_memory() { return runner_or_throw("dynamic shared memory").smem; }

void trap(const char* file, int line) { throw KernelError("__trap() at " + site_str(file, line)); }

}  // namespace aakaar_emu
