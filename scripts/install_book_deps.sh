#!/usr/bin/env bash
# Fetch everything the offline book needs that is not a Python package:
#   * Debian's chromium (the browser test drives it; we never download a browser build),
#   * MathJax 3, the Jupyter widget manager (html-manager 1.x) and require.js from npm,
#   * anywidget's AMD front end, which ships inside the anywidget Python wheel.
# The JavaScript lands in book/_vendor/ (git-ignored: MathJax alone is ~24 MB), from where
# Sphinx copies it into the site's _static/ so pages load nothing from the network.
#
# Idempotent: re-running only re-copies files. Works as root on a fresh Debian machine.
# Usage: bash scripts/install_book_deps.sh [--no-browser]
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
npm_dir="$repo_root/.book_deps"          # git-ignored npm prefix
vendor_dir="$repo_root/book/_vendor"     # git-ignored, served as static files
want_browser=1
[[ "${1:-}" == "--no-browser" ]] && want_browser=0

run_as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# --- 1. system packages: node/npm to fetch the JS, chromium for the browser test ---------------
need_apt=()
command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)
if [[ $want_browser -eq 1 ]] && [[ ! -x /usr/bin/chromium ]]; then need_apt+=(chromium); fi
if [[ ${#need_apt[@]} -gt 0 ]]; then
  echo "install_book_deps: apt-get install ${need_apt[*]}"
  run_as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

# --- 2. npm packages, pinned to the majors the notes say work offline ---------------------------
mkdir -p "$npm_dir"
if [[ ! -f "$npm_dir/package.json" ]]; then
  echo '{"name": "aakaar-book-deps", "private": true}' > "$npm_dir/package.json"
fi
if [[ ! -f "$npm_dir/node_modules/mathjax/es5/tex-chtml.js" ]] \
   || [[ ! -f "$npm_dir/node_modules/@jupyter-widgets/html-manager/dist/embed-amd.js" ]] \
   || [[ ! -f "$npm_dir/node_modules/requirejs/require.js" ]]; then
  echo "install_book_deps: npm install mathjax@3 @jupyter-widgets/html-manager@^1 requirejs@2"
  (cd "$npm_dir" && npm install --no-audit --no-fund --loglevel=error \
      "mathjax@3" "@jupyter-widgets/html-manager@^1" "requirejs@2")
fi

# --- 3. copy into book/_vendor -------------------------------------------------------------------
nm="$npm_dir/node_modules"
rm -rf "$vendor_dir"
mkdir -p "$vendor_dir/mathjax" "$vendor_dir/html-manager" "$vendor_dir/anywidget"
cp "$nm/requirejs/require.js" "$vendor_dir/require.js"
# MathJax: only the es5 bundle is served (components + fonts + the tex-chtml entry point).
cp -r "$nm/mathjax/es5/." "$vendor_dir/mathjax/"
# html-manager: embed-amd.js plus the chunk/font/svg files it loads relative to itself.
# (The non-AMD embed.js and the 6 MB source map are not needed.)
for f in "$nm/@jupyter-widgets/html-manager/dist/"*; do
  case "$(basename "$f")" in
    embed.js|*.map|*.LICENSE.txt) ;;
    *) cp "$f" "$vendor_dir/html-manager/" ;;
  esac
done
# anywidget's front end must match the Python anywidget that wrote the widget state (~0.11).
anywidget_js="$(python -c 'import anywidget, pathlib; print(pathlib.Path(anywidget.__file__).parent / "nbextension" / "index.js")')"
cp "$anywidget_js" "$vendor_dir/anywidget/index.js"
# The require.js configuration (committed) maps module names to these vendored files.
cp "$repo_root/book/_assets/widgets-requirejs-config.js" "$vendor_dir/widgets-requirejs-config.js"

echo "install_book_deps: vendored $(du -sh "$vendor_dir" | cut -f1) into book/_vendor"
