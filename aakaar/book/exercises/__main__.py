"""Command line: ``python -m aakaar.book.exercises build | sync-check | check N``."""
from __future__ import annotations

import argparse
import pathlib
import sys

from .build import build, out_of_sync
from .notebooks import ExerciseError, find_root
from .runner import check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aakaar.book.exercises",
                                     description="Generate and check the book's exercise notebooks.")
    parser.add_argument("--root", type=pathlib.Path, help="repository folder (default: found from the cwd)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="regenerate exercises/ from solutions/")
    sub.add_parser("sync-check", help="exit 1 if exercises/ is not what `build` would write")
    p = sub.add_parser("check", help="run nbval on one exercise notebook and summarise per exercise")
    p.add_argument("chapter", help="chapter number (e.g. 2) or path to a notebook")
    args = parser.parse_args(argv)
    try:
        root = args.root.resolve() if args.root else find_root()
        if args.command == "build":
            for line in build(root):
                print(line)
            return 0
        if args.command == "sync-check":
            stale = out_of_sync(root)
            for line in stale:
                print(line)
            if stale:
                print("run `python -m aakaar.book.exercises build` and commit exercises/")
            return 1 if stale else 0
        return check(args.chapter, root)
    except ExerciseError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
