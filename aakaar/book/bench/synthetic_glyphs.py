"""A synthetic stand-in for EMNIST ByMerge, for machines with no EMNIST files and no network.

The 47 ByMerge classes (0-9, A-Z, a b d e f g h n q r t) are drawn with the fonts matplotlib
ships (DejaVu sans, serif and mono, and STIX; upright and oblique), then each sample is distorted at random —
rotation, shear, scale, shift, stroke width, noise — and scaled into a 28 x 28 frame as EMNIST's
are. Deterministic by seed. It is labelled synthetic wherever it is used: it exercises every line
of the benchmark, but its accuracies say nothing about real handwriting.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

__all__ = ["BYMERGE_CHARACTERS", "synthetic_glyphs"]

# Label k of EMNIST ByMerge (and Balanced) is BYMERGE_CHARACTERS[k] (emnist-bymerge-mapping.txt).
BYMERGE_CHARACTERS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabdefghnqrt"
FONTS = ["DejaVuSans.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSansMono-Oblique.ttf", "DejaVuSerif.ttf",
         "DejaVuSerif-Italic.ttf", "DejaVuSansMono.ttf", "STIXGeneral.ttf", "STIXGeneralItalic.ttf"]
SIZE = 56  # glyphs are drawn at twice EMNIST's resolution and distorted before being shrunk


@functools.lru_cache(maxsize=1)
def _glyph_bank() -> np.ndarray:
    """(fonts, 47, 2, SIZE, SIZE) float32 in [0, 1]: every character in every font, centred, in two stroke widths."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    font_dir = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    bank = np.zeros((len(FONTS), len(BYMERGE_CHARACTERS), SIZE, SIZE), np.float32)
    for f, font in enumerate(FONTS):
        prop = FontProperties(fname=str(font_dir / font), size=54)
        for c, ch in enumerate(BYMERGE_CHARACTERS):
            fig = Figure(figsize=(SIZE / 50, SIZE / 50), dpi=50)
            canvas = FigureCanvasAgg(fig)
            fig.text(0.5, 0.5, ch, fontproperties=prop, ha="center", va="center")
            canvas.draw()
            rgba = np.asarray(canvas.buffer_rgba(), dtype=np.float32)
            bank[f, c] = 1.0 - rgba[..., :3].mean(-1) / 255.0
    # Handwriting strokes are thicker than type: each glyph as drawn and dilated by 1 pixel (at
    # this resolution), one picked per sample.
    thick = [bank]
    for _ in range(1):
        b = thick[-1]
        grown = b.copy()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            grown = np.maximum(grown, np.roll(b, (dr, dc), axis=(-2, -1)))
        thick.append(grown)
    return np.stack(thick, axis=2)  # (fonts, 47, 2, SIZE, SIZE)


def _warp(image: np.ndarray, matrix: np.ndarray, offset: np.ndarray, out: int) -> np.ndarray:
    """image sampled at matrix @ (r, c) + offset for every pixel (r, c) of an out x out grid (bilinear)."""
    rr, cc = np.mgrid[0:out, 0:out].astype(np.float32)
    src = np.einsum("ij,jrc->irc", matrix, np.stack([rr, cc])) + offset[:, None, None]
    r0, c0 = np.floor(src[0]).astype(int), np.floor(src[1]).astype(int)
    fr, fc = src[0] - r0, src[1] - c0
    n = image.shape[0]

    def at(r: np.ndarray, c: np.ndarray) -> np.ndarray:
        inside = (r >= 0) & (r < n) & (c >= 0) & (c < n)
        return np.where(inside, image[np.clip(r, 0, n - 1), np.clip(c, 0, n - 1)], 0.0)

    return ((1 - fr) * (1 - fc) * at(r0, c0) + (1 - fr) * fc * at(r0, c0 + 1)
            + fr * (1 - fc) * at(r0 + 1, c0) + fr * fc * at(r0 + 1, c0 + 1))


def synthetic_glyphs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` distorted glyphs: images (n, 28, 28) uint8 (white on black, as EMNIST) and labels (n,) int64."""
    if n < 0:
        raise ValueError(f"synthetic_glyphs: n must be non-negative, got {n}")
    bank = _glyph_bank()
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(BYMERGE_CHARACTERS), n)
    fonts = rng.integers(0, len(FONTS), n)
    images = np.zeros((n, 28, 28), np.uint8)
    centre = np.array([SIZE / 2, SIZE / 2], np.float32)
    for i in range(n):
        angle = rng.normal(0, 0.15)
        shear = rng.normal(0, 0.15)
        scale = rng.uniform(0.62, 0.9)  # < 1 enlarges the glyph: EMNIST's characters fill most of the frame
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)
        matrix = (rot @ np.array([[1, shear], [0, 1]], np.float32)) * scale * (SIZE / 28)
        shift = rng.normal(0, 1.5, 2).astype(np.float32)
        offset = centre - matrix @ np.array([14, 14], np.float32) + shift
        glyph = _warp(bank[fonts[i], labels[i], rng.integers(0, 2)], matrix, offset, 28)
        # EMNIST's edges are soft: a 3 x 3 blur, then a little noise.
        padded = np.pad(glyph, 1)
        glyph = sum(padded[r:r + 28, c:c + 28] for r in range(3) for c in range(3)) / 9.0
        glyph = np.clip(glyph * rng.uniform(1.3, 1.8) + rng.normal(0, 0.03, glyph.shape), 0, 1)
        images[i] = (glyph * 255).astype(np.uint8)
    return images, labels.astype(np.int64)
