#!/usr/bin/env bash
# Build the book to book/_build/html.
#   * Every chapter is executed (results cached in book/_build/.jupyter_cache, so only chapters
#     whose code changed re-run) and a cell that raises fails the build.
#   * Sphinx warnings are errors (-W), and every problem is reported before failing (--keep-going).
#   * --all rebuilds every page: Sphinx does not re-copy changed static files incrementally.
# Needs: pip install -e ".[book]" and bash scripts/install_book_deps.sh (vendored JS).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

if [[ ! -f book/_vendor/mathjax/tex-chtml.js || ! -f book/_vendor/html-manager/embed-amd.js ]]; then
  echo "build_book: book/_vendor is missing; running scripts/install_book_deps.sh --no-browser" >&2
  bash scripts/install_book_deps.sh --no-browser
fi
# The committed require.js configuration may have changed since the vendor folder was filled.
cp book/_assets/widgets-requirejs-config.js book/_vendor/widgets-requirejs-config.js

# One build at a time: two builds writing book/_build/.jupyter_cache at once corrupt it
# (jupyter-cache fails with FileExistsError half-way); a second build waits for the first.
mkdir -p book/_build
exec 9>book/_build/.build.lock
flock 9

start=$(date +%s)
jupyter-book build book --all -W -n --keep-going "$@"
echo "build_book: site written to book/_build/html in $(( $(date +%s) - start )) s"
echo "build_book: view it with: python -m http.server -d book/_build/html 8000"
