"""The synthetic EMNIST stand-in: deterministic, EMNIST-shaped, every class drawn, never blank."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
from aakaar.book.bench.synthetic_glyphs import BYMERGE_CHARACTERS, synthetic_glyphs  # noqa: E402


def test_synthetic_glyphs_are_deterministic_and_emnist_shaped():
    x, y = synthetic_glyphs(300, seed=3)
    assert x.shape == (300, 28, 28) and x.dtype == np.uint8 and y.shape == (300,) and y.dtype == np.int64
    assert set(np.unique(y)) <= set(range(47)) and len(np.unique(y)) > 40
    x2, y2 = synthetic_glyphs(300, seed=3)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    x3, _ = synthetic_glyphs(300, seed=4)
    assert not np.array_equal(x, x3)
    ink = (x > 128).reshape(300, -1).mean(1)
    assert ink.min() > 0.03 and ink.max() < 0.6, "every glyph has ink, none fills the frame"
    assert len(BYMERGE_CHARACTERS) == 47
    with pytest.raises(ValueError, match="n must be non-negative"):
        synthetic_glyphs(-1)
