"""The GEMM ladder's figures, shared by chapters 6 (the cache-blocked rungs) and 6b (SIMD, packing and
threads): a bar chart of measured rates and the ladder on a roofline. Both take the rows of
:func:`aakaar.book.bench.gemm.bench_shape` measured at build time, and draw the versions asked for."""
from __future__ import annotations

from typing import Sequence

# Flops per byte loaded by each version's innermost loop, read off the code: v0 loads two floats per
# multiply-add; v1 and v2 load B and load and store C per multiply-add; a micro-kernel does 2·MR·NR
# flops per (MR + NR) floats loaded. v5 and the direct kernel run the AVX-512 tile when the CPU has it.
TILE_AVX2, TILE_AVX512 = (6, 16), (8, 32)


def tile_intensity(mr: int, nr: int) -> float:
    return 2 * mr * nr / (4 * (mr + nr))


def inner_loop_intensity(has_avx512: bool) -> dict[str, float]:
    wide = tile_intensity(*TILE_AVX512)
    return {"v0_naive": 2 / 8, "v1_loop_order": 2 / 12, "v2_blocked": 2 / 12,
            "v3_packed": tile_intensity(*TILE_AVX2), "v4_microkernel_avx2": tile_intensity(*TILE_AVX2),
            "v4_microkernel_avx512": wide,
            "v5_threads": wide if has_avx512 else tile_intensity(*TILE_AVX2),
            "v6_direct": wide}


def ladder_bars(rows: Sequence[dict], peak: float, names: Sequence[str] | None = None, shape: str = "256 x 256 x 256"):
    """Horizontal bars of GFLOP/s for the rows named in ``names`` (all when None); dashed: ``peak``.
    Returns the figure (the chapter's cell shows it)."""
    import matplotlib.pyplot as plt

    rows = [r for r in rows if names is None or r["name"] in names]
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.32 * len(rows)))
    labels = [r["name"] for r in rows]
    gflops = [r["gflops"] for r in rows]
    colors = ["#4C8BE0" if n.startswith("v") else "#5BB35B" if n.startswith("library") else "#999999" for n in labels]
    ax.barh(labels[::-1], gflops[::-1], color=colors[::-1])
    ax.axvline(peak, color="k", ls="--", lw=0.8)
    for y, g in enumerate(gflops[::-1]):
        ax.text(g, y, f" {g:.1f}", va="center", fontsize=8)
    ax.set_xlim(0, 1.18 * max(max(gflops), peak))
    ax.set_xlabel(f"GFLOP/s (float32, {shape}, one thread; measured at build time)")
    ax.set_title(f"the GEMM ladder against numpy's BLAS (dashed: one-core peak, {peak:.0f} GFLOP/s)", fontsize=10)
    plt.tight_layout()
    return fig


def ladder_roofline(measured: dict[str, float], intensity: dict[str, float], peak: float, bw_memory: float,
                    bw_cache: float, n: int = 256, reference: float | None = None):
    """The versions in both ``measured`` (GFLOP/s) and ``intensity`` (flops per byte) on the roofline of
    one core; ``reference``: numpy's rate, drawn as a horizontal line. Returns the figure."""
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.logspace(-2, 3, 200)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    ax.loglog(x, np.minimum(peak, x * bw_memory), "k-", lw=1.5, label=f"roof: memory {bw_memory:.0f} GB/s")
    ax.loglog(x, np.minimum(peak, x * bw_cache), "k--", lw=1, label=f"roof: cache {bw_cache:.0f} GB/s")
    ax.axvline(n / 6, color="grey", lw=0.8, ls=":", label=f"ideal intensity of the {n}³ product")
    # Versions at the same intensity and about the same rate share one label, so labels never overlap.
    groups: list[tuple[list[str], float]] = []
    for name, i in sorted(((k, i) for k, i in intensity.items() if k in measured), key=lambda p: (p[1], measured[p[0]])):
        if groups and groups[-1][1] == i and measured[name] < 1.35 * measured[groups[-1][0][-1]]:
            groups[-1][0].append(name)
        else:
            groups.append(([name], i))
    for names, i in groups:
        for name in names:
            ax.scatter([i], [measured[name]], zorder=3)
        ax.annotate(" / ".join(names), (i, measured[names[-1]]), textcoords="offset points", xytext=(6, -3),
                    fontsize=8)
    if reference is not None:
        ax.axhline(reference, color="#999", lw=0.8, label="numpy (BLAS), measured")
    ax.set_xlabel("flops per byte loaded by the inner loop")
    ax.set_ylabel("GFLOP/s")
    ax.set_ylim(0.1, peak * 2)
    ax.set_xlim(1e-2, 3e3)
    ax.set_title("roofline of one core (measured at build time)")
    ax.legend(fontsize=8, loc="lower right")
    plt.tight_layout()
    return fig
