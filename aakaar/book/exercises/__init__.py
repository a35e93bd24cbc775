"""The exercise pipeline: solutions/ is the source, exercises/ is generated, nbval checks both.

``python -m aakaar.book.exercises build`` regenerates exercises/, ``check N`` runs chapter N's notebook.
"""
from .checks import Raises, check, speed_check

__all__ = ["check", "Raises", "speed_check"]
