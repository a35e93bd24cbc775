"""Interactive explorers used by the book (anywidget; the logic is in each widget's JavaScript)."""
from .broadcast_visualiser import BroadcastVisualiser
from .stride_explorer import VIEW_OPS, StrideExplorer

__all__ = ["StrideExplorer", "BroadcastVisualiser", "VIEW_OPS"]
