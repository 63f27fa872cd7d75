"""Printing and explaining a tensor: every method hands the tensor to the printer, which reads it
through the protocol alone (`lazytensor.ground.protocol.Tensor`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

from lazytensor import printer
from lazytensor.ground.protocol import Tensor
from lazytensor.printer import explain
from lazytensor.printer.summary import inline_text
from lazytensor.tensors.surface.primitives import Surface

BROWSERS: list[Callable[..., None]] = []
"""What `t.browse()` runs: `lazytensor.browse` (a floor above this one) adds its entry when imported,
as `import lazytensor` does."""


P = ParamSpec("P")
R = TypeVar("R")


class BoundMethod(Generic[P, R]):
    """A display method bound to its tensor, whose repr is one line (`<bound method explain of tensor
    (3, 4) float64>`): `t.explain` typed without parentheses names the tensor, never prints it all, as
    numpy's and PyTorch's methods do."""

    __slots__ = ("__func__", "__self__")

    def __init__(self, function: Callable[Concatenate[Any, P], R], tensor: Any) -> None:
        self.__func__ = function
        self.__self__ = tensor

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.__func__(self.__self__, *args, **kwargs)

    def __repr__(self) -> str:
        tensor = cast(Tensor, self.__self__)
        shape = "(" + ", ".join(str(n) for n in tensor.shape) + ("," if len(tensor.shape) == 1 else "") + ")"
        return f"<bound method {self.__func__.__name__} of tensor {shape} {tensor.dtype}>"

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__func__.__doc__

    @property
    def __name__(self) -> str:
        return self.__func__.__name__

    @property
    def __wrapped__(self) -> Callable[Concatenate[Any, P], R]:
        return self.__func__

    @property
    def __signature__(self) -> inspect.Signature:
        """The signature without `self`, for `help()`, IPython's `?` and tab completion."""
        signature = inspect.signature(self.__func__)
        return signature.replace(parameters=list(signature.parameters.values())[1:])


class one_line_repr(Generic[P, R]):
    """Make a method's bound form a `BoundMethod`, whose repr is one line."""

    def __init__(self, function: Callable[Concatenate[Any, P], R]) -> None:
        self.function = function
        self.__doc__ = function.__doc__  # for doctest, help() and the docs site, as a function's own
        self.__module__ = function.__module__
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__wrapped__ = function

    @overload
    def __get__(self, tensor: None, owner: type) -> Callable[Concatenate[Any, P], R]: ...
    @overload
    def __get__(self, tensor: object, owner: type) -> BoundMethod[P, R]: ...
    def __get__(self, tensor: object | None, owner: type) -> Any:
        if tensor is None:
            return self.function
        return BoundMethod(self.function, tensor)


class Display(Surface):
    """The print, rich's and Jupyter's protocols, the summary and `explain()`.

    Needs no primitive: the printer reads the tensor through the protocol (shape, layers, values).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        """The grid print (header, then values) as plain text at the configured width."""
        return printer.to_string(cast(Tensor, self))

    def __str__(self) -> str:
        """The print; a 0-d tensor is its number, as numpy writes it (`print(t.sum())` shows `66`)."""
        return printer.tensor_str(cast(Tensor, self))

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        """rich's protocol: the print as renderables, so tensors compose in tables and panels."""
        yield printer.rich_print(cast(Tensor, self), measuring=False)

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        """rich's measuring (a `Table` sizing its columns): the print it makes is the one drawn next,
        so the base is read once."""
        return printer.rich_print(cast(Tensor, self), measuring=True).__rich_measure__(console, options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        """Jupyter's display: the notebook HTML (never wraps, themed colours) and its plain text."""
        return printer.tensor_mimebundle(cast(Tensor, self))

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """IPython's prompt: the print, in colour on a terminal (`repr()` stays plain)."""
        printer.tensor_pretty(cast(Tensor, self), p, cycle)

    def _repr_inline_(self, max_width: int) -> str:
        """One short line of values for xarray's repr of a Dataset holding this tensor.

        >>> import lazytensor as lt
        >>> lt.arange(10)._repr_inline_(15)
        '0 1 2 ... 8 9'
        """
        return inline_text(cast(Tensor, self), max_width)

    @one_line_repr
    def summary(self, /, **options: Any) -> printer.SummaryLine:
        """One line: shape, dtype, count, range, mean, std, NaN/inf counts, the layers in short."""
        return printer.summary(cast(Tensor, self), **options)

    @one_line_repr
    def stats(self, /, **options: Any) -> printer.StatsReport:
        """The statistics of every value, computed now (the print skips them for big or mapped tensors)."""
        return printer.stats(cast(Tensor, self), **options)

    @one_line_repr
    def print(self, /, dims: Sequence[int | None] | None = None, **options: Any) -> None:
        """Print this tensor, or the slice `dims` (None = all of an axis, int = fixed), with options.

        >>> import lazytensor as lt
        >>> lt.arange(3).print(style="separators")  # doctest: +NORMALIZE_WHITESPACE
        0.00    1.00    2.00
        """
        printer.tprint(cast(Tensor, self), dims, **options)

    @one_line_repr
    def explain(self, /, position: Sequence[int] | int | None = None) -> explain.Explanation:
        """The layer tree (class, parameters, shape, layout), or the trace of `position` down to storage.

        >>> import lazytensor as lt
        >>> print(lt.arange(6).reshape(2, 3).T.explain((2, 1)))
        position (2, 1) of a tensor of shape (3, 2)
        layer       shape   position  parameters
        Transposed  (3, 2)  (2, 1)    axes (1, 0)
        Reshaped    (2, 3)  (1, 2)    new shape (2, 3)
        Storage     (6,)    (5,)      buffer of 6 × int64
        storage index 5 holds 5
        the fused layout (strides (1, 3), offset 0) gives 5 in one step
        """
        return explain.explain(cast(Tensor, self), position)

    def browse(self, writable: bool = False) -> None:
        """Walk this tensor's axes in the terminal, reading only the cells on screen, until `q`
        (`docs/browse.md`); `writable=True` lets Enter edit a cell, written through to the tensor.
        Needs textual: `pip install 'lazytensor[browse]'`."""
        if not BROWSERS:
            raise RuntimeError("t.browse() needs lazytensor.browse, which `import lazytensor` imports")
        BROWSERS[-1](self, writable)
