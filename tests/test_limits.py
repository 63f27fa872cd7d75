"""Huge results refuse at once, reductions over expanded axes cost what the base costs, and small
mistakes in arguments are named (issue 12's items 7 and 10)."""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt

HUGE = 10**12


def _huge() -> lt.AbstractTensor:
    return lt.tensor([1.0, 2.0, 3.0]).expand(HUGE, 3)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: e.tolist(),
        lambda e: e.clone(),
        lambda e: e.contiguous(),
        lambda e: e.astype(np.int32),
        lambda e: e.T.reshape(-1).numpy(),
    ],
    ids=["tolist", "clone", "contiguous", "astype", "unfused read"],
)
def test_anything_bigger_than_memory_refuses_at_once_naming_the_size(make: object) -> None:
    with pytest.raises(MemoryError, match=r"3,000,000,000,000 elements\), more than this machine's"):
        make(_huge())  # type: ignore[operator]


def test_reductions_over_expanded_axes_read_only_the_base() -> None:
    e = _huge()
    assert e.sum().item() == 6.0 * HUGE and e.sum(0).tolist() == [HUGE, 2.0 * HUGE, 3.0 * HUGE]
    assert e.mean().item() == 2.0 and e.max().item() == 3.0 and e.min(0).tolist() == [1.0, 2.0, 3.0]
    assert e.var(0).tolist() == [0.0, 0.0, 0.0] and e.std().item() == pytest.approx(np.std([1.0, 2.0, 3.0]))
    above = (lt.tensor([1.0, 2.0, 3.0]) > 2).expand(HUGE, 3)
    assert e.all().item() and above.any(0).tolist() == [False, False, True]
    small = lt.tensor([[1, 2], [3, 4]]).expand(3, 2, 2)
    expected = np.broadcast_to(np.array([[1, 2], [3, 4]]), (3, 2, 2))
    for dim in (None, 0, (0, 2), 1):
        for name in ("sum", "prod", "mean", "max", "min", "var", "std"):
            got = getattr(small, name)(dim=dim, keepdim=True).numpy()
            want = getattr(np, name)(expected, axis=dim, keepdims=True)
            assert got.shape == want.shape and np.allclose(got, want), (name, dim)


def test_argument_mistakes_say_what_was_expected() -> None:
    t = lt.arange(6)
    with pytest.raises(TypeError, match=r"an axis must be an int, got 1.5 \(float\)"):
        t.squeeze(1.5)
    with pytest.raises(TypeError, match=r"split takes an int size or a sequence of int sizes, got 2\.5"):
        t.split(2.5)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"a position of a tensor of shape \(6,\) is a sequence of ints, got 0.5"
    ):
        t.explain(0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"chunk takes an int number of chunks, got 2.5 \(float\)"):
        t.chunk(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"negative dimensions are not allowed: shape \(-1,\)"):
        lt.zeros(-1)
    with pytest.raises(ValueError, match=r"the step must not be zero \(start 0, stop 10\)"):
        lt.arange(0, 10, 0)
    with pytest.raises(ValueError, match=r"value of shape \(1, 2\) into tensor of shape \(3,\)"):
        lt.zeros(3)[:] = [[1, 2]]


def test_the_printer_never_cuts_a_number_or_a_string() -> None:
    text = lt.to_string(lt.tensor([123456, 7, 99999999]), linewidth=4)
    assert "123456" in text.split("\n") or " 123456" in text  # whole, however narrow the line
    assert "99999999" in text
    wide = lt.to_string(lt.tensor(np.array(["a" * 50, "b" * 60])), linewidth=30)
    assert "b" * 60 in wide and "a" * 50 in wide


def test_control_characters_in_data_are_shown_escaped() -> None:
    values = np.array(["\x1b[2J\x1b[Hhi", "ok\x07", "\x1b]0;title\x07", "two\nlines"])
    text = lt.to_string(lt.tensor(values))
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J\\x1b[Hhi" in text and "\\x1b]0;title\\x07" in text and "two\\nlines" in text


def test_statistics_keep_four_significant_digits_at_any_precision() -> None:
    header = lt.to_string(lt.tensor([89.5, 90.0, 89.0]), precision=0).splitlines()[1]
    assert "mean 89.5" in header and "std 0.4082" in header


def test_separators_text_bigger_than_memory_refuses_at_once() -> None:
    with pytest.raises(MemoryError, match=r"separators text of shape \(100000000, 10\) needs"):
        lt.to_string(lt.zeros(10).expand(10**8, 10), style="separators")


def test_huge_steps_and_indices_are_handled_as_numpy_would_or_named() -> None:
    t = lt.arange(60).reshape(4, 3, 5)
    assert t[:: 4 * 10**17].tolist() == np.arange(60).reshape(4, 3, 5)[:: 4 * 10**17].tolist()
    for key in (10**19, (1, 10**19, 0)):
        with pytest.raises(IndexError, match="index 10000000000000000000 is out of bounds"):
            t[key]
