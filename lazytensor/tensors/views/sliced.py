"""`SlicedTensor`: per axis an int, a range or a list of indices of the tensor below (basic slicing,
`oindex`, the seeds' `slice` specs, `split`, `chunk`, `unbind`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from lazytensor.ground import indexing
from lazytensor.ground.indexing import Range, Spec
from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import stacked
from lazytensor.ground.positions import (
    Shape,
)
from lazytensor.tensors.tensor import Buffer
from lazytensor.tensors.views.view import IndexArrays, View


def frozen_indices(values: Any) -> IndexArray:
    """A read-only intp copy of `values`, for a view to keep (see `indexing.read_only_window`)."""
    return indexing.read_only_window(np.array(values, dtype=np.intp))


def _freeze_spec(spec: Spec) -> Spec:
    if isinstance(spec, Range):
        return spec
    if isinstance(spec, int | np.integer):
        return int(spec)
    return frozen_indices(spec)


def _freeze_specs(specs: Sequence[Spec]) -> tuple[Spec, ...]:
    return tuple(_freeze_spec(spec) for spec in specs)


def indices_text(indices: IndexArray) -> str:
    return np.array2string(indices, separator=", ", threshold=8, edgeitems=3)


def _spec_text(spec: Spec) -> str:
    return str(spec) if isinstance(spec, Range | int) else indices_text(spec)


def _out_of_bounds(index: int, axis: int, size: int) -> IndexError:
    return IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")


@attrs.frozen(eq=False, repr=False, slots=False)
class SlicedTensor(View):
    """A selection per axis, each independent of the others (outer indexing).

    One spec for every axis below: an int drops that axis at that index, a `Range`
    keeps a strided run of indices, and an index array keeps those indices in that
    order (repeats allowed). A progression such as `[1, 3, 5]` still fuses.

    >>> import lazytensor as lt
    >>> t = SlicedTensor(lt.arange(20).reshape(4, 5), (Range(1, 2, 2), np.array([4, 0])))
    >>> t.shape, t.translate((1, 0)), t.layout
    ((2, 2), (3, 4), Layout(shape=(2, 2), strides=(10, -4), offset=9))
    """

    specs: tuple[Spec, ...] = attrs.field(converter=_freeze_specs)

    @specs.validator
    def _check_specs(self, _attribute: object, specs: tuple[Spec, ...]) -> None:
        shape = self.wrapped.shape
        if len(specs) != len(shape):
            raise IndexError(f"{len(specs)} slice specs for a tensor of shape {shape} with {len(shape)} axes")
        for axis, (spec, size) in enumerate(zip(specs, shape, strict=True)):
            if isinstance(spec, int):
                if not 0 <= spec < size:
                    raise _out_of_bounds(spec, axis, size)
            elif isinstance(spec, Range):
                if not spec.fits(size):
                    raise IndexError(f"range {spec} does not fit axis {axis} with size {size}")
            elif spec.ndim != 1:
                raise IndexError(f"index list for axis {axis} must be 1-D, got shape {spec.shape}")
            else:
                indexing.normalize_indices(spec, axis, size, negatives=False)

    @stacked
    def shape(self) -> Shape:
        return tuple(
            [
                spec.count if isinstance(spec, Range) else len(spec)
                for spec in self.specs
                if not isinstance(spec, int)
            ]
        )

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        here = iter(index_arrays)
        below: list[IndexArray] = []
        for spec in self.specs:
            if isinstance(spec, int):
                below.append(np.asarray(spec, dtype=np.intp))
            elif isinstance(spec, Range):
                below.append(spec.start + next(here) * spec.step)
            else:
                below.append(spec[next(here)])
        return tuple(below)

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        """Ints and ranges as basic indexing, then `np.ix_` for the lists."""
        basic = [spec.as_slice() if isinstance(spec, Range) else spec for spec in self.specs]
        kept = below[tuple(slice(None) if isinstance(spec, np.ndarray) else spec for spec in basic)]
        per_axis = [spec for spec in basic if not isinstance(spec, int)]
        lists = [
            indexing.usable(spec) if isinstance(spec, np.ndarray) else np.arange(size)
            for spec, size in zip(per_axis, kept.shape, strict=True)
        ]
        selected: Buffer = kept[np.ix_(*lists)]
        return selected

    def view_of(self, below: Buffer) -> Buffer | None:
        if any(isinstance(spec, np.ndarray) for spec in self.specs):
            return None  # numpy would copy a list index: build the view from the layout
        # the trailing `...` keeps an all-int key a 0-d view: numpy would return a scalar, a copy
        key = (*(spec.as_slice() if isinstance(spec, Range) else spec for spec in self.specs), Ellipsis)
        view: Buffer = below[key]
        return view

    def describe(self) -> str:
        return "key [" + ", ".join(_spec_text(spec) for spec in self.specs) + "]"

    @stacked
    def layout(self) -> Layout | None:
        """The layout below, selected: ints, ranges and lists that are arithmetic progressions fuse."""
        below = self.wrapped.layout
        return None if below is None else below.select(self.specs)

    def names_of(self, names_below: Names) -> Names:
        """An int drops its axis' name; a range or an index list keeps it."""
        return tuple(
            [name for name, spec in zip(names_below, self.specs, strict=True) if not isinstance(spec, int)]
        )
