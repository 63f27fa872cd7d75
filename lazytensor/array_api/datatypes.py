"""The array API standard's data types and data type functions: the dtype objects (numpy's own, so a
name means what it means in numpy), `finfo`, `iinfo`, `isdtype`, `result_type`, `can_cast`, and the
inspection namespace that `__array_namespace_info__()` returns.

Anything with a `dtype` attribute (a tensor, a numpy array) stands for its dtype, as the standard
lets arrays stand for theirs.
"""

from __future__ import annotations

import builtins
from typing import Any

import attrs
import numpy as np

bool = np.bool_  # the standard's name (numpy 2 spells it `np.bool` too)
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
float32 = np.float32
float64 = np.float64
complex64 = np.complex64
complex128 = np.complex128

DEVICE = "cpu"
"""The one device: every tensor lives in this process's memory."""

KINDS: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "signed integer": (int8, int16, int32, int64),
    "unsigned integer": (uint8, uint16, uint32, uint64),
    "integral": (int8, int16, int32, int64, uint8, uint16, uint32, uint64),
    "real floating": (float32, float64),
    "complex floating": (complex64, complex128),
    "numeric": (
        *(int8, int16, int32, int64, uint8, uint16, uint32, uint64),
        *(float32, float64, complex64, complex128),
    ),
}
"""The standard's kinds of data type, each with its dtypes."""

STANDARD_DTYPES: tuple[type, ...] = (bool, *KINDS["numeric"])


def dtype_of(value: Any) -> np.dtype[Any]:
    """The numpy dtype a dtype object, a dtype name, or an array (anything with a `dtype`) stands for.

    >>> import lazytensor as lt
    >>> dtype_of(lt.float32), dtype_of(lt.arange(3))
    (dtype('float32'), dtype('int64'))
    """
    found = getattr(value, "dtype", None)
    if isinstance(found, np.dtype):
        return found
    named: np.dtype[Any] = np.dtype(value)
    return named


@attrs.frozen
class FInfo:
    """Machine limits of a floating-point dtype (of the real component, for complex), as Python floats."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: type


@attrs.frozen
class IInfo:
    """Machine limits of an integer dtype, as Python ints."""

    bits: int
    max: int
    min: int
    dtype: type


def finfo(type: Any, /) -> FInfo:  # `type`: the standard's parameter name
    """Machine limits of a floating-point dtype or array (of its real component, for complex).

    >>> import lazytensor as lt
    >>> info = lt.finfo(lt.float32)
    >>> info.bits, info.eps, info.dtype is lt.float32
    (32, 1.1920928955078125e-07, True)
    """
    dtype = dtype_of(type)
    if dtype.kind not in "fc":
        raise ValueError(f"finfo takes a floating-point dtype, not {dtype}")
    limits = np.finfo(dtype)
    return FInfo(
        bits=int(limits.bits),
        eps=float(limits.eps),
        max=float(limits.max),
        min=float(limits.min),
        smallest_normal=float(limits.smallest_normal),
        dtype=limits.dtype.type,
    )


def iinfo(type: Any, /) -> IInfo:  # `type`: the standard's parameter name
    """Machine limits of an integer dtype or array.

    >>> import lazytensor as lt
    >>> info = lt.iinfo(lt.int8)
    >>> info.bits, info.min, info.max
    (8, -128, 127)
    """
    dtype = dtype_of(type)
    if dtype.kind not in "iu":
        raise ValueError(f"iinfo takes an integer dtype, not {dtype}")
    limits = np.iinfo(dtype)
    return IInfo(bits=int(limits.bits), max=int(limits.max), min=int(limits.min), dtype=dtype.type)


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether `dtype` is of `kind`: a dtype, one of the standard's kind names ('integral', 'real
    floating', ...), or a tuple of them (any matches).

    >>> import lazytensor as lt
    >>> lt.isdtype(lt.int16, "integral"), lt.isdtype(lt.float32, ("bool", "complex floating"))
    (True, False)
    """
    if not isinstance(dtype, np.dtype | type):
        raise TypeError(f"isdtype takes a dtype, not {dtype!r}")
    found = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for one in kinds:
        if isinstance(one, str):
            if one not in KINDS:
                raise ValueError(f"unknown dtype kind {one!r}; the kinds are {sorted(KINDS)}")
            if any(found == np.dtype(member) for member in KINDS[one]):
                return True
        elif found == np.dtype(one):
            return True
    return False


def result_type(*arrays_and_dtypes: Any) -> np.dtype[Any]:
    """The dtype that numpy's promotion gives these arrays, dtypes and Python scalars together (a
    Python scalar counts weakly: it never widens an array's dtype; Python scalars alone give numpy's
    defaults, as `np.result_type(float("nan"))` is float64). A dtype instance, as numpy returns.

    >>> import lazytensor as lt
    >>> lt.result_type(lt.int8, lt.int16), lt.result_type(lt.zeros(2, dtype=lt.float32), 1.0)
    (dtype('int16'), dtype('float32'))
    >>> lt.result_type(float("nan")), lt.result_type(1, True)
    (dtype('float64'), dtype('int64'))
    """
    if not arrays_and_dtypes:
        raise ValueError("result_type needs at least one array, dtype or Python scalar")
    found: list[Any] = []
    for item in arrays_and_dtypes:
        if isinstance(item, builtins.bool | int | float | complex):
            found.append(item)
        else:
            found.append(dtype_of(item))
    promoted: np.dtype[Any] = np.result_type(*found)
    return promoted


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether numpy casts the dtype (or array) `from_` to `to` safely, as the standard's promotion does.

    >>> import lazytensor as lt
    >>> lt.can_cast(lt.int8, lt.int32), lt.can_cast(lt.float64, lt.float32)
    (True, False)
    """
    return builtins.bool(np.can_cast(dtype_of(from_), dtype_of(to)))


def check_device(device: Any) -> None:
    """ValueError unless `device` is None or the one device, "cpu" (what `t.device` answers)."""
    if device is not None and device != DEVICE:
        raise ValueError(f"lazytensor has one device, {DEVICE!r}; got device={device!r}")


class Info:
    """The inspection namespace of the standard: capabilities, devices and dtypes of lazytensor.

    >>> import lazytensor as lt
    >>> info = lt.__array_namespace_info__()
    >>> info.default_device(), info.default_dtypes()["real floating"], sorted(info.dtypes(kind="bool"))
    ('cpu', dtype('float64'), ['bool'])
    """

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes are supported; up to 64 axes (numpy's limit)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> str:
        """The one device, "cpu"."""
        return DEVICE

    def devices(self) -> list[str]:
        """The devices there are: ["cpu"]."""
        return [DEVICE]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype[Any]]:
        """numpy's defaults: float64, complex128, int64 (integers and indices), as `np.dtype`
        instances, which hash as `x.dtype` does (numpy's scalar types compare equal but hash apart)."""
        check_device(device)
        return {
            "real floating": np.dtype(float64),
            "complex floating": np.dtype(complex128),
            "integral": np.dtype(int64),
            "indexing": np.dtype(int64),
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype[Any]]:
        """The standard's dtypes by name, all of them or those of `kind` (a kind name or a tuple), as
        `np.dtype` instances, so `{dtype: name}` tables built from them find `x.dtype`."""
        check_device(device)
        chosen = [np.dtype(t) for t in STANDARD_DTYPES if kind is None or isdtype(t, kind)]
        return {t.name: t for t in chosen}


def __array_namespace_info__() -> Info:
    """The standard's inspection namespace for lazytensor (devices, default and supported dtypes).

    >>> import lazytensor as lt
    >>> lt.__array_namespace_info__().devices()
    ['cpu']
    """
    return Info()
