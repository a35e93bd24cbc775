"""One road to the kernels: op and autograd code reach kernels only through the backend table.

csrc/core/backend.h is the per-device dispatch table. A file under csrc/ops or csrc/autograd that
includes a header of csrc/cpu or csrc/cuda, or names their namespaces, has a second, hidden road to
one device's kernels: the other devices silently miss whatever it does there.
"""
from __future__ import annotations

import pathlib
import re

import pytest

CSRC = pathlib.Path(__file__).resolve().parents[2] / "csrc"
GUARDED = ("ops", "autograd")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?P<path>[^>"]+)[>"]', re.M)
DEVICE_NAMESPACE = re.compile(r"\b(?P<ns>cpu|cuda)::")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def guarded_files():
    files = sorted(p for d in GUARDED for p in (CSRC / d).rglob("*") if p.suffix in {".h", ".cpp", ".cuh", ".cu"})
    assert len(files) >= 10, f"expected the op and autograd sources under {CSRC}, found {len(files)}"
    return files


def device_includes(text: str) -> list[str]:
    """The #includes of `text` that name a header under csrc/cpu or csrc/cuda."""
    return [m["path"] for m in INCLUDE.finditer(text) if m["path"].split("/")[0] in {"cpu", "cuda"}]


def device_namespaces(text: str) -> list[str]:
    """Uses of the cpu:: or cuda:: namespaces outside comments."""
    return [m["ns"] for m in DEVICE_NAMESPACE.finditer(COMMENT.sub("", text))]


@pytest.mark.parametrize("path", guarded_files(), ids=lambda p: str(p.relative_to(CSRC)))
def test_ops_and_autograd_do_not_reach_device_code(path):
    text = path.read_text()
    assert not device_includes(text), (
        f"{path.relative_to(CSRC)} includes {device_includes(text)}: op and autograd code reaches kernels only "
        "through backend(device) (csrc/core/backend.h); add a table entry instead")
    assert not device_namespaces(text), (
        f"{path.relative_to(CSRC)} names {sorted(set(device_namespaces(text)))}:: outside comments: call the "
        "kernel through backend(device) instead")


def test_the_check_catches_a_hidden_road():
    """The patterns above must see the forms a hidden road takes (else the test above proves nothing)."""
    assert device_includes('#include "cpu/gemm/gemm.h"\n#include "core/shape.h"') == ["cpu/gemm/gemm.h"]
    assert device_includes('  #  include <cuda/allocator.h>') == ["cuda/allocator.h"]
    assert device_namespaces("cpu::isa_kernels().add_scaled(out, a, b, 1.0);") == ["cpu"]
    assert device_namespaces("// the CPU's is in cpu::linear\nbackend(d).linear(out);") == []


def test_the_backend_table_lists_the_fused_kernels():
    """Every fused kernel is an entry of the table, not a function an op calls directly."""
    table = (CSRC / "core" / "backend.h").read_text()
    for entry in ("linear", "linear_backward", "cross_entropy", "cross_entropy_backward", "add_scaled",
                  "lerp_scalar"):
        assert re.search(rf"\(\*{entry}\)\(", table), f"backend.h has no entry {entry}"
