"""aakaar/_C.pyi declares what the compiled module has: a binding added without
its stub fails here (the stub is what editors and type checkers see)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

STUB = Path(__file__).resolve().parents[2] / "aakaar" / "_C.pyi"

# Load _C alone, without the aakaar package, so the methods aakaar/_tensor.py adds in
# Python are not there (they are not part of the compiled module, and not in its stub).
LIST_BINDINGS = r"""
import importlib.util, json, sys, types
path = sys.argv[1]
pkg = types.ModuleType("aakaar"); pkg.__path__ = []; sys.modules["aakaar"] = pkg
spec = importlib.util.spec_from_file_location("aakaar._C", path)
m = importlib.util.module_from_spec(spec); sys.modules["aakaar._C"] = m; spec.loader.exec_module(m)
public = lambda names: sorted(n for n in names if not n.startswith("_"))
print(json.dumps({"module": public(vars(m)), "Tensor": public(vars(m.Tensor))}))
"""


def _stub_names() -> tuple[set[str], set[str]]:
    tree = ast.parse(STUB.read_text())
    module, tensor = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            module.add(node.name)
        elif isinstance(node, ast.Assign):
            module.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            module.add(node.target.id)
        elif isinstance(node, ast.Import):  # submodules declared as modules
            module.update((a.asname or a.name).split(".")[-1] for a in node.names)
        if isinstance(node, ast.ClassDef) and node.name == "Tensor":
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    tensor.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    tensor.add(item.target.id)
    return module, tensor


def test_stub_declares_every_binding():
    from aakaar import _C  # only for its path: the subprocess loads it alone

    out = subprocess.run([sys.executable, "-c", LIST_BINDINGS, _C.__file__], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    bound = json.loads(out.stdout)
    module, tensor = _stub_names()
    missing_module = [n for n in bound["module"] if n not in module]
    missing_tensor = [n for n in bound["Tensor"] if n not in tensor]
    assert not missing_module, f"aakaar/_C.pyi lacks module-level {missing_module}"
    assert not missing_tensor, f"aakaar/_C.pyi lacks Tensor.{missing_tensor}"
