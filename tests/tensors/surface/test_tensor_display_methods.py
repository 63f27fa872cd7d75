"""The display methods of a tensor hand over what they are given: `t.print(dims)` prints that slice,
and IPython's `_repr_pretty_` shows an ellipsis for a cycle, as every other printable here does."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest
from bases_support import Plain

import lazytensor as lt


class _Pretty:
    """IPython's pretty printer, as far as `_repr_pretty_` uses it."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, value: str) -> None:
        self.texts.append(value)


@pytest.mark.parametrize("dims", [(1, None, None), [None, 2, None], (None, None, -1)])
@pytest.mark.parametrize("style", ["grid", "separators"])
def test_t_print_prints_the_slice_it_is_given(
    dims: Any, style: str, capsys: pytest.CaptureFixture[str]
) -> None:
    t = lt.arange(2 * 3 * 4).reshape(2, 3, 4)
    t.print(dims, style=style)
    text = lt.to_string(t, dims=dims, style=style)
    assert capsys.readouterr().out == (text + "\n" if style == "grid" else text)
    assert text != lt.to_string(t, style=style)


def test_t_print_of_every_axis_is_the_whole_print(capsys: pytest.CaptureFixture[str]) -> None:
    t = lt.arange(6).reshape(2, 3)
    t.print(None, linewidth=80)
    assert capsys.readouterr().out == lt.to_string(t, linewidth=80) + "\n"


def test_a_tensor_at_the_prompt_is_its_print_or_an_ellipsis_for_a_cycle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    t = lt.arange(6).reshape(2, 3).T
    pretty = _Pretty()
    t._repr_pretty_(pretty, True)
    t._repr_pretty_(pretty, False)
    assert pretty.texts == ["…", repr(t)]


@pytest.mark.parametrize("name", ["explain", "stats", "summary", "print"])
def test_a_display_method_typed_without_parentheses_is_one_line(name: str) -> None:
    """`t.explain` at the prompt names the tensor in one line (as numpy's and PyTorch's methods do),
    never the whole print inside the bound method's repr; the method still calls and documents."""
    t = lt.arange(24.0).reshape(2, 3, 4)
    method = getattr(t, name)
    assert repr(method) == f"<bound method {name} of tensor (2, 3, 4) float64>"
    assert repr(getattr(lt.arange(3), name)) == f"<bound method {name} of tensor (3,) int64>"
    assert method.__doc__ == getattr(lt.StorageTensor, name).__doc__
    assert "self" not in inspect.signature(method).parameters
    assert method.__self__ is t


def test_a_bound_display_method_reads_nothing_for_its_repr() -> None:
    array = Plain(np.arange(12.0).reshape(3, 4))
    t = lt.from_array(array)
    assert repr(t.T.explain) == "<bound method explain of tensor (4, 3) float64>"
    assert array.requests == 0
