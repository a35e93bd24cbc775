"""Where the EMNIST benchmark's time goes: aakaar's training time, by kernel and by the chapter that built it.

One epoch of the benchmark's aakaar contestant runs under :class:`aakaar.profiler.profile`; every
backend-table row is credited to the chapter whose code it runs (:data:`CHAPTERS`), and what no
kernel holds — Python, argument checks, the autograd engine — to the chapters on the graph and
modules. The *GEMM floor* is the time the epoch's matrix products would take at the best rate the
library's GEMM reaches on a large square product, measured in the same process: the part of the
epoch no amount of work outside the GEMM can remove.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import aakaar as ak

# chapter -> its title and the backend-table rows it is credited with (entry, or entry/op).
CHAPTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "02": ("storage, shape, strides", ("fill", "random_uniform", "random_normal")),
    "03": ("views", ("copy",)),
    "04": ("broadcasting and elementwise", ("binary", "unary", "where", "add_scaled", "lerp_scalar")),
    "05": ("reductions", ("reduce", "arg_reduce", "softmax", "cumsum")),
    "06": ("matmul on the CPU", ("bmm", "linear", "linear_backward")),
    "10": ("memory: the allocator", ("allocate",)),
    "13b": ("convolutions", ("conv2d", "conv2d_backward", "max_pool2d", "avg_pool2d", "avg_pool2d_backward")),
    "14": ("loss functions", ("cross_entropy", "cross_entropy_backward", "pointwise_loss", "pointwise_loss_backward",
                               "ctc_loss", "ctc_loss_backward")),
    "15": ("optimizers", ("optimizer_step", "optimizer_step_capturable")),
    "16": ("data: gathering batches", ("index_select", "gather", "scatter")),
}
# api-shape branch: sorting and the scans are reductions along one dim (chapter 5); scatter_reduce is
# chapter 16's scatter with another combining op.
for _chapter, _entries in (("05", ("sort", "scan")), ("16", ("scatter_reduce",))):
    CHAPTERS[_chapter] = (CHAPTERS[_chapter][0], CHAPTERS[_chapter][1] + _entries)
# Chapters that build the same kernels: 6 and 6b climb one GEMM ladder, whose kernels CHAPTERS credits to "06".
SAME_KERNELS = {"06b": "06"}
OUTSIDE = ("11-13", "Python, checks and the autograd engine (outside kernels)")


def chapter_of(entry: str) -> str:
    """The chapter a backend-table entry is credited to; an entry no chapter lists raises (so none is lost)."""
    for chapter, (_, entries) in CHAPTERS.items():
        if entry in entries:
            return chapter
    raise KeyError(f"backend entry {entry!r} is credited to no chapter: add it to CHAPTERS in {__name__}")


def matmul_flops(sizes: Sequence[int], batch_rows: int) -> float:
    """Floating-point operations of an MLP's forward and backward matrix products over ``batch_rows`` samples
    (:func:`layer_matmul_flops` of its layers, 2·in·out per sample each)."""
    return layer_matmul_flops([2.0 * i * o for i, o in zip(sizes[:-1], sizes[1:])], batch_rows)


def layer_matmul_flops(forward_per_sample: Sequence[float], batch_rows: int) -> float:
    """Floating-point operations of a network's forward and backward matrix products over ``batch_rows`` samples,
    from each layer's forward flops per sample (a convolution counts as the GEMM it becomes).

    Forward: each layer's flops. Backward: the weight gradient of every layer (as many) and the input gradient
    of every layer but the first (the data needs none)."""
    fwd = sum(forward_per_sample) * batch_rows
    grad_x = sum(forward_per_sample[1:]) * batch_rows
    return 2 * fwd + grad_x


def gemm_peak_flops(n: int = 1024, repeats: int = 3) -> float:
    """The best rate (flop/s) of aakaar's float32 matmul on an n x n x n product, at the current thread count."""
    a, b = ak.randn(n, n), ak.randn(n, n)
    a @ b  # warm: packing buffers, the thread pool
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2.0 * n ** 3 / best


def profile_epoch(train_epoch: Callable[[], Any], matmul_flop: float) -> dict:
    """Runs ``train_epoch`` once under the profiler; the rows, the chapters' shares and the GEMM floor
    (``matmul_flop``: the epoch's matrix-product flops, e.g. :func:`matmul_flops`)."""
    with ak.profiler.profile() as prof:
        train_epoch()
    wall = prof.wall_seconds
    rows = [{"entry": e.name, "calls": e.count, "seconds": e.self_seconds, "share": e.self_seconds / wall}
            for e in prof.events() if e.device == "cpu"]
    by_chapter: dict[str, float] = {}
    for e in prof.events():
        ch = chapter_of(e.entry)
        by_chapter[ch] = by_chapter.get(ch, 0.0) + e.self_seconds
    by_chapter[OUTSIDE[0]] = prof.outside_kernels_seconds
    chapters = {ch: {"title": CHAPTERS[ch][0] if ch in CHAPTERS else OUTSIDE[1], "seconds": s, "share": s / wall}
                for ch, s in sorted(by_chapter.items(), key=lambda kv: -kv[1])}
    peak = gemm_peak_flops()
    floor = matmul_flop / peak
    return {"wall_seconds": wall, "rows": rows, "chapters": chapters,
            "gemm_floor": {"seconds": floor, "share": floor / wall, "peak_gflops": peak / 1e9,
                           "matmul_gflop": matmul_flop / 1e9}}


def profile_table(profile: dict, top: int = 8) -> str:
    """A markdown table of a profile: the top rows, the chapters, the GEMM floor."""
    lines = ["| kernel (backend entry) | calls | s | share |", "|---|---:|---:|---:|"]
    for r in profile["rows"][:top]:
        lines.append(f"| {r['entry']} | {r['calls']:,} | {r['seconds']:.3f} | {r['share']:.1%} |")
    lines += ["", "| chapter | what | s | share |", "|---|---|---:|---:|"]
    for ch, c in profile["chapters"].items():
        lines.append(f"| {ch} | {c['title']} | {c['seconds']:.3f} | {c['share']:.1%} |")
    g = profile["gemm_floor"]
    lines.append(f"\nGEMM floor: {g['matmul_gflop']:.1f} GFLOP of matrix products at the library's best "
                 f"{g['peak_gflops']:.1f} GFLOP/s take {g['seconds']:.3f} s, {g['share']:.1%} of the profiled "
                 f"epoch ({profile['wall_seconds']:.2f} s)")
    return "\n".join(lines)


def chapter_share(profile: dict, chapter: str) -> float:
    """The share of the profiled epoch credited to ``chapter`` (0 when none of its kernels ran)."""
    return profile["chapters"].get(chapter, {"share": 0.0})["share"]



# The chapters whose kernels only the CNN runs: their share is read from the CNN's committed profile.
CNN_CHAPTERS = ("13b",)


def committed_benchmark(path: str | None = None, model: str = "mlp") -> dict:
    """The benchmark results committed with the book (``book/data/emnist-benchmark.json``; the CNN's in
    ``book/data/emnist-benchmark-cnn.json``)."""
    import json
    from pathlib import Path

    name = "emnist-benchmark.json" if model == "mlp" else f"emnist-benchmark-{model}.json"
    p = Path(path) if path else Path(__file__).resolve().parents[3] / "book" / "data" / name
    if not p.is_file():
        flag = "" if model == "mlp" else f" --model {model}"
        raise FileNotFoundError(f"{p}: the committed EMNIST benchmark results are missing; run "
                                f"python -m aakaar.book.bench emnist{flag} --profile --json book/data/{name}")
    return json.loads(p.read_text())


def share_line(chapter: str, optimizer: str = "sgd", path: str | None = None) -> str:
    """One sentence for a chapter's "In the library" box: its share of the committed benchmark's profiled epoch."""
    bench = committed_benchmark(path, "cnn" if chapter in CNN_CHAPTERS else "mlp")
    profile = bench["profile"][optimizer]
    n = bench["config"]["threads"][0]
    model = bench["config"].get("model", "mlp").upper()
    where = (f"one epoch of the EMNIST benchmark's {model} with {'SGD' if optimizer == 'sgd' else optimizer}, "
             f"at {n} thread{'s' if n > 1 else ''}, measured {bench['date'][:10]}")
    if chapter in ("07", "08", "09"):
        return (f"Share of the benchmark: none — the committed run ({where}) trained on the CPU; "
                "`python -m aakaar.book.bench emnist --device cuda` runs it on a GPU.")
    if chapter in ("11", "12", "13"):
        c = profile["chapters"][OUTSIDE[0]]
        return (f"Share of the benchmark: Python, argument checks and the autograd engine — the work outside "
                f"kernels that chapters 11–13 build — take {c['share']:.1%} of {where}.")
    if chapter == "17":
        return (f"Share of the benchmark: all of it — this chapter runs the benchmark, and its profile above "
                f"({where}) credits every kernel to the chapter that built it.")
    if chapter == "18":
        return (f"Share of the benchmark: none — the benchmark trains ({where}); this chapter serves the "
                "trained model, and what its calls cost is measured in book/data/go-serving.json.")
    if chapter in SAME_KERNELS or chapter in SAME_KERNELS.values():
        owner = SAME_KERNELS.get(chapter, chapter)
        names = " and ".join(str(int(c[:2])) + c[2:] for c in sorted({owner, *[k for k, v in SAME_KERNELS.items() if v == owner]}))
        entries = ", ".join(f"`{e}`" for e in CHAPTERS[owner][1])
        return (f"Share of the benchmark: the GEMM's kernels ({entries}), which chapters {names} build together, "
                f"take {chapter_share(profile, owner):.1%} of {where}.")
    if chapter not in CHAPTERS:
        raise KeyError(f"chapter {chapter!r} runs no kernel of the benchmark's")
    entries = ", ".join(f"`{e}`" for e in CHAPTERS[chapter][1])
    return (f"Share of the benchmark: this chapter's kernels ({entries}) take {chapter_share(profile, chapter):.1%} "
            f"of {where}.")


def glue_share(chapter: str) -> None:
    """Glue the chapter's share line (MyST-NB) as ``benchmark_share``, for its "In the library" box."""
    from IPython.display import Markdown
    from myst_nb import glue

    glue("benchmark_share", Markdown(share_line(chapter)), display=False)
