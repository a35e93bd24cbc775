"""Neural-network building blocks: ``Module``, ``Parameter``, containers, layers,
``nn.functional`` and ``nn.init`` — the same names and behaviour as ``torch.nn``.

Chapter 13 of the book builds this package; every layer composes tensor ops
of the compiled core, so the C++ autograd engine differentiates it.
"""

from . import functional, init, utils  # noqa: F401
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: F401
from .layers import (  # noqa: F401
    ELU, GELU, BatchNorm1d, Dropout, Embedding, Flatten, Identity, LayerNorm, LeakyReLU, Linear,
    LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh,
)
from .layers_conv import (  # noqa: F401
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, Conv1d, Conv2d,
    Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d,
)
from .layers_spatial import *  # noqa: F401,F403
from .attention import MultiheadAttention  # noqa: F401
from .layers_activation import (  # noqa: F401
    CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6, Softmin,
    Softshrink, Softsign, Tanhshrink, Threshold,
)
from .loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
    MultiMarginLoss, NLLLoss, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
    TripletMarginWithDistanceLoss, CTCLoss,
)
from .loss import NLLLoss as NLLLoss2d  # noqa: F401  (PyTorch's deprecated alias)
from .layers_extra import *  # noqa: F401,F403
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from .transformer import (  # noqa: F401
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .module import Module  # noqa: F401
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .lazy import *  # noqa: F401,F403
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .layers_fractional import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401
from . import grad  # noqa: F401
