"""Interactive explorers used by the book (anywidget; the logic is in each widget's JavaScript)."""
from .batch_explorer import BatchExplorer
from .batching_explorer import BatchingExplorer
from .blocking_explorer import BlockingExplorer
from .broadcast_visualiser import BroadcastVisualiser
from .confusion_explorer import ConfusionExplorer, confusion_matrix
from .conv_explorer import KERNELS, ConvExplorer
from .graph_stepper import GraphStepper, extract_graph
from .launch_explorer import LaunchExplorer
from .loss_explorer import LossExplorer
from .stride_explorer import VIEW_OPS, StrideExplorer
from .trajectory_explorer import TrajectoryExplorer

__all__ = ["BatchExplorer", "BatchingExplorer", "StrideExplorer", "BroadcastVisualiser", "VIEW_OPS", "BlockingExplorer", "GraphStepper", "extract_graph", "LaunchExplorer", "ConfusionExplorer", "confusion_matrix", "ConvExplorer", "KERNELS", "LossExplorer", "TrajectoryExplorer"]
