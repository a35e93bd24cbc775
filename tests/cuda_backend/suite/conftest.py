"""Shared helpers live in cuda_suite_helpers (a unique module name; see tests/core/conftest.py)."""

from cuda_suite_helpers import *  # noqa: F401,F403
from cuda_suite_helpers import _report_device  # noqa: F401  (autouse fixture; * skips underscored names)
