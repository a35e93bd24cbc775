"""pytest picks up the hypothesis profiles and shared helpers from core_helpers.

The helpers live in a module with a unique name: two test folders each
importing "conftest" by name would get whichever was imported first.
"""

from core_helpers import *  # noqa: F401,F403
