"""BatchExplorer: a sampler's order cut into batches, epoch after epoch (chapter 16)."""
from __future__ import annotations

import anywidget
import traitlets

from ._base import CSS, HERE


def shuffled_orders(n: int, seeds: range, epochs: int) -> list[list[list[int]]]:
    """``orders[seed][epoch]``: the order the library's shuffling DataLoader visits ``range(n)`` in."""
    import aakaar as ak
    from aakaar.data import RandomSampler

    out = []
    for seed in seeds:
        sampler = RandomSampler(range(n), generator=ak.Generator().manual_seed(seed))
        out.append([list(sampler) for _ in range(epochs)])
    return out


class BatchExplorer(anywidget.AnyWidget):
    """Choose a batch size, shuffling, drop_last and a seed; see the batches of each epoch.

    The shuffled orders are the library's (aakaar.data.RandomSampler with a seeded Generator),
    computed when the widget is made and kept in its state; cutting them into batches happens in
    ``batch_explorer.js``, so the widget responds in the static book too.
    """

    _esm = HERE / "batch_explorer.js"
    _css = CSS
    n = traitlets.Int(20).tag(sync=True)
    batch_size = traitlets.Int(6).tag(sync=True)
    drop_last = traitlets.Bool(False).tag(sync=True)
    shuffle = traitlets.Bool(True).tag(sync=True)
    seed = traitlets.Int(0).tag(sync=True)
    orders = traitlets.List().tag(sync=True)

    def __init__(self, n: int = 20, batch_size: int = 6, drop_last: bool = False, shuffle: bool = True,
                 seeds: int = 4, epochs: int = 3, **kwargs):
        for name, value, low, high in [("n", n, 1, 200), ("seeds", seeds, 1, 10), ("epochs", epochs, 1, 6)]:
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"BatchExplorer: {name} must be an int in [{low}, {high}], got {value!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= n:
            raise ValueError(f"BatchExplorer: batch_size must be an int in [1, n={n}], got {batch_size!r}")
        super().__init__(n=n, batch_size=batch_size, drop_last=bool(drop_last), shuffle=bool(shuffle), seed=0,
                         orders=shuffled_orders(n, range(seeds), epochs), **kwargs)
