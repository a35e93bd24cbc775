"""``torch.nn.utils``: gradient clipping, parameters as one vector, (``nn.utils.rnn``) padding and
packing of variable-length sequences for the recurrent layers, parametrizations
(``nn.utils.parametrize``, ``nn.utils.parametrizations``) and the legacy hook-based weight and
spectral normalisation."""

from . import parametrizations, parametrize, prune, rnn  # noqa: F401
from .clip_grad import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .legacy_norms import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm  # noqa: F401
from . import stateless  # noqa: F401,E402
from .fusion import (  # noqa: F401,E402
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights,
)
from .init import skip_init  # noqa: F401,E402
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: F401,E402
