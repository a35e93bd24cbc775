"""The blocking explorer (chapter 6): its defaults are the library's GEMM blocking, Python validates
state, and the JavaScript footprints agree with what resolve_blocking() does."""
from __future__ import annotations

import re

import pytest

from aakaar.book.widgets import BlockingExplorer
from aakaar.book.widgets.blocking_explorer import DEFAULT_BLOCKING_F32, TILE_F32, machine_cache_sizes
from widget_helpers import REPO, run_js


def test_blocking_defaults_match_the_library_source():
    packed = (REPO / "csrc/cpu/gemm/packed.h").read_text()
    m = re.search(r"default_blocking<float>\(\) \{ return \{(\d+), (\d+), (\d+)\}; \}", packed)
    assert m, "default_blocking<float> not found in packed.h"
    assert tuple(int(x) for x in m.groups()) == DEFAULT_BLOCKING_F32
    tile = re.search(r"struct Tile<float> \{ static constexpr int MR = (\d+), NR = (\d+); \}",
                     (REPO / "csrc/cpu/gemm/microkernels.h").read_text())
    assert tile and tuple(int(x) for x in tile.groups()) == TILE_F32


def test_machine_cache_sizes_reads_sysfs_and_falls_back(tmp_path):
    for i, (level, kind, size) in enumerate([(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K"),
                                             (3, "Unified", "64M")]):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n"); (d / "type").write_text(f"{kind}\n"); (d / "size").write_text(f"{size}\n")
    assert machine_cache_sizes(str(tmp_path)) == (48 * 1024, 2048 * 1024, 64 * 1024 ** 2)
    assert machine_cache_sizes(str(tmp_path / "missing")) == (32 * 1024, 1024 ** 2, 32 * 1024 ** 2)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(mc=0), ValueError, "mc must be > 0"),
    (dict(kc=-4), ValueError, "kc must be > 0"),
    (dict(nc=2.5), TypeError, "nc must be an int"),
    (dict(elem_bytes=2), ValueError, "elem_bytes must be 4"),
    (dict(caches=(1, 2)), ValueError, r"caches must be \(L1, L2, L3\)"),
    (dict(caches=(32768, 0, 1)), ValueError, "cache size L2 must be > 0"),
])
def test_blocking_explorer_rejects_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        BlockingExplorer(**kwargs)


def test_js_footprints(need_program, tmp_path):
    got = run_js(need_program, tmp_path, "blocking_explorer.js", """
        const base = {mr: 6, nr: 16, elem_bytes: 4, l1: 32768, l2: 1048576, l3: 33554432};
        console.log(JSON.stringify([m.footprints({...base, mc: 144, kc: 256, nc: 4080}),
                                    m.footprints({...base, mc: 100, kc: 1024, nc: 100})]));
    """)
    default, big = got
    assert [b["bytes"] for b in default["blocks"][1:]] == [256 * 16 * 4, 144 * 256 * 4, 256 * 4080 * 4]
    assert [b["verdict"] for b in default["blocks"]] == ["fits"] * 4
    assert default["blocks"][0]["note"].startswith("12 accumulators + 2 B vectors + 1 broadcast = 15 of 16")
    # MC and NC are rounded up to whole tiles, as resolve_blocking() does; KC = 1024 overflows L1 (64 KiB strip)
    assert (big["blocking"]["mc"], big["blocking"]["nc"]) == (102, 112)
    assert big["blocks"][1]["verdict"] == "spills"
    assert abs(default["flopsPerByte"] - 2 * 6 * 16 / (4 * 22)) < 1e-12
