"""The block planner: blocks tile the tensor exactly, never cut inside a chunk of the base (so each
chunk is read by one block), hold at most the target unless one chunk is bigger, and follow a view's
axes to the base's through its layout (transposed, stepped, reversed).

Reaches into `lazytensor.ground.blockplan`: the plan is checked on its own, against numpy's indexing.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.ground.blockplan import block_keys, view_edges


@st.composite
def plans(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=1, max_size=3)))
    chunks = tuple(draw(st.integers(1, max(1, n))) for n in shape)
    return shape, chunks, draw(st.integers(1, 200))


@settings(max_examples=200, deadline=None)
@given(plan=plans(), view=st.sampled_from(["none", "T", "flip", "step", "both"]))
def test_blocks_tile_a_view_and_each_chunk_belongs_to_one_block(plan: tuple, view: str) -> None:
    shape, chunks, target = plan
    positions = np.arange(math.prod(shape)).reshape(shape)  # each base position's flat index
    t = lt.tensor(positions)
    views = {
        "none": (t, positions),
        "T": (t.T, positions.T),
        "flip": (t[::-1], positions[::-1]),
        "step": (t[::2], positions[::2]),
        "both": (t.T[::-2], positions.T[::-2]),
    }
    v, expected = views[view]
    edges = view_edges(v.layout, shape, chunks)
    keys = block_keys(v.shape, edges, target)
    covered = np.zeros(v.shape, dtype=int)
    owner: dict[tuple[int, ...], int] = {}
    for b, key in enumerate(keys):
        covered[key] += 1
        block = expected[key]
        if all(e is None for e in edges):  # free to cut anywhere: never past the target
            assert block.size <= target
        coords = np.unravel_index(block.reshape(-1), shape)
        for ids in set(zip(*(c // k for c, k in zip(coords, chunks, strict=True)), strict=True)):
            assert owner.setdefault(ids, b) == b, f"chunk {ids} read by blocks {owner[ids]} and {b}"
    assert (covered == 1).all()
