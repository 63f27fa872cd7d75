"""How often `blockwise()` calls its kernel while it builds the dask graph: once, on one-element
stand-ins, for the result's dtype. dask is given the meta, so it never calls the kernel on empty
blocks to guess it (a kernel of a new table entry may be any callable).

Reaches into `lazytensor.engine.chunkforms`: the calls of a kernel while `blockwise` builds the dask
graph are counted on the chunked form itself.
"""

from __future__ import annotations

from typing import Any

import dask
import dask.array as da
import numpy as np

from lazytensor.engine import chunkforms


def test_building_calls_the_kernel_once_on_stand_ins_and_computing_once_per_block() -> None:
    calls: list[tuple[int, ...]] = []

    def twice(x: Any, lo: Any) -> Any:
        calls.append(np.shape(x))
        return 2 * np.asarray(x) + lo

    x = da.from_array(np.arange(6, dtype=np.int16).reshape(2, 3), chunks=(1, 3))
    result = chunkforms.blockwise(("lo",)).build(da, twice, (x,), {"lo": np.int16(1)})
    assert calls == [(1, 1)]  # the dtype probe, on a one-element stand-in
    assert type(result._meta) is np.ndarray and result._meta.shape == (0, 0)
    assert result.dtype == np.int16
    with dask.config.set(scheduler="synchronous"):
        values = result.compute()
    np.testing.assert_array_equal(values, 2 * np.arange(6, dtype=np.int16).reshape(2, 3) + 1, strict=True)
    assert calls == [(1, 1), (1, 3), (1, 3)]  # then once per block, none on an empty one
