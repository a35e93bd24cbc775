"""The C++ and CUDA exercises' check cells name the likely mistake: a typical wrong answer, put in
place of the solution region of the real %%cpp / %%cuda cell of solutions/NN-*.ipynb and run with
that notebook's setup and check cells (in-process, in IPython), gets its own hint. Each wrong cell is
compiled once (a few seconds) and then comes from aakaar.jit's cache."""
from __future__ import annotations

import shutil

import pytest

from aakaar.book.exercises.notebooks import BEGIN, END, cell_source, chapter_notebooks, read_notebook
from hint_helpers import REPO, notebook_cells

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (aakaar.jit needs one)")

WRONG = [  # (exercise, what the mistake is, the region's wrong code, words of the hint it must get)
    ("7.5", "no grid-stride loop", """\
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = x[i] + b[i % cols];""", "i + blockDim.x * gridDim.x"),
    ("10.4", "cache keyed by the request's size", """\
  std::unordered_map<size_t, std::vector<void*>> free_lists;
  std::vector<size_t> asked(slots);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t s = events[2 * k], nbytes = events[2 * k + 1];
    if (nbytes >= 0) {
      std::vector<void*>& cached = free_lists[size_t(nbytes)];
      void* p = cached.empty() ? device.malloc(aakaar::cuda::size_class(size_t(nbytes))) : cached.back();
      if (!cached.empty()) cached.pop_back();
      slot[s] = p;
      asked[s] = size_t(nbytes);
      out[k] = reinterpret_cast<int64_t>(p);
    } else {
      free_lists[asked[s]].push_back(slot[s]);
      out[k] = 0;
    }
  }""", "key the cache by aakaar::cuda::size_class(nbytes)"),
    ("13.4", "one pass in float", """\
      float s = 0, sq = 0;
      for (int64_t j = 0; j < D; ++j) {
        s += row[j];
        sq += row[j] * row[j];
      }
      const float mean = s / float(D);
      const float rstd = 1.0f / std::sqrt(sq / float(D) - mean * mean + float(eps));
      for (int64_t j = 0; j < D; ++j) o[j] = (row[j] - mean) * rstd * g[j] + b[j];""", "subtract the mean before"),
    ("5.6", "one float accumulator", """\
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += p[i];
  return s;""", "drifts by 1%"),
    ("6.4", "B read as if transposed", """\
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) c[i * N + j] += a[i * K + k] * b[j * K + k];""", "b[k * N + j]"),
    ("6b.3", "overwrites the tile", """\
  float acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p)
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < NR; ++j) acc[i][j] += a[p * MR + i] * b[p * NR + j];
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) c[i * ldc + j] = acc[i][j];""", "must add to c, not overwrite it"),
    ("8.4", "tile not turned", """\
  const int col = blockIdx.x * TILE + tx;
  for (int r = ty; r < TILE; r += ROWS) {
    const int row = blockIdx.y * TILE + r;
    if (row < rows && col < cols) tile[r][tx] = x[int64_t(row) * cols + col];
  }
  __syncthreads();
  const int out_col = blockIdx.y * TILE + tx;
  for (int r = ty; r < TILE; r += ROWS) {
    const int out_row = blockIdx.x * TILE + r;
    if (out_row < cols && out_col < rows) out[int64_t(out_row) * rows + out_col] = tile[r][tx];
  }""", "write tile[tx][r]"),
    ("8.5", "first offset 32", """\
  for (int offset = 32; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;""", "counted twice"),
    ("9.4", "no barrier after the multiply-adds", """\
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = row < M && k0 + tx < K ? A[int64_t(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[int64_t(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
  }""", "a __syncthreads() after the multiply-adds too"),
    ("12.7", "no product rule", """\
      const float v = px[i];
      gx[i] = g[i] * 0.5f * (1.0f + std::erf(v * 0.70710678f));""", "the product rule"),
    ("14.7", "no maximum subtracted", """\
      float s = 0.0f;
      for (int64_t c = 0; c < C; ++c) s += aakaar::cpu::exp_f32(row[c]);
      loss[r] = std::log(double(s)) - double(row[t[r]]);""", "subtract the row's maximum"),
    ("15.6", "eps under the root", """\
      const float gi = pg[i];
      const float mi = pm[i] + w1 * (gi - pm[i]);
      const float vi = pv[i] * b2 + (w2 * gi) * gi;
      pm[i] = mi;
      pv[i] = vi;
      pp[i] = pp[i] + (neg_step_size * mi) / std::sqrt(vi / (bc2_sqrt * bc2_sqrt) + e);""", "eps outside the root"),
]


def with_region(source: str, exercise: str, code: str) -> str:
    """``source`` with the solution region of ``exercise`` (markers included) replaced by ``code``."""
    out, inside = [], False
    for line in source.split("\n"):
        m = BEGIN.match(line)
        if m and m["id"] == exercise:
            out.append(code)
            inside = True
        elif inside and END.match(line):
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    setup, solution, check = notebook_cells(exercise)
    cell = with_region(solution, exercise, wrong)
    assert cell != solution and "SOLUTION" not in cell
    InteractiveShell.clear_instance()
    sh = InteractiveShell.instance()
    try:
        for src in (setup, "%load_ext aakaar.jit", cell):
            sh.run_cell(src, store_history=False).raise_error()
        result = sh.run_cell(check, store_history=False)
        assert isinstance(result.error_in_exec, AssertionError), result.error_in_exec
        message = str(result.error_in_exec)
        assert message.startswith(f"Exercise {exercise}: ") and "\n" not in message
        assert hint in message.split(" Hint (")[-1], message
    finally:
        InteractiveShell.clear_instance()


def test_every_cpp_exercise_has_a_mistake_tested():
    cells = {}
    for path in chapter_notebooks(REPO / "solutions").values():
        for c in read_notebook(path)["cells"]:
            src = cell_source(c)
            if c["cell_type"] == "code" and src.startswith(("%%cpp", "%%cuda")):
                cells.update({m["id"]: path.name for m in map(BEGIN.match, src.split("\n")) if m})
    # 4.6 (chapter 4) predates check(hints=): its check cell adds its hints on a line of their own.
    assert set(cells) - {"4.6"} == {e for e, *_ in WRONG}
