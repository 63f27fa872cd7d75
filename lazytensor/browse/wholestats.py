"""`s`: the whole tensor's statistics, as `t.stats()` computes them (each stored chunk read once), in
blocks the browser can count and cancel: progress after each block, a stop between any two.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lazytensor.ground.blockplan import base_region, block_keys, chunk_edges, chunk_shape, reordered_from
from lazytensor.ground.protocol import Tensor
from lazytensor.printer.header import format_statistics
from lazytensor.printer.options import PrintOptions
from lazytensor.printer.streamstats import (
    BLOCK_ELEMENTS,
    KINDS,
    Moments,
    distinct,
    is_dask_base,
    one_pass,
)

Progress = Callable[[int, int], None]
"""Told (blocks done, blocks in all) after each block."""


def stat_blocks(t: Tensor, chunk: int = BLOCK_ELEMENTS) -> tuple[list[Tensor], int]:
    """The views whose values together are `t`'s once (blocks cut at the base's chunks, as
    `streamstats.one_pass` reads them), and how many times each value repeats in `t`.

    >>> import lazytensor as lt
    >>> blocks, times = stat_blocks(lt.arange(10.0), chunk=4)
    >>> [b.shape for b in blocks], times
    ([(4,), (4,), (2,)], 1)
    """
    view, times = distinct(t)
    region = base_region(reordered_from(view)) if view.numel() > chunk else None
    if region is None:
        if view.numel() <= chunk:
            return [view], times
        flat = view.reshape(-1)
        return [flat[start : start + chunk] for start in range(0, view.numel(), chunk)], times
    base = view.base
    box = base[region]
    chunks = chunk_shape(base)
    edges = [
        chunk_edges(key, None if chunks is None else chunks[a], base.shape[a]) for a, key in enumerate(region)
    ]
    return [box[key] for key in block_keys(box.shape, edges, chunk)], times


def whole_statistics(
    t: Tensor,
    options: PrintOptions,
    cancelled: Callable[[], bool],
    progress: Progress,
    chunk: int = BLOCK_ELEMENTS,
) -> list[tuple[str, str]] | None:
    """`t.stats()`'s entries, block by block; None when `cancelled()` turns true between two blocks.

    >>> import lazytensor as lt
    >>> dict(whole_statistics(lt.arange(10.0), PrintOptions(), lambda: False, lambda d, n: None, 4))["mean"]
    '4.5'
    """
    if t.numel() == 0 or t.dtype.kind not in KINDS:
        return format_statistics(Moments(t.dtype.kind).numbers(), options)
    if is_dask_base(t.base):  # one dask.compute: its scheduler runs the blocks
        return format_statistics(one_pass(t, chunk).numbers(), options)
    blocks, times = stat_blocks(t, chunk)
    merged = Moments(t.dtype.kind)
    for done, block in enumerate(blocks, start=1):
        if cancelled():
            return None
        merged = merged.merge(Moments.of(np.asarray(block.numpy())))
        progress(done, len(blocks))
    return format_statistics(merged.repeated(times).numbers(), options)
