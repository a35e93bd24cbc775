"""Chapters 7-10 (the GPU): their listings' markers, the Python models they teach with (checked
against the C++ they model), the kernels run through aakaar.book.cuda_emu, the launch explorer's
JavaScript, and the benchmark JSON that chapter 9 reads."""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest

from aakaar.book import cuda_emu
from aakaar.book.cuda_emu import CachingAllocatorModel, SimError, launch, shfl_down, size_class, syncthreads
from aakaar.book.cuda_emu.pysim import CountingArray

REPO = pathlib.Path(__file__).resolve().parents[2]
BOOK = REPO / "book"
CHAPTERS = ["07-the-cuda-programming-model", "08-elementwise-and-reductions-on-the-gpu", "09-matmul-on-the-gpu",
            "10-gpu-memory"]
# The markers chapters 7-10 include (comment-only lines in the CUDA sources).
MARKERS = {
    "csrc/ladders/cuda/elementwise.cu": ["cuda_ewise_add_kernel", "cuda_ewise_add_launch"],
    "csrc/cuda/launch_config.cuh": ["grid_stride_blocks"],
    "csrc/cuda/emu/cuda_emu.h": ["emu_two_modes"],
    "csrc/cuda/emu/emu_device.h": ["emu_thread_coords", "emu_syncthreads"],
    "csrc/cuda/emu/emu_runtime.cpp": ["emu_block_loop", "emu_barrier"],
    "csrc/cuda/strided_iter.cuh": ["strided_iter", "strided_iter_merge"],
    "csrc/ladders/cuda/reduce.cu": ["reduce_thread_partial", "reduce_shared_tree", "reduce_warp_sum",
                                    "reduce_warp_shuffle"],
    "csrc/cuda/row_reduce.cuh": ["block_reduce"],
    "csrc/ladders/cuda/gemm.cu": [f"cuda_gemm_v{v}" for v in range(1, 7)],
    "csrc/cuda/gemm.cuh": ["cuda_gemm_load4", "cuda_gemm_v7"],
    "csrc/cuda/allocator.cu": ["allocator_allocate", "allocator_release", "size_class"],
    "csrc/cuda/copy.cu": ["cross_device_copy"],
    "aakaar/book/cuda_emu/drivers/book_kernels.cu": ["whoami_kernel", "barrier_bug"],
}


def test_part_three_is_in_the_toc_in_order():
    toc = (BOOK / "_toc.yml").read_text()
    positions = [toc.index(f"file: {c}") for c in CHAPTERS]
    assert positions == sorted(positions) and toc.index("06-matmul-on-the-cpu") < positions[0] < toc.index(
        "11-the-computational-graph")
    assert 'caption: "Part III: the GPU"' in toc


@pytest.mark.parametrize("path, names", MARKERS.items(), ids=list(MARKERS))
def test_every_marker_is_included_by_a_chapter(path, names):
    pages = "".join((BOOK / f"{c}.md").read_text() for c in CHAPTERS)
    text = (REPO / path).read_text()
    for name in names:
        assert text.count(f"// [[book:{name}]]") == 1 and text.count(f"// [[/book:{name}]]") == 1, (path, name)
        assert f'"// [[book:{name}]]"' in pages, f"no chapter includes {path}:{name}"


# ---- the Python model of the programming model (aakaar.book.cuda_emu.pysim) ----

def tree_sum(t, x, out, barriers=True):
    buf = t.shared["buf"]
    buf[t.threadIdx.x] = x[t.threadIdx.x]
    if barriers:
        yield syncthreads()
    half = t.blockDim.x // 2
    while half:
        if t.threadIdx.x < half:
            buf[t.threadIdx.x] += buf[t.threadIdx.x + half]
        if barriers:
            yield syncthreads()
        half //= 2
    if t.threadIdx.x == 0:
        out[0] = buf[0]


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_pysim_barriers_make_a_tree_sum_correct_in_any_order(order):
    x, out = np.arange(64.0), np.zeros(1)
    launch(tree_sum, 1, 64, args=(x, out), shared={"buf": (64, np.float64)}, order=order)
    assert out[0] == x.sum()


@pytest.mark.parametrize("order, message", [("forward", r"reads buf\[32\], which no thread has written"),
                                            ("reverse", r"race: thread \(31, 0, 0\).* reads buf\[63\], which thread \(63, 0, 0\).* wrote after")])
def test_pysim_exposes_a_missing_barrier(order, message):
    """Without barriers a thread reads what nobody wrote yet, or what another thread wrote in the same phase."""
    x, out = np.arange(64.0), np.zeros(1)
    with pytest.raises(SimError, match=message):
        launch(tree_sum, 1, 64, args=(x, out, False), shared={"buf": (64, np.float64)}, order=order)


def tiled_copy(t, x, out, mistake=None):
    """Each round, every thread stores one value and reads its neighbour's: two barriers per round."""
    tile, i = t.shared["tile"], t.threadIdx.x
    for r in range(3):
        tile[i] = x[r, i]
        if mistake == "plain call":
            syncthreads()
        elif mistake != "no first barrier":
            yield syncthreads()
        out[r, i] = tile[(i + 1) % t.blockDim.x]
        if mistake != "no second barrier":
            yield syncthreads()
    if mistake == "both write":
        tile[0] = 1.0


@pytest.mark.parametrize("order", ["forward", "reverse"])
@pytest.mark.parametrize("mistake, message", [
    ("plain call", "called syncthreads\\(\\) without yield"),
    ("no first barrier", "(no thread has written|wrote after the last barrier)"),
    ("no second barrier", "(wrote after the last barrier|overwrites tile\\[\\d+\\], which .* read after)"),
    ("both write", "both write tile\\[0\\]"),
])
def test_pysim_names_the_race(order, mistake, message):
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(SimError, match=message):
        launch(tiled_copy, 1, 4, args=(x, np.zeros((3, 4)), mistake), shared={"tile": (4, np.float64)}, order=order)


def test_pysim_race_free_kernel_passes_in_both_orders():
    x = np.arange(12.0).reshape(3, 4)
    for order in ("forward", "reverse"):
        out = np.zeros((3, 4))
        launch(tiled_copy, 1, 4, args=(x, out), shared={"tile": (4, np.float64)}, order=order)
        np.testing.assert_array_equal(out, np.roll(x, -1, axis=1))


def test_pysim_shuffles_follow_cuda():
    def kernel(t, out):
        v = float(t.threadIdx.x)
        got = yield shfl_down(v, 5)
        out[t.threadIdx.x] = got

    out = np.zeros(64)
    launch(kernel, 1, 64, args=(out,))
    lane = np.arange(64) % 32
    # lanes 27..31 read past the warp's end and keep their own value, as __shfl_down_sync does
    want = np.where(lane + 5 < 32, np.arange(64) + 5, np.arange(64))
    np.testing.assert_array_equal(out, want)


def test_pysim_reports_rule_breaking_kernels():
    def divergent(t):
        if t.threadIdx.x < 10:
            yield syncthreads()

    with pytest.raises(SimError, match="not reached by every thread"):
        launch(divergent, 1, 32)

    def partial_shuffle(t):
        if t.threadIdx.x < 16:
            yield shfl_down(1.0, 1)

    with pytest.raises(SimError, match="stuck"):
        launch(partial_shuffle, 1, 32)
    with pytest.raises(SimError, match="1024"):
        launch(lambda t: None, 1, (32, 33))
    with pytest.raises(ValueError, match="grid"):
        launch(lambda t: None, 0, 32)
    with pytest.raises(SimError, match="yielded"):
        launch(lambda t: (yield 3), 1, 1)


def test_pysim_counts_global_reads_per_thread():
    a = CountingArray(np.arange(10.0))

    def kernel(t, a):
        for k in range(t.threadIdx.x + 1):
            _ = a[k]
        _ = a[0:3]  # a slice counts its elements

    threads = launch(kernel, 1, 4, args=(a,))
    assert [th.reads for th in threads] == [4, 5, 6, 7]


# ---- the allocator model (chapter 10) against allocator.cu ----

def test_allocator_model_constants_match_the_cpp():
    src = (REPO / "csrc/cuda/allocator.cu").read_text()
    step = re.search(r"constexpr size_t kSmallStep = (\d+);", src)
    limit = re.search(r"constexpr size_t kSmallLimit = size_t\(1\) << (\d+);", src)
    assert step and limit, "the size-class constants moved in allocator.cu"
    from aakaar.book.cuda_emu import allocator_model
    assert allocator_model.SMALL_STEP == int(step.group(1))
    assert allocator_model.SMALL_LIMIT == 1 << int(limit.group(1))
    # the quarter-power-of-two rule of size_class() above the limit
    assert "const size_t step = pow2 / 4;" in src


@pytest.mark.parametrize("nbytes, want", [(0, 512), (1, 512), (512, 512), (513, 1024), (1 << 20, 1 << 20),
                                          ((1 << 20) + 1, (1 << 20) + (1 << 18)), (3 << 20, 3 << 20),
                                          ((5 << 20) + 1, 6 << 20), (1 << 30, 1 << 30)])
def test_size_classes(nbytes, want):
    assert size_class(nbytes) == want
    assert size_class(nbytes) >= nbytes and (nbytes <= 512 or size_class(nbytes) <= 1.25 * nbytes + 512)


def test_allocator_model_reuses_blocks_like_the_real_one():
    a = CachingAllocatorModel()
    h = a.malloc(1000)
    a.release(h)
    a.malloc(900)  # same 1024-byte class: a cache hit, no new device memory
    s = a.stats()
    assert (s["num_allocs"], s["num_cache_hits"], s["num_device_mallocs"]) == (2, 1, 1)
    assert s["allocated_bytes"] == 1024 and s["reserved_bytes"] == 1024
    a.malloc(5000)
    a.empty_cache()  # nothing cached: the live blocks stay
    assert a.stats()["reserved_bytes"] == 1024 + 5120
    with pytest.raises(ValueError):
        size_class(-1)


# ---- the kernels through aakaar.book.cuda_emu (g++ and the C++ emulator) ----

@pytest.fixture(scope="module")
def emu():
    why = cuda_emu.available()
    if why:
        pytest.skip(why)
    return cuda_emu


def test_driver_runs_the_real_kernels(emu):
    who = emu.run("book_kernels", "whoami", 2, 64)
    assert who["n"] == 96 and who["global"] == list(range(96))
    assert who["block"][64] == 1 and who["thread"][64] == 0 and who["warp"][63] == 1 and who["lane"][33] == 1
    add = emu.run("book_kernels", "add", 1001)
    assert add["contiguous_max_abs_err"] == 0 and add["transposed_max_abs_err"] == 0
    s = emu.run("book_kernels", "sum", 12345, 1)
    assert [v["name"] for v in s["versions"]] == ["shared_tree", "warp_shuffle"]
    assert all(v["abs_err"] < 1e-3 for v in s["versions"])
    g = emu.run("book_kernels", "gemm", 33, 65, 17, 1)
    assert len(g["versions"]) == 7 and all(v["max_rel_err"] < 1e-5 for v in g["versions"])
    bug = emu.run("book_kernels", "barrier_bug")
    assert "__syncthreads()" in bug["error"] and "32 of 64 threads" in bug["error"]
    assert "/work/" not in bug["error"] and "aakaar/book/cuda_emu/drivers/book_kernels.cu" in bug["error"]


def test_driver_bad_arguments_are_clear_errors(emu):
    with pytest.raises(RuntimeError, match="usage"):
        emu.run("book_kernels", "gemm", 1)
    with pytest.raises(ValueError, match="unknown driver 'nope'"):
        emu.build("nope")


def test_build_is_cached(emu):
    first = emu.build()
    mtime = first.stat().st_mtime
    assert emu.build() == first and first.stat().st_mtime == mtime


# ---- the benchmark JSON read by chapter 9 ----

def test_ladder_json_is_dated_labelled_and_checked():
    data = json.loads((BOOK / "data" / "cuda-ladder.json").read_text())
    assert data["runs"], "no run recorded"
    for run in data["runs"]:
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", run["date"]) and run["device"]
        assert run["backend"] in ("emulator", "gpu")
        if run["backend"] == "emulator":
            assert run["label"] == "emulator (CPU), not GPU performance"
        # runs recorded before rungs v6 and v7 existed have five or six versions
        assert [v["version"] for v in run["gemm"]["versions"]] in ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6],
                                                                   [1, 2, 3, 4, 5, 6, 7])
        assert all(v["max_rel_err"] < 1e-4 and v["gflops"] > 0 for v in run["gemm"]["versions"])
        if run["backend"] == "gpu":  # measured beside cuBLAS and the copy bandwidth, and checked
            assert run["references"]["cublas_gflops"] > 0 and run["references"]["copy_gb_per_s"] > 0
            assert run["gemm"]["checked_rows"] >= 64
    chapter = (BOOK / "09-matmul-on-the-gpu.md").read_text()
    assert "GPU figures not yet measured" in chapter and 'data/cuda-ladder.json' in chapter


# ---- the launch explorer ----

def run_js(tmp_path, body: str):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    target = tmp_path / "launch_explorer.mjs"
    shutil.copy(REPO / "aakaar/book/widgets/launch_explorer.js", target)
    script = f"const m = await import({json.dumps(target.as_uri())});\n{body}"
    r = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_launch_explorer_js_agrees_with_the_python_model(tmp_path):
    got = run_js(tmp_path, """
        console.log(JSON.stringify([m.launchLayout(200, 64), m.launchLayout(5, 0),
          m.warpSegments(0, 64, 200, 1, 4), m.warpSegments(1, 64, 200, 2, 4), m.warpSegments(0, 64, 200, 32, 4),
          m.warpSegments(6, 64, 200, 1, 4), m.warpSegments(3, 48, 100, 1, 4)]));
    """)
    layout, bad, coalesced, stride2, column, tail, partial = got
    assert layout == {"grid": 4, "threads": 256, "idle": 56} and "error" in bad
    # the same counts from the definition, in Python
    def segments(warp, block, n, stride):
        per_block = -(-block // 32)
        b, first = divmod(warp, per_block)
        idx = [b * block + first * 32 + lane for lane in range(32) if first * 32 + lane < block]
        idx = [i for i in idx if i < n]
        return sorted({(i * stride * 4) // 32 for i in idx}), len(idx)  # 32-byte sectors
    for got_w, args in [(coalesced, (0, 64, 200, 1)), (stride2, (1, 64, 200, 2)), (column, (0, 64, 200, 32)),
                        (tail, (6, 64, 200, 1)), (partial, (3, 48, 100, 1))]:
        segs, active = segments(*args)
        assert got_w["segments"] == segs and got_w["active"] == active, args
    assert coalesced["efficiency"] == 1 and stride2["efficiency"] == 0.5 and column["efficiency"] == 1 / 8
    assert partial["block"] == 1 and partial["first"] == 32 and partial["active"] == 16


def test_launch_explorer_rejects_bad_input():
    from aakaar.book.widgets import LaunchExplorer
    with pytest.raises(ValueError, match="block must be between 1 and 1024"):
        LaunchExplorer(block=2048)
    with pytest.raises(ValueError, match="warp must be below 8"):
        LaunchExplorer(n=200, block=64, warp=8)
    with pytest.raises(TypeError, match="n must be an int"):
        LaunchExplorer(n=2.5)
    w = LaunchExplorer(n=100, block=32, stride=4, warp=3)
    assert (w.n, w.block, w.stride, w.warp) == (100, 32, 4, 3)


def test_exercise_9_1_reads_every_rung_from_gemm_cu():
    """Exercise 9.1's check takes its answers from the launches in gemm.cu: all seven rungs must parse."""
    from aakaar.book.exercises.references import gemm_grid, gemm_launch_table

    table = gemm_launch_table()
    assert sorted(table) == list(range(1, 8)), table
    assert table[1] == ("M", 32, "N", 32)  # v1: x walks the rows of C
    assert all(table[v][0] == "N" for v in range(2, 8))  # from v2 on, x walks the columns
    assert [table[v][1] for v in range(2, 8)] == [32, 32, 64, 128, 128, 128]
    assert gemm_grid(100, 33, 1) == (4, 2) and gemm_grid(100, 33, 5) == (1, 1) and gemm_grid(129, 64, 4) == (1, 3)
    with pytest.raises(ValueError, match="no GEMM version 8"):
        gemm_grid(1, 1, 8)
