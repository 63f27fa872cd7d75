"""Every creation function against numpy: shape forms, `dtype=`, `seed=`, `names=`, `requires_grad=`,
`device=`, and its refusals in full. `lt.zeros`, `ones`, `full`, `arange`, `eye` and `linspace` are
the array API's wrappers; `creation`'s own functions (PyTorch's argument forms) are called directly.

Reaches into `lazytensor.api.creation`: its own functions take PyTorch's argument forms and say
their refusals in their own words, which `lt.zeros` and the other array API wrappers check first and
never pass on.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.api import creation

small_shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)
DTYPES = [np.float64, np.float32, np.int32, np.int8, np.complex64, np.bool_]


def _axis_names(shape: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"a{k}" for k in range(len(shape)))


def _check(made: lt.AbstractTensor, expected: np.ndarray, *, requires_grad: bool = False) -> None:
    """The same shape, dtype and values as numpy's, a C-contiguous array of its own, the flag set."""
    assert isinstance(made, lt.StorageTensor)
    assert made.shape == expected.shape and made.dtype == expected.dtype
    np.testing.assert_array_equal(made.numpy(), expected)
    assert made.storage.flags.c_contiguous
    assert made.requires_grad is requires_grad


# -- filled tensors -------------------------------------------------------------------------------


@given(shape=small_shapes, dtype=st.sampled_from(DTYPES), requires_grad=st.booleans())
def test_zeros_and_ones_match_numpy_in_every_shape_form(
    shape: tuple[int, ...], dtype: Any, requires_grad: bool
) -> None:
    grad = requires_grad and np.dtype(dtype).kind in "fc"
    for make, reference in ((creation.zeros, np.zeros), (creation.ones, np.ones)):
        expected = reference(shape, dtype=dtype)
        _check(make(*shape, dtype=dtype, requires_grad=grad), expected, requires_grad=grad)
        _check(make(shape, dtype=dtype, requires_grad=grad), expected, requires_grad=grad)
        assert make(shape, dtype=dtype, names=_axis_names(shape)).names == _axis_names(shape)
    assert creation.zeros(*shape).dtype == np.float64 and creation.ones(*shape).dtype == np.float64


@given(shape=small_shapes, dtype=st.sampled_from(DTYPES))
def test_empty_has_numpys_shape_and_dtype(shape: tuple[int, ...], dtype: Any) -> None:
    for made in (
        lt.empty(shape, dtype=dtype),
        lt.empty(*shape, dtype=dtype) if shape else lt.empty((), dtype=dtype),
    ):
        assert made.shape == np.empty(shape).shape and made.dtype == np.dtype(dtype)
        assert made.requires_grad is False
    assert lt.empty(shape).dtype == np.float64
    assert lt.empty(shape, requires_grad=True).requires_grad
    assert lt.empty(shape, names=_axis_names(shape)).names == _axis_names(shape)


@given(
    shape=small_shapes, fill=st.sampled_from([7, 2.5, True, 1 + 2j]), dtype=st.sampled_from([None, *DTYPES])
)
def test_full_matches_numpy(shape: tuple[int, ...], fill: Any, dtype: Any) -> None:
    expected = np.full(shape, fill, dtype=dtype)
    _check(creation.full(shape, fill, dtype=dtype), expected)
    _check(creation.full(shape, lt.tensor(fill), dtype=dtype), expected)  # a 0-d tensor's value
    assert creation.full(shape, fill, dtype=dtype, names=_axis_names(shape)).names == _axis_names(shape)
    assert creation.full(shape, 1.0, requires_grad=True).requires_grad


def test_full_of_an_int_shape_and_a_tensor_row() -> None:
    _check(creation.full(3, 0.5), np.full(3, 0.5))
    row = lt.tensor([1.0, 2.0])
    _check(creation.full((2, 2), row), np.full((2, 2), [1.0, 2.0]))


@pytest.mark.parametrize(
    ("make", "args"),
    [
        (creation.zeros, (2, -1)),
        (creation.ones, ((2, -1),)),
        (lt.empty, (2, -1)),
        (creation.full, ((2, -1), 0)),
        (lt.trandom, (2, -1)),
        (lt.randn, (2, -1)),
    ],
)
def test_a_negative_size_is_numpys_value_error(make: Any, args: tuple[Any, ...]) -> None:
    pattern = rf"^{make.__name__}: negative dimensions are not allowed: shape \(2, -1\)$"
    with pytest.raises(ValueError, match=pattern):
        make(*args)


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("zeros", lambda device: creation.zeros(2, device=device)),
        ("ones", lambda device: creation.ones(2, device=device)),
        ("empty", lambda device: lt.empty(2, device=device)),
        ("full", lambda device: creation.full(2, 1, device=device)),
        ("zeros_like", lambda device: lt.zeros_like([1], device=device)),
        ("ones_like", lambda device: lt.ones_like([1], device=device)),
        ("empty_like", lambda device: lt.empty_like([1], device=device)),
        ("full_like", lambda device: lt.full_like([1], 2, device=device)),
        ("arange", lambda device: creation.arange(2, device=device)),
    ],
)
def test_the_cpu_is_the_only_device_and_the_refusal_names_the_function(name: str, make: Any) -> None:
    assert make("cpu").shape in ((2,), (1,))
    with pytest.raises(
        ValueError, match=rf"^{name}: lazytensor's tensors live on the cpu, not on device 'cuda'$"
    ):
        make("cuda")


# -- the *_like functions -------------------------------------------------------------------------


@given(
    shape=small_shapes,
    own=st.sampled_from([np.int16, np.float32, np.complex128]),
    dtype=st.sampled_from([None, np.int64, np.float16]),
    new_shape=st.sampled_from([None, (2, 1), 3]),
    requires_grad=st.booleans(),
)
def test_like_functions_match_numpy(
    shape: tuple[int, ...], own: Any, dtype: Any, new_shape: Any, requires_grad: bool
) -> None:
    prototype = np.ones(shape, dtype=own)
    result_dtype = np.dtype(own if dtype is None else dtype)
    grad = requires_grad and result_dtype.kind in "fc"
    for source in (prototype, lt.tensor(prototype)):
        for make, reference in (
            (lt.zeros_like, np.zeros_like),
            (lt.ones_like, np.ones_like),
            (lambda p, **kw: lt.full_like(p, 2.7, **kw), lambda p, **kw: np.full_like(p, 2.7, **kw)),
        ):
            expected = reference(prototype, dtype=dtype, shape=new_shape)
            made = make(source, dtype=dtype, shape=new_shape, requires_grad=grad)
            _check(made, expected, requires_grad=grad)
        made = lt.empty_like(source, dtype=dtype, shape=new_shape, requires_grad=grad)
        expected_empty = np.empty_like(prototype, dtype=dtype, shape=new_shape)
        assert made.shape == expected_empty.shape and made.dtype == expected_empty.dtype
        assert made.requires_grad is grad


def test_a_like_prototype_may_be_a_list() -> None:
    _check(lt.zeros_like([[1.5], [2.5]]), np.zeros_like([[1.5], [2.5]]))
    _check(lt.ones_like([1, 2], dtype=np.int8), np.ones_like([1, 2], dtype=np.int8))


def test_full_like_takes_a_tensor_fill_value() -> None:
    _check(
        lt.full_like(creation.zeros(2, 2), lt.tensor([1.0, 2.0])), np.full_like(np.zeros((2, 2)), [1.0, 2.0])
    )


def test_a_negative_like_shape_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^zeros_like: negative dimensions are not allowed: shape \(-2,\)$"):
        lt.zeros_like(creation.zeros(2), shape=-2)


# -- ranges ---------------------------------------------------------------------------------------


@given(
    start=st.integers(-5, 5),
    stop=st.none() | st.integers(-5, 8),
    step=st.sampled_from([1, 2, 3, -1, -2, 0.5]),
    dtype=st.sampled_from([None, np.float32, np.int16]),
)
def test_arange_matches_numpy(start: int, stop: int | None, step: Any, dtype: Any) -> None:
    if dtype is np.int16 and isinstance(step, float):
        dtype = None
    expected = (
        np.arange(start, stop, step, dtype=dtype)
        if stop is not None
        else np.arange(start, step=step, dtype=dtype)
    )
    _check(creation.arange(start, stop, step, dtype=dtype), expected)
    _check(creation.arange(start, stop, step=step, dtype=dtype, names=("i",)), expected)
    assert creation.arange(start, stop, step, names=("i",)).names == ("i",)


def test_arange_refuses_a_zero_step_naming_its_bounds() -> None:
    with pytest.raises(ValueError, match=r"^arange: the step must not be zero \(start 1, stop 5\)$"):
        creation.arange(1, 5, 0)
    with pytest.raises(ValueError, match=r"^arange: the step must not be zero \(start 4, stop None\)$"):
        creation.arange(4, step=0)


@given(
    num=st.integers(0, 7),
    endpoint=st.booleans(),
    dtype=st.sampled_from([None, np.float32, np.int32, np.complex64]),
    requires_grad=st.booleans(),
)
def test_linspace_matches_numpy(num: int, endpoint: bool, dtype: Any, requires_grad: bool) -> None:
    grad = requires_grad and np.dtype(dtype or float).kind in "fc"
    expected = np.linspace(-1, 3, num, endpoint=endpoint, dtype=dtype)
    _check(
        creation.linspace(-1, 3, num, endpoint=endpoint, dtype=dtype, requires_grad=grad),
        expected,
        requires_grad=grad,
    )
    _check(creation.linspace(-1, 3), np.linspace(-1, 3))


@given(
    n=st.integers(0, 4),
    m=st.none() | st.integers(0, 4),
    k=st.integers(-3, 3),
    dtype=st.sampled_from([np.float64, np.int8, np.bool_]),
)
def test_eye_matches_numpy(n: int, m: int | None, k: int, dtype: Any) -> None:
    _check(creation.eye(n, m, k, dtype=dtype), np.eye(n, m, k, dtype=dtype))
    _check(creation.eye(n, m, k=k), np.eye(n, m, k=k))
    _check(creation.eye(n, requires_grad=True), np.eye(n), requires_grad=True)


# -- random tensors ---------------------------------------------------------------------------------


@given(
    shape=small_shapes,
    seed=st.integers(0, 2**32),
    dtype=st.sampled_from([np.float64, np.float32, np.float16]),
)
def test_randn_is_numpys_standard_normal_for_the_seed(shape: tuple[int, ...], seed: int, dtype: Any) -> None:
    expected = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    _check(lt.randn(*shape, seed=seed, dtype=dtype), expected)
    _check(lt.randn(shape, seed=seed, dtype=dtype, requires_grad=True), expected, requires_grad=True)
    _check(lt.randn(shape, seed=seed), np.random.default_rng(seed).standard_normal(shape))


@given(shape=small_shapes, seed=st.integers(0, 2**32))
def test_trandom_is_numpys_uniform_on_minus_one_to_one(shape: tuple[int, ...], seed: int) -> None:
    expected = np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape)
    _check(lt.trandom(*shape, seed=seed), expected)
    _check(lt.trandom(shape, seed=seed, requires_grad=True), expected, requires_grad=True)
    assert lt.trandom(shape, seed=seed, names=_axis_names(shape)).names == _axis_names(shape)


# -- from data ------------------------------------------------------------------------------------


class FakeTorchTensor:
    """What `tensor` reads of a torch tensor: `detach().cpu().numpy()`, and the module's name."""

    __module__ = "torch.nn"

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def detach(self) -> FakeTorchTensor:
        return self

    def cpu(self) -> FakeTorchTensor:
        return self

    def numpy(self) -> np.ndarray:
        return self.values


def test_a_torch_tensor_is_copied_and_cast_to_the_dtype() -> None:
    values = np.array([[1.5, 2.5]], dtype=np.float32)
    for dtype in (np.float16, np.float64, np.int32):
        made = lt.tensor(FakeTorchTensor(values), dtype=dtype)
        _check(made, values.astype(dtype))
    _check(lt.tensor(FakeTorchTensor(values), requires_grad=True), values, requires_grad=True)
    kept = lt.tensor(FakeTorchTensor(values))
    _check(kept, values)
    values[0, 0] = 99  # torch's numpy() shares memory with the torch tensor: lazytensor's is a copy
    assert kept.tolist() == [[1.5, 2.5]]
    assert lt.tensor(FakeTorchTensor(values), names=("r", "c")).names == ("r", "c")


def test_an_object_from_another_module_with_numpy_methods_is_not_taken_for_torch() -> None:
    class NotTorch(FakeTorchTensor):
        __module__ = "torchvision_like"

    with pytest.raises((TypeError, ValueError)):
        lt.tensor(NotTorch(np.zeros(2)), dtype=np.float64)


@given(
    data=st.sampled_from([[[1, 2], [3, 4]], 3.5, [True], [1 + 1j, 2]]), dtype=st.sampled_from([None, *DTYPES])
)
def test_tensor_copies_numpys_array_of_the_data(data: Any, dtype: Any) -> None:
    try:
        expected = np.array(data, dtype=dtype)
    except TypeError as error:  # complex data into a real dtype
        with pytest.raises(TypeError, match=re.escape(str(error))):
            lt.tensor(data, dtype=dtype)
        return
    _check(lt.tensor(data, dtype=dtype), expected)
    source = np.array(expected, order="F")
    made = lt.tensor(source)
    _check(made, expected)
    assert not np.shares_memory(made.storage, source)


def test_tensor_keeps_or_replaces_a_tensors_names() -> None:
    named = creation.zeros(2, 3, names=("row", "col"))
    assert lt.tensor(named).names == ("row", "col")
    assert lt.tensor(named.T).names == ("col", "row")
    assert lt.tensor(named, names=("a", "b")).names == ("a", "b")
    assert lt.tensor(creation.zeros(2, 3)).names == (None, None)
    copy = lt.tensor(named, dtype=np.int8)
    assert copy.dtype == np.int8 and not copy.shares_storage(named)
    assert lt.tensor([1.0], requires_grad=True).requires_grad


def test_from_numpy_refuses_other_data_naming_its_type() -> None:
    with pytest.raises(TypeError, match=r"^from_numpy takes a numpy array, got list$"):
        lt.from_numpy([1, 2])  # type: ignore[arg-type]
