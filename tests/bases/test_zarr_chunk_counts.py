"""The count of chunks along an axis that decides whether an orthogonal read of a zarr array goes by
runs: an exact integer ceiling, also for chunks so large that a float quotient would round it down.

Reaches into `lazytensor.bases.zarrreads`: the chunk count that decides a read by runs is exercised
at `MANY_CHUNKS`, the module's own bound.
"""

from __future__ import annotations

import numpy as np
import zarr

from lazytensor.bases import zarrreads


def test_one_chunk_past_the_limit_is_counted_for_chunks_of_two_to_the_46() -> None:
    chunk = 2**46
    size = zarrreads.MANY_CHUNKS * chunk + 1  # MANY_CHUNKS full chunks and one of a single element
    assert size / chunk == zarrreads.MANY_CHUNKS  # the float quotient has lost the last chunk
    array = zarr.create_array({}, shape=(size,), chunks=(chunk,), dtype="i1", fill_value=3)
    out = zarrreads.outer_by_runs(array, (np.array([0, 1, size - 1], dtype=np.int64),))
    assert out is not None
    np.testing.assert_array_equal(out, np.full(3, 3, dtype=np.int8))
