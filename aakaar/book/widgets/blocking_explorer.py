"""BlockingExplorer: pick the GEMM's blocking sizes (MC, KC, NC) and see whether the packed panels fit
the caches they are meant to live in. The footprints are computed in ``blocking_explorer.js``."""
from __future__ import annotations

import pathlib

import anywidget
import traitlets

from ._base import CSS, HERE

# The library's defaults for float32 and the register tile, as in csrc/cpu/gemm/packed.h
# (default_blocking<float>) and microkernels.h (Tile<float>); tests/book/widgets/test_blocking_explorer.py
# reads those files and fails if these drift.
DEFAULT_BLOCKING_F32 = (144, 256, 4080)
TILE_F32 = (6, 16)
# Used when the machine does not say (sysfs missing): a common x86 core of recent years.
FALLBACK_CACHES = (32 * 1024, 1024 * 1024, 32 * 1024 * 1024)


def machine_cache_sizes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> tuple[int, int, int]:
    """(L1 data, L2, L3) in bytes for the CPU running this code, read from Linux's sysfs.

    Anything missing falls back to ``FALLBACK_CACHES``: the widget is about proportions, and the
    reader can type their own sizes in the page."""
    found: dict[int, int] = {}
    for index in sorted(pathlib.Path(root).glob("index*")) if pathlib.Path(root).is_dir() else []:
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(size[-1:], 1)
        try:
            found[level] = int(size.rstrip("KMG")) * scale
        except ValueError:
            continue
    return tuple(found.get(lvl, fb) for lvl, fb in zip((1, 2, 3), FALLBACK_CACHES))


def _positive(value, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an int, got {value!r}")
    value = int(value.__index__())
    if value <= 0:
        raise ValueError(f"{what} must be > 0, got {value}")
    return value


class BlockingExplorer(anywidget.AnyWidget):
    """The packed GEMM's three blocks against the cache hierarchy.

    ``mc, kc, nc`` are the blocking sizes (elements), ``mr, nr`` the register tile, ``elem_bytes``
    4 (float32) or 8 (float64), ``l1, l2, l3`` the cache sizes in bytes (default: this machine's).
    """

    _esm = HERE / "blocking_explorer.js"
    _css = CSS
    mc = traitlets.Int(DEFAULT_BLOCKING_F32[0]).tag(sync=True)
    kc = traitlets.Int(DEFAULT_BLOCKING_F32[1]).tag(sync=True)
    nc = traitlets.Int(DEFAULT_BLOCKING_F32[2]).tag(sync=True)
    mr = traitlets.Int(TILE_F32[0]).tag(sync=True)
    nr = traitlets.Int(TILE_F32[1]).tag(sync=True)
    elem_bytes = traitlets.Int(4).tag(sync=True)
    l1 = traitlets.Int(FALLBACK_CACHES[0]).tag(sync=True)
    l2 = traitlets.Int(FALLBACK_CACHES[1]).tag(sync=True)
    l3 = traitlets.Int(FALLBACK_CACHES[2]).tag(sync=True)

    def __init__(self, mc: int = DEFAULT_BLOCKING_F32[0], kc: int = DEFAULT_BLOCKING_F32[1],
                 nc: int = DEFAULT_BLOCKING_F32[2], mr: int = TILE_F32[0], nr: int = TILE_F32[1],
                 elem_bytes: int = 4, caches: tuple[int, int, int] | None = None, **kwargs):
        sizes = {k: _positive(v, k) for k, v in dict(mc=mc, kc=kc, nc=nc, mr=mr, nr=nr).items()}
        if elem_bytes not in (4, 8):
            raise ValueError(f"elem_bytes must be 4 (float32) or 8 (float64), got {elem_bytes!r}")
        caches = machine_cache_sizes() if caches is None else tuple(caches)
        if len(caches) != 3:
            raise ValueError(f"caches must be (L1, L2, L3) in bytes, got {caches!r}")
        l1, l2, l3 = (_positive(c, f"cache size L{i}") for i, c in enumerate(caches, 1))
        super().__init__(**sizes, elem_bytes=elem_bytes, l1=l1, l2=l2, l3=l3, **kwargs)
