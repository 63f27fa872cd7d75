"""The array API's inspection namespace and dtype functions: exact answers and one-line refusals.

The conformance suite checks the shapes of these answers; these tests pin the values a user reads
at the prompt (capabilities, the device checks) and the words of each refusal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import lazytensor as lt


def test_capabilities_are_exactly_what_lazytensor_supports() -> None:
    capabilities = lt.__array_namespace_info__().capabilities()
    assert capabilities == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}
    assert capabilities["max dimensions"] == np.empty((1,) * 64).ndim  # numpy's own limit
    with pytest.raises(ValueError):
        np.empty((1,) * 65)


@pytest.mark.parametrize("inspect", ["default_dtypes", "dtypes"])
def test_dtype_inspection_takes_the_one_device_and_refuses_another(inspect: str) -> None:
    info = lt.__array_namespace_info__()
    answer = getattr(info, inspect)(device="cpu")
    assert answer == getattr(info, inspect)()
    with pytest.raises(ValueError, match=r"one device, 'cpu'; got device='gpu'"):
        getattr(info, inspect)(device="gpu")


def test_isdtype_refuses_what_is_not_a_dtype_naming_it() -> None:
    with pytest.raises(TypeError, match=r"isdtype takes a dtype, not 'float32'"):
        lt.isdtype("float32", "real floating")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ((), "result_type needs at least one array, dtype or Python scalar$"),
    ],
)
def test_result_type_refuses_nothing_to_promote_in_words(arguments: tuple[Any, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        lt.result_type(*arguments)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (lt.arange(3, dtype=lt.int16), np.int16),
        (np.zeros(2, np.float32), np.float32),  # np.dtype() of an array itself is a TypeError
        (lt.complex64, np.complex64),
        ("uint8", np.uint8),
    ],
)
def test_dtype_functions_read_a_dtype_from_arrays_types_and_names(value: Any, expected: type) -> None:
    assert lt.result_type(value, value) == expected
    assert lt.can_cast(value, lt.complex128)


@pytest.mark.parametrize("data", [["yes", "no"], [None], [b"x"]])
def test_asarray_refuses_text_and_objects_as_the_standard_namespaces_do(data: list[Any]) -> None:
    # scikit-learn's label_binarize counts on an array API namespace refusing text labels
    with pytest.raises(TypeError, match=r"^asarray takes numbers and bools, not text or objects such as"):
        lt.asarray(data)
    assert lt.tensor(data).tolist() == data  # lt.tensor makes them
    assert lt.asarray(np.asarray(data)).tolist() == data  # a numpy array of them is taken as it is
