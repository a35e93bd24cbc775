"""The book's tooling: the code that *teaches* the library, kept apart from the library itself.

``aakaar`` has two halves. Everything outside this package is the library a practitioner
installs and trains with: the tensor (``aakaar._C``, ``aakaar._tensor``), ``autograd``, ``nn``,
``optim``, ``data``, ``serialization`` and ``cuda``. Everything in here exists for the book
and its readers:

- ``widgets``   the anywidget explorers of the chapters (their logic in the ``.js`` beside them);
- ``figures``   static matplotlib pictures of tensor layouts;
- ``exercises`` the exercise tool: ``python -m aakaar.book.exercises build | sync-check | check N``;
- ``cuda_emu``  runs the real CUDA kernels on the CPU through the emulator (``drivers/*.cu``),
  and ``pysim``, the Python model of the programming model used by the exercises;
- ``bench``     the benchmark programs against PyTorch and numpy (``python -m aakaar.book.bench.gemm``).

Why the split: a reader who opens the package sees at once which code *is* the library and which
code explains, measures or exercises it, and can read the first without wading through the second.
The rule that keeps it honest: the library never imports ``aakaar.book`` (a test checks it), so the
library works without the book's dependencies (anywidget, matplotlib, nbval). This package imports
nothing on its own either; each part is imported by name.
"""
