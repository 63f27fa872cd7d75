"""Reading and writing storage (`evaluate.py`): a write of a value outside the dtype's range is
refused as numpy refuses it and changes nothing; a strided view of a buffer is bounds-checked and
keeps the buffer's writeable flag."""

from __future__ import annotations

import re

import numpy as np
import pytest

import lazytensor as lt

# -- writes: values out of the dtype's range ---------------------------------------------------


@pytest.mark.parametrize("value", [300, -1])
def test_a_python_int_out_of_the_dtypes_range_is_refused_as_numpy_refuses_it(value: int) -> None:
    ref = np.zeros(3, dtype=np.uint8)
    with pytest.raises(OverflowError):
        ref[...] = value
    for t in (lt.zeros(3, dtype=np.uint8), lt.zeros(3, dtype=np.uint8)[[0, 2, 1]]):  # strided, gathered
        with pytest.raises(OverflowError, match="out of bounds for uint8"):
            t[...] = value
        assert t.tolist() == [0, 0, 0]


# -- strided views of storage: the bounds check and the writeable flag --------------------------


@pytest.mark.parametrize(
    ("layout", "words"),
    [
        (lt.Layout((3,), (3,), 0), "storage indices 0..6 outside a buffer of 6"),  # one past the end
        (lt.Layout((2,), (-1,), 0), "storage indices -1..0 outside a buffer of 6"),  # before the start
    ],
)
def test_a_strided_read_outside_its_buffer_is_refused(layout: lt.Layout, words: str) -> None:
    storage = lt.arange(6)
    with pytest.raises(IndexError, match=re.escape(words)):
        storage.read_strided(layout, writeable=False)


def test_a_strided_view_of_a_read_only_buffer_stays_read_only() -> None:
    buffer = np.arange(6)
    buffer.setflags(write=False)
    storage = lt.StorageTensor(buffer, (6,))
    assert not storage.read_strided(lt.Layout((3,), (2,), 0), writeable=True).flags.writeable
    assert lt.arange(6).read_strided(lt.Layout((3,), (2,), 0), writeable=True).flags.writeable


@pytest.mark.parametrize("writeable", [True, False])
def test_a_strided_view_of_objects_keeps_strides_and_the_flag(writeable: bool) -> None:
    objects = np.array(["a", "b", "c", "d", "e", "f"], dtype=object)
    view = lt.StorageTensor(objects, (6,)).read_strided(lt.Layout((2, 2), (1, 3), 1), writeable=writeable)
    assert view.tolist() == [["b", "e"], ["c", "f"]]
    assert view.flags.writeable == writeable
