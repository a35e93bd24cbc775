"""``torch.backends``: the switches PyTorch code sets at start-up (``cudnn.benchmark = True``,
``cuda.matmul.allow_tf32``...), with what they mean in aakaar.

aakaar does not use cuDNN, MPS, oneDNN (MKL-DNN) or OpenMP: its kernels are its own (CPU: csrc/cpu,
CUDA: csrc/cuda). So ``is_available()`` is False for those libraries, and their flags can be set
(ported scripts keep running) but select nothing: an autotuner (``cudnn.benchmark``) or TF32 tensor
cores (``allow_tf32``) are not in the library's kernels. ``cpu.get_cpu_capability()`` names the
instruction set aakaar's CPU kernels run with.
"""

from __future__ import annotations

from types import SimpleNamespace

from .. import _C

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "openmp", "cpu", "mkl"]


class _Library(SimpleNamespace):
    """A library aakaar does not use: unavailable; its flags are kept but select nothing."""

    def is_available(self) -> bool:
        return False


cudnn = _Library(enabled=True, benchmark=False, deterministic=False, allow_tf32=True, benchmark_limit=10)
cudnn.version = lambda: None  # torch.backends.cudnn.version() is None without cuDNN
mps = _Library()
mps.is_built = lambda: False
mkldnn = _Library(enabled=True, deterministic=False)
mkl = _Library()
openmp = _Library()
cuda = SimpleNamespace(
    matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                           allow_bf16_reduced_precision_reduction=True),
    is_built=lambda: bool(_C.cuda.is_built()),
    flash_sdp_enabled=lambda: False, mem_efficient_sdp_enabled=lambda: False, math_sdp_enabled=lambda: True,
)


def _cpu_capability() -> str:
    """'AVX512', 'AVX2' or 'DEFAULT', as torch.backends.cpu.get_cpu_capability() names them."""
    return {"avx512": "AVX512", "avx2": "AVX2"}.get(str(_C.cpu_isa()).lower(), "DEFAULT")


cpu = SimpleNamespace(get_cpu_capability=_cpu_capability)
