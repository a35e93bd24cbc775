"""Sphinx extension: a download button for every chapter's notebook, and Binder and Colab buttons.

sphinx-book-theme draws the buttons; this extension gives it what it cannot know by itself.

* **The repository.** Launch buttons need the repository's web address, which a clone does not
  name in its files: it is taken from ``AAKAAR_REPOSITORY_URL`` (and ``AAKAAR_REPOSITORY_BRANCH``),
  else from GitHub Actions' ``GITHUB_SERVER_URL``/``GITHUB_REPOSITORY``/``GITHUB_REF_NAME`` (so the
  published site links to wherever it is hosted), else from the git remote ``origin``. Without one
  the pages have no launch buttons, and the build says so.
* **The notebooks.** A chapter is a MyST markdown file, which neither Binder's Jupyter nor Colab
  opens as a notebook. ``python -m aakaar.book.online notebooks`` writes each chapter as an
  ``.ipynb`` with a set-up cell first: Binder's ``binder/postBuild`` writes them beside the chapters,
  and the Pages workflow pushes them to the branch ``colab-notebooks``, from which Colab opens them
  (``AAKAAR_COLAB_BRANCH`` overrides the name). The buttons are pointed at those files.
* **The download.** The theme copies the executed notebook into ``_sources`` only when launch
  buttons are on; this extension does it for every chapter, so the ``.ipynb`` download is always
  there.

The extension writes ``_launch.json`` into the site (the repository used, or null), for the tests.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
BINDER, COLAB = "https://mybinder.org", "https://colab.research.google.com"
COLAB_BRANCH = "colab-notebooks"
PATH_TO_BOOK = "book"


def _git(*args: str, cwd: Path) -> str | None:
    try:
        r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def https_url(remote: str) -> str:
    """``git@github.com:o/r.git`` or ``https://github.com/o/r.git`` -> ``https://github.com/o/r``."""
    m = re.match(r"^git@([^:]+):(.+?)(?:\.git)?/?$", remote)
    url = f"https://{m[1]}/{m[2]}" if m else remote
    return re.sub(r"\.git/?$", "", url).rstrip("/")


def repository(srcdir: Path, env=os.environ) -> tuple[str | None, str, str]:
    """(web address or None, branch, where it came from)."""
    if env.get("AAKAAR_REPOSITORY_URL"):
        return https_url(env["AAKAAR_REPOSITORY_URL"]), env.get("AAKAAR_REPOSITORY_BRANCH", "main"), \
            "AAKAAR_REPOSITORY_URL"
    if env.get("GITHUB_REPOSITORY"):
        server = env.get("GITHUB_SERVER_URL", "https://github.com")
        return f"{server}/{env['GITHUB_REPOSITORY']}", env.get("GITHUB_REF_NAME") or "main", "GitHub Actions"
    origin = _git("remote", "get-url", "origin", cwd=srcdir)
    if origin:
        branch = _git("rev-parse", "--abbrev-ref", "HEAD", cwd=srcdir) or "main"
        return https_url(origin), "main" if branch == "HEAD" else branch, "the git remote origin"
    return None, "main", "nowhere"


def _configure(app, config) -> None:
    url, branch, source = repository(Path(app.srcdir))
    app.env_launch = {"repository": url, "branch": branch, "source": source,
                      "colab_branch": os.environ.get("AAKAAR_COLAB_BRANCH", COLAB_BRANCH)}
    if url is None:
        LOGGER.info("launch buttons: no repository address (set AAKAAR_REPOSITORY_URL, or add a git remote "
                    "'origin'); the pages get download buttons only")
        return
    if "github.com" not in url:
        LOGGER.info(f"launch buttons: {url} is not on GitHub, which Binder's and Colab's links need; "
                    "the pages get download buttons only")
        app.env_launch["repository"] = None
        return
    options = config.html_theme_options
    options.update(repository_url=url, repository_branch=branch, path_to_docs=PATH_TO_BOOK)
    buttons = dict(options.get("launch_buttons") or {})
    buttons.update(binderhub_url=BINDER, colab_url=COLAB, thebe=False)
    options["launch_buttons"] = buttons
    LOGGER.info(f"launch buttons: Binder and Colab for {url} (branch {branch}, from {source})")


def _is_chapter_notebook(app, pagename: str) -> bool:
    return "kernelspec" in app.env.metadata.get(pagename, {})


def _copy_notebook(app, pagename, templatename, context, doctree) -> None:
    """Before the theme's buttons (priority 501): the executed notebook into _sources, for the download."""
    if not _is_chapter_notebook(app, pagename):
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    merged = _with_cached_outputs(app, executed)
    if merged is not None:
        # written back where MyST-NB put it, since the theme copies that file again (launch buttons on)
        tmp = executed.with_name(f".{executed.name}.tmp")
        tmp.write_text(merged)
        os.replace(tmp, executed)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def _with_cached_outputs(app, executed: Path) -> str | None:
    """The notebook with its outputs, when MyST-NB wrote it without them: a chapter served from the
    execution cache (not re-run in this build) is written to jupyter_execute/ bare, and the download
    should carry the outputs the page shows. None when the file has outputs already (or no cache)."""
    import nbformat

    nb = nbformat.read(executed, as_version=4)
    if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
        return None
    cache_path = getattr(app.config, "nb_execution_cache_path", "") or Path(app.outdir).parent / ".jupyter_cache"
    if not Path(cache_path).is_dir():
        return None
    from jupyter_cache import get_cache

    try:
        _, merged = get_cache(str(cache_path)).merge_match_into_notebook(nb)
    except KeyError:  # not in the cache: the page shows no outputs either
        return None
    return nbformat.writes(merged)


def launch_urls(url: str, branch: str, colab_branch: str, pagename: str) -> dict[str, str]:
    """Where the Binder and Colab buttons of ``pagename`` lead (see the module's docstring)."""
    slug = url.split("github.com/", 1)[1]
    return {"Binder": f"{BINDER}/v2/gh/{slug}/{branch}?urlpath=lab/tree/{PATH_TO_BOOK}/{pagename}.ipynb",
            "Colab": f"{COLAB}/github/{slug}/blob/{colab_branch}/{pagename}.ipynb"}


def _point_buttons(app, pagename, templatename, context, doctree) -> None:
    """After the theme's buttons: lead Binder and Colab to the chapter's notebook, not its markdown."""
    info = getattr(app, "env_launch", {})
    if not info.get("repository") or not _is_chapter_notebook(app, pagename):
        return
    urls = launch_urls(info["repository"], info["branch"], info["colab_branch"], pagename)
    for group in context.get("header_buttons", []):
        for button in group.get("buttons", []) if group.get("label") == "launch-buttons" else []:
            if button.get("text") in urls:
                button["url"] = urls[button["text"]]


def _record(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        info = getattr(app, "env_launch", {"repository": None})
        tmp = Path(app.outdir) / "_launch.json.tmp"
        tmp.write_text(json.dumps(info, indent=1) + "\n")
        os.replace(tmp, Path(app.outdir) / "_launch.json")


def setup(app):
    app.connect("config-inited", _configure, priority=800)
    app.connect("html-page-context", _copy_notebook, priority=500)
    app.connect("html-page-context", _point_buttons, priority=900)
    app.connect("build-finished", _record)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
