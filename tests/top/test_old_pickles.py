"""Pickles written by lazytensor 0.1.0, before the package moved into subpackages, still load.

The fixture `golden/pickles_0.1.0.npz` holds the bytes of `pickle.dumps` of each case below, made
with the release whose modules were flat (`lazytensor.tensor.StorageTensor`,
`lazytensor.views.TransposedTensor`, `lazytensor.bases.ArrayBase`, ...): those class paths stay
importable for one release (`lazytensor/compat.py`). Stored as uint8 arrays in an `.npz`, read with
`allow_pickle=False`; only these bytes, which this repository made, are unpickled.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from golden_files import GOLDEN

import lazytensor as lt

FIXTURE = GOLDEN / "pickles_0.1.0.npz"


def _expected() -> dict[str, Any]:
    t = np.arange(24.0).reshape(2, 3, 4)
    return {
        "storage": np.arange(6.0),
        "stack": t.T[1:, ::-1][[0, 2]],
        "views": (
            t,
            t.transpose(2, 0, 1),
            t.reshape(6, 4),
            t[0, 1:],
            np.broadcast_to(t[0], (2, 3, 4)),
            t[[1, 0]],
            t[t > 3],
            t[np.ix_([0, 1], [2, 0])],
        ),
        "named": np.arange(6.0).reshape(2, 3),
        "objects": np.array([1, "a"], dtype=object),
        "grad": np.array([1.0, 2.0]),
        "mapped": np.arange(5.0),
        "numpy_base": np.arange(6.0).reshape(2, 3),
    }


def _pickles() -> dict[str, bytes]:
    with np.load(FIXTURE, allow_pickle=False) as stored:
        return {name: stored[name].tobytes() for name in stored.files}


@pytest.mark.parametrize("name", sorted(_expected()))
def test_a_pickle_of_the_flat_release_loads_with_its_values(name: str) -> None:
    loaded = pickle.loads(_pickles()[name])
    expected = _expected()[name]
    tensors = loaded if isinstance(loaded, tuple) else (loaded,)
    arrays = expected if isinstance(expected, tuple) else (expected,)
    for tensor, array in zip(tensors, arrays, strict=True):
        assert isinstance(tensor, lt.AbstractTensor)
        assert tensor.shape == array.shape
        assert tensor.tolist() == array.tolist()


def test_old_pickles_keep_what_they_carried() -> None:
    pickles = _pickles()
    named = pickle.loads(pickles["named"])
    assert named.names == ("row", "col")
    grad = pickle.loads(pickles["grad"])
    assert grad.requires_grad and grad.is_leaf
    views = pickle.loads(pickles["views"])
    views[1][0, 0, 1] = -1.0  # a permuted view still writes through to the base unpickled with it
    assert views[0][0, 1, 0] == -1.0
    layout = pickle.loads(pickles["layout"])
    assert layout == lt.Layout((2, 3), (3, 1), 0)
