"""Named axes: a name (or None) per axis, kept by the base and derived through every view.

A base holds the names it was given (by `lt.tensor(..., names=...)`, a loader, or nobody);
each wrapper derives its own from the ones below it by its `names_of(names_below)`, the first
time someone asks. The derivation walks the stack in a loop, bottom first, so a stack 10,000
layers deep is named without recursion, and a tensor nobody asks about pays nothing.

The functions here are the rules shared by wrappers, arguments and operations: checking
names, finding an axis by name, the rule of reshape, and the broadcast check of binary
operations; `surface.naming` gives tensors their `names`, `rename` and `isel`. (Ground floor:
it imports nothing of ours.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

Name = str | None
Names = tuple[Name, ...]
Shape = tuple[int, ...]

NAME_SHOWN = 40
"""The most characters a name takes where it is printed or quoted (headers, labels, `explain()`,
error messages): a longer one is cut by `shown_name`."""


def shown_name(name: str) -> str:
    """`name` as it is printed: whole up to `NAME_SHOWN` characters, else its start, an ellipsis and
    its length, `NAME_SHOWN` characters in all. The one place names are cut: a 10 MB name prints as
    40 characters, at the cost of one slice.

    >>> shown_name("time")
    'time'
    >>> shown_name("channel" * 1_000_000)
    'channelchannelcha…(7,000,000 characters)'
    """
    if len(name) <= NAME_SHOWN:
        return name
    length = f"…({len(name):,} characters)"
    return name[: NAME_SHOWN - len(length)] + length


def shown_names(names: Iterable[Any]) -> tuple[Any, ...]:
    """The names with each str cut by `shown_name` (None and anything else as it is), for messages
    that quote a tuple of names.

    >>> shown_names(("trial", None, "x" * 50))
    ('trial', None, 'xxxxxxxxxxxxxxxxxxxxxxxx…(50 characters)')
    """
    return tuple(shown_name(name) if isinstance(name, str) else name for name in names)


def unnamed(ndim: int) -> Names:
    """The names of a tensor nobody named: None for every axis.

    >>> unnamed(2)
    (None, None)
    """
    return (None,) * ndim


def check_names(names: Any, shape: Shape, what: str = "names") -> Names:
    """`names` as a tuple of `str | None`, one per axis of `shape`, no name twice (PyTorch's rule:
    an axis found by name must be one axis).

    >>> check_names(["trial", None], (4, 5))
    ('trial', None)
    >>> check_names(("a", "a"), (1, 2))
    Traceback (most recent call last):
    ValueError: names ('a', 'a') name axis 'a' twice (shape (1, 2))
    """
    if isinstance(names, str) or not isinstance(names, Iterable):
        given_text = repr(shown_name(names)) if isinstance(names, str) else repr(names)
        raise TypeError(f"{what} must be a sequence of str or None, one per axis, got {given_text}")
    found = tuple(names)
    for axis, name in enumerate(found):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"{what} {shown_names(found)!r}: each name must be a str or None, got {name!r}")
        if name == "":
            raise ValueError(
                f"{what} {shown_names(found)!r}: the empty name '' names no axis: use None for axis {axis} "
                "(a file's '' is read as None)"
            )
    if len(found) != len(shape):
        raise ValueError(
            f"{what} {shown_names(found)} give {len(found)} names for the {len(shape)} axes of shape {shape}"
        )
    given = [name for name in found if name is not None]
    for name in given:
        if given.count(name) > 1:
            raise ValueError(
                f"{what} {shown_names(found)} name axis {shown_name(name)!r} twice (shape {shape})"
            )
    return found


def from_format(found: Sequence[Any] | None, shape: Shape) -> Names | None:
    """Names a file format keeps, made valid: each as a str (an empty one is no name), a name seen
    twice kept on its first axis only, None when the format keeps none or a count that does not fit.

    >>> from_format(["trial", "", "trial"], (2, 3, 4))
    ('trial', None, None)
    """
    if found is None or len(found) != len(shape):
        return None
    names: list[Name] = []
    for name in found:
        text = None if name is None else str(name)
        names.append(text if text and text not in names else None)
    return tuple(names)


def is_named(names: Names) -> bool:
    """Whether any axis has a name."""
    return any(name is not None for name in names)


def axis_of(name: str, names: Names, shape: Shape) -> int:
    """The axis called `name`; ValueError naming the tensor's names when none is.

    >>> axis_of("time", ("trial", "time"), (4, 100))
    1
    >>> axis_of("freq", ("trial", "time"), (4, 100))
    Traceback (most recent call last):
    ValueError: no axis is named 'freq': the tensor of shape (4, 100) has names ('trial', 'time')
    """
    for axis, known in enumerate(names):
        if known == name:
            return axis
    raise ValueError(
        f"no axis is named {shown_name(name)!r}: the tensor of shape {shape} has names {shown_names(names)}"
    )


class NamedShape(tuple[int, ...]):
    """A shape that carries its axes' names, for the checks of axis arguments (`keywords`) to find
    an axis given by name. It is the shape in every other way (equal to it, printed as it).

    >>> shape = NamedShape((2, 3), ("trial", "time"))
    >>> shape, shape == (2, 3), shape.names
    ((2, 3), True, ('trial', 'time'))
    """

    names: Names

    def __new__(cls, shape: Shape, names: Names) -> NamedShape:
        made = super().__new__(cls, shape)
        made.names = names
        return made


def axis_named(name: str, shape: Shape, what: str) -> int:
    """The axis called `name` in `shape` (a `NamedShape`; a plain shape has no names), or the
    ValueError naming the tensor's names.

    >>> axis_named("time", NamedShape((2, 3), ("trial", "time")), "sum")
    1
    >>> axis_named("time", (2, 3), "sum")
    Traceback (most recent call last):
    ValueError: sum: no axis is named 'time': the tensor of shape (2, 3) has no names
    """
    names = getattr(shape, "names", None)
    if names is None:
        raise ValueError(
            f"{what}: no axis is named {shown_name(name)!r}: the tensor of shape {tuple(shape)} has no names"
        )
    try:
        return axis_of(name, names, tuple(shape))
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


def selection(indexers: dict[str, Any], by_name: dict[str, Any]) -> dict[str, Any]:
    """The index of each named axis `isel` is given, in the dict and as keywords, checked: an axis
    given in both is a TypeError, and so is an index numpy would read as something other than a
    selection along that one axis (a bool or None adds an axis, `...` stands for several).

    >>> selection({"a": 0}, {"b": slice(1)})
    {'a': 0, 'b': slice(None, 1, None)}
    >>> selection({}, {"a": None})
    Traceback (most recent call last):
    TypeError: isel: axis 'a' takes an int, a slice, a list or an array, not None
    """
    twice = [name for name in by_name if name in indexers]
    if twice:
        name = twice[0]
        raise TypeError(
            f"isel: axis {shown_name(name)!r} is given twice: {indexers[name]!r} in the dict and "
            f"{by_name[name]!r} as a keyword"
        )
    chosen = {**indexers, **by_name}
    for name, index in chosen.items():
        if index is None or index is Ellipsis or isinstance(index, bool | np.bool_):
            raise TypeError(
                f"isel: axis {shown_name(name)!r} takes an int, a slice, a list or an array, not {index!r}"
            )
    return chosen


def resolve_dims(dim: Any, t: Any, what: str) -> Any:
    """`dim` with every str in it (alone, or in a tuple or list) replaced by the axis of `t` so
    named; anything else as it is, for the usual checks of ints to judge. `t.names` is read only
    when a name is given.

    >>> import lazytensor as lt
    >>> resolve_dims(("time", 0), lt.zeros(4, 100, names=("trial", "time")), "sum")
    (1, 0)
    """
    if isinstance(dim, str):
        return axis_named(dim, NamedShape(t.shape, t.names), what)
    if isinstance(dim, tuple | list) and any(isinstance(d, str) for d in dim):
        shape = NamedShape(t.shape, t.names)
        return type(dim)(axis_named(d, shape, what) if isinstance(d, str) else d for d in dim)
    return dim


def renamed(names: Names, shape: Shape, positional: Sequence[Any], mapping: dict[str, Any]) -> Names:
    """The names `t.rename(*positional, **mapping)` gives: a full new list, `None` alone to drop them
    all, or `old="new"` pairs (a new name of None drops one).

    >>> renamed(("a", "b"), (2, 3), (), {"b": "time"})
    ('a', 'time')
    >>> renamed(("a", "b"), (2, 3), (None,), {})
    (None, None)
    """
    if positional and mapping:
        raise TypeError("rename takes either the new names or old=new pairs, not both")
    if mapping:
        new = list(names)
        for old, name in mapping.items():
            new[axis_of(old, names, shape)] = name
        return check_names(new, shape)
    if len(positional) == 1 and positional[0] is None:
        return unnamed(len(shape))
    if len(positional) == 1 and not isinstance(positional[0], str | None):
        positional = tuple(positional[0])
    return check_names(positional, shape)


def reshaped(names: Names, below: Shape, shape: Shape) -> Names:
    """The names through a reshape from `below` to `shape`: the leading and trailing axes it leaves
    alone keep theirs. Between them, a reshape that only adds or drops axes of size 1 keeps the
    names of the other axes (an unsqueeze adds a None, a squeeze drops a name); one that splits or
    merges axes gives None to every axis between. An axis of size 0 is never taken as untouched: in
    an empty tensor sizes cannot tell which axes merged.

    >>> reshaped(("trial", "channel", "time"), (4, 8, 100), (4, 800))
    ('trial', None)
    >>> reshaped(("a", "b", "c"), (2, 1, 3), (2, 3))
    ('a', 'c')
    >>> reshaped(("a", "b"), (2, 3), (2, 1, 3))
    ('a', None, 'b')
    >>> reshaped(("a", "b", "c"), (2, 0, 4), (0, 4))
    (None, 'c')
    """
    lead = 0
    while lead < min(len(below), len(shape)) and below[lead] == shape[lead] != 0:
        lead += 1
    trail = 0
    while trail < min(len(below), len(shape)) - lead and below[-1 - trail] == shape[-1 - trail] != 0:
        trail += 1
    middle_below = range(lead, len(below) - trail)
    middle_here = range(lead, len(shape) - trail)
    kept_below = [axis for axis in middle_below if below[axis] != 1]
    kept_here = [axis for axis in middle_here if shape[axis] != 1]
    middle: list[Name] = [None] * len(middle_here)
    if [below[axis] for axis in kept_below] == [shape[axis] for axis in kept_here]:
        for here, there in zip(kept_here, kept_below, strict=True):
            middle[here - lead] = names[there]
    return (*names[:lead], *middle, *names[len(names) - trail :])


def broadcast_names(operands: Sequence[tuple[Names, Shape]]) -> Names:
    """The names of the broadcast result of operands with these names and shapes, PyTorch's rule:
    axes matched by broadcasting (aligned from the right) must have equal names or one None, and
    the result keeps the name that is not None. No alignment by name: that is xarray's job.
    (Joined operands, `cat`'s, must agree the same way, axis by axis.)

    >>> broadcast_names([(("trial", None), (4, 5)), ((None, "time"), (1, 5))])
    ('trial', 'time')
    >>> broadcast_names([(("a",), (4,)), (("b",), (4,))])
    Traceback (most recent call last):
    ValueError: names ('a',) and ('b',) do not match at axis -1: 'a' against 'b' (shapes (4,) and (4,))
    >>> broadcast_names([(("a",), (1,)), (("a", None), (1, 1))])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: names ('a',) and ('a', None) are misaligned: 'a' is at axes [-2, -1] from the right...
    """
    first = operands[0][0] if operands else ()
    if all(names == first and len(shape) == len(first) for names, shape in operands):
        return first  # the common case: operands named alike, nothing to match
    ndim = max((len(shape) for _, shape in operands), default=0)
    result: list[Name] = [None] * ndim
    source: list[tuple[Names, Shape] | None] = [None] * ndim
    for names, shape in operands:
        for back in range(1, len(names) + 1):
            name = names[-back]
            if name is None:
                continue
            known = result[-back]
            if known is None:
                result[-back], source[-back] = name, (names, shape)
                continue
            if known != name:
                other_names, other_shape = source[-back]  # type: ignore[misc]
                raise ValueError(
                    f"names {shown_names(other_names)} and {shown_names(names)} do not match at axis "
                    f"{-back}: {shown_name(known)!r} against {shown_name(name)!r} (shapes {other_shape} "
                    f"and {shape})"
                )
    given = [name for name in result if name is not None]
    for name in given:
        if given.count(name) > 1:  # one name at two places from the right
            places = [-b for b, n in enumerate(reversed(result), start=1) if n == name]
            listed = " and ".join(str(shown_names(names)) for names, _ in operands)
            raise ValueError(
                f"names {listed} are misaligned: {shown_name(name)!r} is at axes {sorted(places)} from the "
                "right "
                "(broadcasting matches axes by position, not by name: permute to line the names up)"
            )
    return tuple(result)


def operand_names(x: Any) -> tuple[Names, Shape]:
    """An operand's names and shape: a tensor's own, an array's or a number's unnamed."""
    names = getattr(x, "names", None)
    shape = tuple(getattr(x, "shape", ()))
    return (unnamed(len(shape)) if names is None else names), shape


def matmul_names(left: tuple[Names, Shape], right: tuple[Names, Shape]) -> Names | None:
    """The names of `left @ right`, PyTorch's rule: the batch axes agree by `broadcast_names`, the
    contracted axes are dropped, the result's last two axes take the left operand's second-to-last
    name and the right operand's last one (a 1-D operand contributes none: its axis is contracted).
    A name that would name two axes of the result is a ValueError, as in PyTorch. None for a 0-d
    operand, which the kernel refuses.

    >>> matmul_names((("batch", "row", "k"), (8, 2, 3)), ((None, "col"), (3, 4)))
    ('batch', 'row', 'col')
    >>> matmul_names((("row", "k"), (2, 3)), (("k",), (3,)))
    ('row',)
    """
    (names_a, shape_a), (names_b, shape_b) = left, right
    if not shape_a or not shape_b:
        return None
    batch = broadcast_names([(names_a[:-2], shape_a[:-2]), (names_b[:-2], shape_b[:-2])])
    rows = names_a[-2:-1]  # empty for a 1-D operand: its one axis is contracted
    columns = names_b[-1:] if len(names_b) > 1 else ()
    result = (*batch, *rows, *columns)
    given = [name for name in result if name is not None]
    for name in given:
        if given.count(name) > 1:
            raise ValueError(
                f"matmul: names {shown_names(names_a)} and {shown_names(names_b)} (shapes {shape_a} and "
                f"{shape_b}) would put {shown_name(name)!r} on two axes of the result "
                f"{shown_names(result)}: rename an operand first"
            )
    return result


def stacked_names(operands: Sequence[tuple[Names, Shape]], dim: Any) -> Names | None:
    """The names of `stack`'s result: the operands' names agree by `broadcast_names`, the new axis at
    `dim` has none (PyTorch's rule). None for a `dim` out of range, which the kernel refuses.

    >>> stacked_names([(("trial", None), (2, 3)), ((None, "time"), (2, 3))], -1)
    ('trial', 'time', None)
    """
    names = broadcast_names(operands)
    if not isinstance(dim, int) or not -len(names) - 1 <= dim <= len(names):
        return None
    axis = dim % (len(names) + 1)
    return (*names[:axis], None, *names[axis:])


def result_names(shapes: str, operands: Sequence[Any], params: dict[str, Any], op: str = "") -> Names | None:
    """The names of the result of operation `op`, which treats shapes as `shapes` says (an entry of
    the operation table): broadcasting operands must agree by `broadcast_names` (ValueError if not);
    an operation that keeps the shape keeps its first operand's names; a reduction drops the names of
    the axes it reduces (keeps them with keepdim); joined operands agree as broadcast ones (`stack`'s
    new axis has none); `matmul` names by `matmul_names`. None for the rest: their results are
    unnamed.

    >>> import lazytensor as lt
    >>> t = lt.zeros(2, 3, names=("trial", "time"))
    >>> result_names("reduce", [t], {"dim": (0,), "keepdim": False}), result_names("broadcast", [t, 1.0], {})
    (('time',), ('trial', 'time'))
    """
    if shapes == "broadcast":
        return broadcast_names([operand_names(x) for x in operands])
    if shapes == "join" and op == "stack":
        return stacked_names([operand_names(x) for x in operands], params.get("dim", 0))
    if shapes == "join":  # cat keeps the axes, which must agree as broadcast ones
        return broadcast_names([operand_names(x) for x in operands])
    if op == "matmul" and len(operands) == 2:
        return matmul_names(operand_names(operands[0]), operand_names(operands[1]))
    if shapes == "same":
        return operand_names(operands[0])[0]
    if shapes == "reduce":
        names, shape = operand_names(operands[0])
        dim = params.get("dim")
        if dim is None:
            return names if params.get("keepdim") else ()
        dims = {d % len(shape) for d in ((dim,) if isinstance(dim, int) else dim)} if shape else set()
        if params.get("keepdim"):
            return names
        return tuple(name for axis, name in enumerate(names) if axis not in dims)
    return None


def own_names(t: Any) -> Names:
    """The names of one layer, the names below it already derived (`once.stacked` walks a stack of
    any depth from the bottom up, a loop): a view's by its rule, a base nobody named none."""
    below = getattr(t, "wrapped", None)
    if below is None:
        return unnamed(len(t.shape))
    names: Names = t.names_of(below.names)
    return names


def name_base(base: Any, names: Any) -> None:
    """Give a base its names (checked against its shape): for constructors and loaders, before the
    base is handed out. A base never named keeps the class's flag: operations skip names for it."""
    if names is None:
        return
    checked = check_names(names, base.shape)
    type(base).names.prime(base, checked)  # the cached value of the `stacked` descriptor `names`
    if is_named(checked):
        mark_named(base)


def mark_named(base: Any) -> None:
    """Flag `base` as one that something over it may name: from then on views and operations over
    it derive and check names (a base's flag is False until then, a class attribute)."""
    object.__setattr__(base, "names_used", True)  # a flag on a frozen class, set as attrs does
    object.__setattr__(base, "plain", False)  # and operations over it leave their fast path
