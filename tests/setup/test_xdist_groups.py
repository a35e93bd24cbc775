"""The test command's `-n 2 --dist loadgroup` really keeps an xdist group on one worker.

The book-site tests rely on it: their session fixture builds the book into book/_build, and two
workers building at once corrupt jupyter-cache (a FileExistsError half-way through the build).
pytest 9.2 with pytest-xdist 3.8 broke the grouping without a word; this runs a tiny suite the way
scripts/test.sh runs ours and counts how many workers set up the group's session fixture.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

CONFTEST = textwrap.dedent("""
    import os
    import pytest

    @pytest.fixture(scope="session")
    def built(tmp_path_factory):
        with open(os.environ["GROUP_LOG"], "a") as f:
            f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
""")
GROUPED = textwrap.dedent("""
    import pytest

    pytestmark = pytest.mark.xdist_group("site")

    @pytest.mark.parametrize("i", range(6))
    def test_grouped(built, i):
        pass
""")
UNGROUPED = textwrap.dedent("""
    import time
    import pytest

    @pytest.mark.parametrize("i", range(12))
    def test_other(i):
        time.sleep(0.02)
""")


def test_loadgroup_sends_a_group_to_one_worker(tmp_path):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name in ("test_grouped_a.py", "test_grouped_b.py"):
        (tmp_path / name).write_text(GROUPED)
    (tmp_path / "test_ungrouped.py").write_text(UNGROUPED)
    log = tmp_path / "workers.log"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
                        "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "GROUP_LOG": str(log)})
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    workers = log.read_text().split()
    assert len(workers) == 1, (
        f"the group's session fixture ran on {workers}: --dist loadgroup does not group with this "
        "pytest/pytest-xdist pair (see the pytest pin in pyproject.toml)")
