import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import emu_build  # noqa: E402


@pytest.fixture(scope="session")
def emu_bin() -> Path:
    """Folder with the emulator test programs, built (or reused) for this session."""
    if not emu_build.compiler_available():
        pytest.skip(f"no C++ compiler ({emu_build.CXX}) to build the CUDA emulator tests")
    return emu_build.build()
