"""Named axes on every tensor: `names`, `rename`, `isel`, coordinates (`coords`, `assign_coords`) and
selection by label (`sel`); the rules are `lazytensor.ground.naming`'s and `lazytensor.ground.coords`'."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from lazytensor.ground import coords as coordinates
from lazytensor.ground import naming
from lazytensor.ground.once import stacked
from lazytensor.tensors.surface.primitives import USER_ERRORS, Surface

if TYPE_CHECKING:
    from lazytensor.ground.positions import Shape
    from lazytensor.tensors.tensor import AbstractTensor
    from lazytensor.tensors.views import constructors as view_constructors


class Naming(Surface):
    """A name (or None) per axis, derived through every view; keyword indexing by name.

    Primitive: `_views` (`rename` makes a `RenamedTensor`, `isel` indexes).
    """

    __slots__ = ()

    if TYPE_CHECKING:
        _views = view_constructors

    names_used = False
    """On a base: whether any tensor over it may have a name (it was named, or something over it was
    renamed). False for almost every base, and then views and operations skip names altogether."""

    coords_used = False
    """On a base: whether any tensor over it may have a coordinate (it was labelled, or something over
    it was): False for almost every base, and then views and operations skip coordinates."""

    @stacked
    def names(self) -> naming.Names:
        """The name of each axis, None where it has none (all None when nobody named any).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3, 4, names=("trial", "channel", "time"))
        >>> t.names, t.T.names, t[0, ::2].names
        (('trial', 'channel', 'time'), ('time', 'channel', 'trial'), ('channel', 'time'))
        """
        return naming.own_names(self)

    @property
    def _axis_shape(self) -> Shape:
        """The shape, for the checks of axis arguments: with the names when the tensor may have any,
        so that an axis can be given by name (`t.sum("time")`)."""
        shape = self.shape
        if not self.base.names_used:
            return shape
        return naming.NamedShape(shape, self.names)

    def rename(self, *names: Any, **mapping: Any) -> AbstractTensor:
        """A view with other names: all of them (`t.rename("a", "b")`, `t.rename(None)` to drop them)
        or some (`t.rename(time="t")`). It shares storage and writes through, like any view.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3).rename("row", "col")
        >>> t.names, t.rename(col="column").names, t.rename(None).names
        (('row', 'col'), ('row', 'column'), (None, None))
        """
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            new = naming.renamed(self.names, self.shape, names, mapping)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None
        if naming.is_named(new):
            naming.mark_named(self.base)
        return self._views.rename(cast("AbstractTensor", self), new)

    def isel(self, indexers: dict[str, Any] | None = None, /, **by_name: Any) -> Any:
        """Indexing by axis name, the keyword form of `t[key]`: each named axis takes its index (an int
        drops the axis, a slice or a list keeps it), every other axis is kept whole. The result is
        the same view `t[key]` gives, so it writes through; several lists index together, by
        numpy's rule, as they do in `t[key]` (`t.oindex` selects each on its own).

        >>> import lazytensor as lt
        >>> t = lt.zeros(4, 3, 100, names=("trial", "channel", "time"))
        >>> view = t.isel(trial=3, time=slice(0, 10))
        >>> view.shape, view.names
        ((3, 10), ('channel', 'time'))
        >>> view[...] = 1.0
        >>> t[3, :, :10].sum().item(), t.sum().item()
        (30.0, 30.0)
        """
        key: list[Any] = [slice(None)] * self.ndim
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            chosen = naming.selection(indexers or {}, by_name)
            shape = naming.NamedShape(self.shape, self.names)
            for name, index in chosen.items():
                key[naming.axis_named(name, shape, "isel")] = index
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None
        return cast("AbstractTensor", self)[tuple(key)]

    @stacked
    def axis_coords(self) -> coordinates.Coords:
        """The coordinate of each axis (a read-only 1-D numpy array of labels), None where it has none;
        derived through every view as the names are (`coords` is the same by name)."""
        return coordinates.own_coords(self)

    @property
    def coords(self) -> dict[str, np.ndarray]:
        """The coordinates by axis name, as xarray's `coords`: each a read-only 1-D numpy array of
        the labels of that axis, in order (only the axes that have one).

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, 3, names=("station", "level"), coords={"station": ["rome", "oslo"]})
        >>> t.coords, t[::-1].coords["station"].tolist()
        ({'station': array(['rome', 'oslo'], dtype='<U4')}, ['oslo', 'rome'])
        """
        if not self.base.coords_used:
            return {}
        return {
            name: coord
            for name, coord in zip(self.names, self.axis_coords, strict=True)
            if name is not None and coord is not None
        }

    def assign_coords(self, coords: dict[str, Any] | None = None, /, **by_name: Any) -> AbstractTensor:
        """A view with coordinates given to named axes (xarray's spelling): `t.assign_coords(station=
        ["rome", "oslo"])`, labels of str, numbers or datetime64, one per position (None drops an
        axis' coordinate). It shares storage and writes through, like any view.

        >>> import lazytensor as lt
        >>> t = lt.zeros(2, names=("station",)).assign_coords(station=["rome", "oslo"])
        >>> t.coords["station"].tolist(), t.sel(station="oslo").item()
        (['rome', 'oslo'], 0.0)
        """
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            given = {**(coords or {}), **by_name}
            found = coordinates.checked(given, self.names, self.shape, self.axis_coords)
        except USER_ERRORS as error:
            raise error.with_traceback(None) from None
        if coordinates.has_any(found):
            coordinates.mark_labelled(self.base)
        return self._views.assign_coords(cast("AbstractTensor", self), found)

    def sel(
        self, indexers: dict[str, Any] | None = None, /, *, method: str | None = None, **by_name: Any
    ) -> Any:
        """Selection by label, xarray's `sel`: each named axis takes a label (the axis is dropped), a
        list of labels, or an inclusive slice of labels (on a sorted coordinate); `method="nearest"`
        takes the nearest label. Date strings select as in xarray ("2024-01-02" on hourly labels is
        that day). The result is a view, as `isel`'s, and writes through; several lists select each
        on its own (outer indexing, as xarray). A missing label is a KeyError naming the axis, the
        label and the nearest labels.

        >>> import lazytensor as lt
        >>> t = lt.arange(6.0).reshape(2, 3, names=("station", "level"))
        >>> t = t.assign_coords(station=["rome", "oslo"], level=[1000, 850, 500])
        >>> t.sel(station="oslo", level=slice(1000, 850)).tolist()
        [3.0, 4.0]
        >>> t.sel(level=700, method="nearest").tolist()
        [1.0, 4.0]
        """
        key: list[Any] = [slice(None)] * self.ndim
        try:  # free unless raised: a bad argument's traceback ends at the caller's line
            twice = [name for name in by_name if name in (indexers or {})]
            if twice:
                raise TypeError(
                    f"sel: axis {naming.shown_name(twice[0])!r} is given twice: in the dict and as a keyword"
                )
            chosen = {**(indexers or {}), **by_name}
            shape = naming.NamedShape(self.shape, self.names)
            labels = self.axis_coords
            for name, label in chosen.items():
                axis = naming.axis_named(name, shape, "sel")
                key[axis] = coordinates.index_for(labels[axis], name, label, method)
        except (*USER_ERRORS, KeyError) as error:
            raise error.with_traceback(None) from None
        view = cast("AbstractTensor", self)
        for axis, index in enumerate(key):  # each list on its own (outer, as xarray), then the rest
            if isinstance(index, list):
                view = view[(slice(None),) * axis + (index,)]
                key[axis] = slice(None)
        return view[tuple(key)]
