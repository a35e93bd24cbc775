"""Every listing and source link in the book points at something real."""
from __future__ import annotations

import pathlib
import ast
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BOOK = REPO / "book"

PAGES = sorted(BOOK.glob("*.md"))
INCLUDE = re.compile(r"```\{literalinclude\} (?P<path>\S+)\n(?P<opts>(?::[\w-]+:.*\n)*)```")
DOWNLOAD = re.compile(r"\{download\}`[^`<]*<(?P<path>[^>]+)>`")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$", re.M)
# The markers the library promises (csrc files) and that the chapters rely on.
MARKERS = {
    "csrc/core/tensor.h": ["tensor_fields"],
    "csrc/core/tensor.cpp": ["contiguous_strides", "is_contiguous"],
    "csrc/ops/view.cpp": ["transpose", "expand", "view_strides"],
    "csrc/core/shape.h": ["broadcast_shapes"],
    "csrc/core/backend.h": ["backend_table"],
    "csrc/ops/elementwise.cpp": ["binary_op"],
    "csrc/cpu/iterator.h": ["coalesce", "strided_loop"],
    "csrc/cpu/reduce.cpp": ["reduce_loop", "softmax"],
    "csrc/ladders/cpu_gemm/v0_naive.cpp": ["gemm_v0"],
    "csrc/cpu/gemm/loop_order.cpp": ["gemm_v1"],
    "csrc/ladders/cpu_gemm/v2_blocked.cpp": ["gemm_v2"],
    "csrc/cpu/gemm/microkernel_portable.cpp": ["gemm_ukernel_portable"],
    "csrc/cpu/gemm/microkernel_avx2.cpp": ["gemm_ukernel_avx2_loop"],
    "csrc/cpu/gemm/microkernel_avx512.cpp": ["gemm_ukernel_avx512"],
    "csrc/cpu/gemm/pack_avx2.cpp": ["gemm_pack_b_transpose"],
    "csrc/cpu/elementwise_loops.h": ["binary_run", "add_scaled"],
    "csrc/cpu/gemm/threads.cpp": ["gemm_v5_split"],
    "csrc/cpu/gemm/packed.h": ["gemm_loops_sketch", "gemm_five_loops", "gemm_pack_a"],
    "csrc/cpu/fused/linear.cpp": ["linear_forward", "linear_backward"],
    "csrc/autograd/node.h": ["edge", "node"],
    "csrc/autograd/engine.cpp": ["accumulate_grad", "dependency_count", "engine_loop", "record", "saved_tensor_unpack"],
    "csrc/autograd/derivatives.cpp": ["amax_backward", "binary_add_mul", "bmm_backward", "index_backward",
                                      "max_dim_backward", "softmax_backward", "sum_to", "view_scatter"],
    "csrc/cpu/fused/cross_entropy.cpp": ["cross_entropy_backward", "cross_entropy_forward", "cross_entropy_shift"],
    "csrc/cpu/fused/pointwise_loss_loops.h": ["pointwise_loss_value", "pointwise_loss_derivative", "pointwise_loss_dispatch"],
    "csrc/core/optimizer_math.h": ["sgd_element", "adam_element", "rprop_element"],
    "csrc/cpu/fused/optimizer.cpp": ["optimizer_step_cpu", "optimizer_flat_loop"],
    "csrc/cpu/fused/optimizer_loops.h": ["optimizer_each"],
    "csrc/cpu/fused/optimizer_layerwise.h": ["lamb_step"],
    "csrc/cpu/fused/ctc_loss.cpp": ["ctc_alpha"],
    "csrc/cpu/fused/conv2d.cpp": ["im2col", "conv2d_forward", "conv2d_backward"],
    "csrc/cuda/conv_ops.cu": ["cuda_implicit_gemm"],
}


def includes():
    for page in PAGES:
        for m in INCLUDE.finditer(page.read_text()):
            opts = {o["key"]: o["value"].strip().strip('"') for o in OPTION.finditer(m["opts"])}
            yield pytest.param(page, m["path"], opts, id=f"{page.stem}:{m['path']}:{opts.get('start-after', opts.get('pyobject', ''))}")


def test_the_chapters_have_listings():
    assert len(list(includes())) >= 10


@pytest.mark.parametrize("page, path, opts", list(includes()))
def test_literalinclude_resolves(page, path, opts):
    target = (page.parent / path).resolve()
    assert target.is_file(), f"{page.name}: {path} does not exist"
    text = target.read_text()
    if "start-after" in opts or "end-before" in opts:
        start, end = opts["start-after"], opts["end-before"]
        assert text.count(start) == 1, f"{path}: marker {start!r} must appear exactly once"
        assert text.count(end) == 1, f"{path}: marker {end!r} must appear exactly once"
        body = text[text.index(start) + len(start):text.index(end)]
        assert body.strip(), f"{path}: nothing between {start!r} and {end!r}"
    elif "pyobject" in opts:
        names = {n.name for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert opts["pyobject"] in names, f"{path} has no {opts['pyobject']}"
    else:
        pytest.fail(f"{page.name}: literalinclude of {path} must select a region by marker or :pyobject:")


def test_every_promised_marker_is_used_and_present():
    used = {(str((p.parent / path).resolve().relative_to(REPO)), o.get("start-after", ""))
            for p, path, o in (param.values for param in includes())}
    for path, names in MARKERS.items():
        for name in names:
            assert (path, f"// [[book:{name}]]") in used, f"no chapter includes {path}:{name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_source_links_resolve(page):
    links = [m["path"] for m in DOWNLOAD.finditer(page.read_text())]
    for path in links:
        assert (page.parent / path).resolve().is_file(), f"{page.name}: {path} does not exist"


@pytest.mark.parametrize("page", [p for p in PAGES if p.stem[:2].isdigit()], ids=lambda p: p.stem)
def test_each_chapter_has_an_in_the_library_box_and_a_figure(page):
    text = page.read_text()
    assert ":::{admonition} In the library" in text
    assert "plt.show()" in text, "every chapter has at least one figure"
    assert re.search(r"\$[^$\n]+\$", text), "every chapter has typeset maths"
    if int(page.stem[:2]) >= 2:
        assert ":::{exercise}" in text
        assert "aakaar.book.widgets import" in text
        # every chapter says what share of the finale's training time its code takes (committed profile)
        box = text[text.index(":::{admonition} In the library"):]
        assert "{glue:md}`benchmark_share`" in box[:box.index("\n:::")], "the In the library box lacks its share"
        chapter = re.match(r"\d\d[a-z]?", page.stem)[0]  # "14", or "13b" for a chapter placed after 13
        assert f'glue_share("{chapter}")' in text
