"""Reference answers that the check cells need but that must not sit, readable, in the notebook.

A check cell right under an exercise is the first place a stuck learner looks; a reference
written out there is the answer. These are computed from the library's own sources instead
(the CUDA ladder's launch code) or kept here, one import away, for the exercises whose
answer is a small model.
"""
from __future__ import annotations

import re
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]


def warp_sectors(addresses: list[int], sector: int = 32, elem: int = 4) -> int:
    """Distinct ``sector``-byte sectors holding the ``elem``-byte values at ``addresses``, byte by byte."""
    return len({b // sector for a in addresses for b in range(a, a + elem)})


def gemm_launch_table(source: Path | None = None) -> dict[int, tuple[str, int, str, int]]:
    """``{version: (dim along x, its tile, dim along y, its tile)}`` read from the launches in
    ``csrc/ladders/cuda/gemm.cu`` (e.g. ``dim3(blocks_for(N, kTile), blocks_for(M, kTile), nb)``)."""
    root = _ROOT / "csrc" / "ladders" / "cuda"
    gemm_cu = (source or root / "gemm.cu").read_text()
    gemm_h = (root / "gemm.h").read_text() + (_ROOT / "csrc" / "cuda" / "gemm.cuh").read_text()
    numbers = {m[1]: int(m[2]) for m in re.finditer(r"\b(k\w+) = (\d+)", gemm_cu + gemm_h)}
    versions = {m[1]: int(m[2]) for m in re.finditer(r"^\s*(\w+) = (\d+),", gemm_h, re.M)}
    table = {}
    for m in re.finditer(r"case GemmVersion::(\w+):.*?dim3\(blocks_for\((\w), (\w+)\), blocks_for\((\w), (\w+)\)",
                         gemm_cu, re.S):
        x_tile, y_tile = (int(t) if t.isdigit() else numbers[t] for t in (m[3], m[5]))
        table[versions[m[1]]] = (m[2], x_tile, m[4], y_tile)
    return table


def gemm_grid(M: int, N: int, version: int) -> tuple[int, int]:
    """The (gridDim.x, gridDim.y) rung ``version`` of the CUDA ladder launches for an M x N output."""
    table = gemm_launch_table()
    if version not in table:
        raise ValueError(f"no GEMM version {version}")
    x_dim, x_tile, y_dim, y_tile = table[version]
    size = {"M": M, "N": N}
    return (-(-size[x_dim] // x_tile), -(-size[y_dim] // y_tile))
