"""The operator table registers itself, and every entry reaches the doors it should.

`TABLE`, `UFUNCS`, numpy's names for in-place messages, PyTorch's words for `grad_fn` names and the
array API's elementwise functions (`lt.sin`, ...) are read off the entries of
`lazytensor/engine/optable.py`: adding an elementwise operation is one entry there (docs/extending.md).
These tests check what is read off against the table, and prove the claim on a copy of the package
whose optable.py has one entry more (`cbrt`, which lazytensor does not have): imported in a child
process, the copy has `lt.cbrt`, `np.cbrt(t)` through the entry with its gradient, and the doctest;
and the tests that walk the table say what is still to write (the line mypy reads, the gradient's
recipe), so nothing is forgotten silently.

Reaches into `lazytensor.engine` (the table), `lazytensor.array_api` (`elementwise.__annotations__`
and `_functions`) and `lazytensor.tensors` (the `apply` numpy's dispatch and the made functions
call), because how the doors are derived is what they check.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import pytest

import lazytensor as lt
from lazytensor.array_api import elementwise
from lazytensor.engine import optable
from lazytensor.engine.chunkforms import blockwise
from lazytensor.tensors import dispatch

ROOT = Path(__file__).resolve().parents[2]
NAMED = {entry.api.name: entry for entry in optable.TABLE.values() if entry.api is not None}
"""The entries that carry an `Api`, by the name of their function."""
SIGNATURES = {
    "same": "(x: 'Operand', /) -> 'StorageTensor'",
    "broadcast": "(x1: 'Operand', x2: 'Operand', /) -> 'StorageTensor'",
}
DECLARED = {"same": "_Unary", "broadcast": "_Binary"}


# -- the array API's elementwise functions ----------------------------------------------------------


def test_every_function_made_from_the_table_is_declared_for_mypy() -> None:
    """elementwise.py's one-line declarations (all mypy knows of `lt.sin`) are exactly the table's."""
    wanted = {name: DECLARED[entry.shapes] for name, entry in NAMED.items()}
    declared = dict(elementwise.__annotations__)
    missing = sorted(f"{name}: {kind}" for name, kind in wanted.items() if declared.get(name) != kind)
    stale = sorted(f"{name}: {kind}" for name, kind in declared.items() if wanted.get(name) != kind)
    assert not missing and not stale, (
        f"lazytensor/array_api/elementwise.py declares the functions mypy knows: add {missing}, "
        f"remove {stale}"
    )


@pytest.mark.parametrize("name", sorted(NAMED))
def test_every_entry_that_names_a_function_is_that_function_of_lt(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = NAMED[name]
    function = getattr(lt, name)
    assert name in lt.__all__
    assert (function.__name__, function.__qualname__, function.__module__) == (
        name,
        name,
        elementwise.__name__,
    )
    assert str(inspect.signature(function)) == SIGNATURES[entry.shapes]
    calls: list[tuple[optable.Op, int]] = []
    monkeypatch.setattr(elementwise, "apply", lambda entry, *operands: calls.append((entry, len(operands))))
    operands = (1.0,) if entry.shapes == "same" else (1.0, 2.0)
    function(*operands)
    assert calls == [(entry, len(operands))]


def test_every_made_function_has_the_doctest_of_its_entry_and_it_passes() -> None:
    """pytest's `--doctest-modules` collects what doctest's finder finds in the module (a function
    whose globals were another module's would be skipped silently); each example runs."""
    found = {test.name.rsplit(".", 1)[1]: test for test in doctest.DocTestFinder().find(elementwise)}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for name, entry in NAMED.items():
        assert entry.api is not None
        test = found[name]
        assert [example.source for example in test.examples] == [
            "import lazytensor as lt\n",
            f"{entry.api.example}\n",
        ]
        assert test.examples[-1].want == f"{entry.api.shows}\n"
        assert runner.run(test, out=lambda text: None).failed == 0, name
    assert inspect.getdoc(lt.sin) == (
        "The sine of each element (radians).\n\n>>> import lazytensor as lt\n"
        ">>> lt.sin(lt.tensor([0.0])).tolist()\n[0.0]"
    )


def test_lt_names_each_of_its_functions_once() -> None:
    """A name the table gives that another module of the namespace also exports would be one of the
    two, silently: `lt.__all__` would then hold it twice."""
    assert len(lt.__all__) == len(set(lt.__all__))


def test_the_two_functions_written_by_hand_keep_their_keywords() -> None:
    assert str(inspect.signature(lt.clip)) == (
        "(x: 'Operand', /, min: 'Operand' = None, max: 'Operand' = None) -> 'StorageTensor'"
    )
    assert str(inspect.signature(lt.round)) == "(x: 'Operand', /) -> 'StorageTensor'"
    assert {"clip", "round"} <= set(lt.__all__) and not {"clip", "round"} & set(NAMED)


def test_a_function_name_given_twice_or_already_taken_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^lt\.negative is named twice: by the entry 'neg', and already by"):
        elementwise._functions([optable.NEG, optable.NEG], taken=set())
    clipping = attrs.evolve(optable.NEG, api=optable.Api("clip", "Clipped.", "lt.clip(1)", "1"))
    with pytest.raises(ValueError, match=r"^lt\.clip is named twice: by the entry 'neg', and already by"):
        elementwise._functions([clipping], taken={"clip"})
    assert list(elementwise._functions([optable.SUM, optable.NEG], taken={"clip"})) == ["negative"]


def test_an_entry_without_an_api_makes_no_function() -> None:
    with pytest.raises(ValueError, match=r"^the entry 'sum' names no function of the array API"):
        elementwise._made(optable.SUM)


def test_an_api_is_a_plain_name_and_lines_of_text() -> None:
    with pytest.raises(ValueError, match=r"^Api\.summary must be one line of text, got 'two\\nlines'$"):
        optable.Api("twice", "two\nlines", "lt.twice(1)", "2")
    with pytest.raises(ValueError, match=r"^Api\.shows must be one line of text, got ' '$"):
        optable.Api("twice", "Doubled.", "lt.twice(1)", " ")
    with pytest.raises(ValueError, match=r"'name' must match regex"):
        optable.Api("_twice", "Doubled.", "lt._twice(1)", "2")


def test_only_an_elementwise_entry_can_be_a_function_of_the_array_api() -> None:
    api = optable.Api("total", "The sum.", "lt.total(1)", "1")
    with pytest.raises(
        ValueError,
        match=r"^total: only an elementwise entry \(shapes same or broadcast\) can be lt\.total, "
        r"not one whose shapes are 'reduce'$",
    ):
        optable.Op("total", np.sum, None, "reduce", chunked=blockwise(), api=api)


# -- numpy's ufuncs, numpy's names and PyTorch's words ----------------------------------------------


def test_ufuncs_are_the_entries_kernels_and_the_aliases_only_those_the_table_cannot_read() -> None:
    derived = {entry.ufunc: entry for entry in optable.TABLE.values() if entry.ufunc is not None}
    assert {**derived, **optable.UFUNC_ALIASES} == optable.UFUNCS
    assert all(entry.ufunc is None for entry in optable.UFUNC_ALIASES.values())
    assert all(entry is optable.TABLE[entry.name] for entry in optable.UFUNC_ALIASES.values())
    assert {entry.name: ufunc.__name__ for ufunc, entry in optable.UFUNCS.items()} == optable.NUMPY_NAMES


def _operand(ufunc: np.ufunc) -> lt.StorageTensor:
    """Values the ufunc takes: floats when it has a float64 loop, else integers (bitwise, shifts)."""
    floats = any(types.startswith("d" * ufunc.nin) for types in ufunc.types)
    return lt.tensor([[1.0, 2.0], [3.0, 4.0]] if floats else [[1, 2], [3, 4]])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the operands are outside some functions' domains
@pytest.mark.parametrize("ufunc", sorted(optable.UFUNCS, key=lambda u: u.__name__), ids=lambda u: u.__name__)
def test_numpy_calling_a_ufunc_on_a_tensor_applies_its_entry(
    ufunc: np.ufunc, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied: list[optable.Op] = []
    real = dispatch.apply

    def spy(entry: optable.Op, *operands: Any, **params: Any) -> Any:
        applied.append(entry)
        return real(entry, *operands, **params)

    monkeypatch.setattr(dispatch, "apply", spy)
    result = ufunc(*[_operand(ufunc)] * ufunc.nin)
    assert isinstance(result, lt.AbstractTensor)
    assert applied == [optable.UFUNCS[ufunc]]


def test_a_ufunc_that_would_be_two_entries_is_refused() -> None:
    minus = attrs.evolve(optable.NEG, name="minus")
    with pytest.raises(ValueError, match=r"^np\.negative would be two entries: neg and minus$"):
        optable.ufuncs_of({"neg": optable.NEG, "minus": minus}, {})
    with pytest.raises(ValueError, match=r"^np\.negative would be two entries: neg and exp$"):
        optable.ufuncs_of({"neg": optable.NEG}, {np.negative: optable.EXP})


def test_two_entries_of_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match=r"^two entries of the table are named 'neg'$"):
        optable.entries_of({"NEG": optable.NEG, "OTHER_NEG": attrs.evolve(optable.NEG)})
    assert optable.entries_of({"NEG": optable.NEG, "SAME": optable.NEG}) == {"neg": optable.NEG}


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda w: w / 2, "DivBackward0"),
        (lambda w: w**2, "PowBackward0"),
        (lambda w: lt.atan2(w, w), "Atan2Backward0"),
        (lambda w: w.log_softmax(0), "LogSoftmaxBackward0"),
    ],
)
def test_grad_fn_says_pytorchs_word_for_the_entry(make: Callable[[Any], Any], word: str) -> None:
    w = lt.tensor([1.0, 2.0], requires_grad=True)
    assert make(w).grad_fn.name == word


# -- one entry more: the copy of the package that proves it ----------------------------------------

CBRT = """
CBRT = _ufunc_op(
    "cbrt",
    np.cbrt,
    lambda s, g: g / (3 * s.output * s.output),
    api=Api(
        "cbrt", "The cube root of each element.", "lt.cbrt(lt.tensor([8.0, -1.0])).tolist()", "[2.0, -1.0]"
    ),
)

"""
"""The entry a developer would write for numpy's cube root: a kernel, a gradient, an array API name."""

BEFORE = "# -- the table registers itself"

CHILD = """
import doctest, inspect, sys
import numpy as np
import lazytensor as lt
from lazytensor.array_api import elementwise
from lazytensor.engine import optable
import test_gradcheck, test_table_doors

assert lt.__file__.startswith(sys.argv[1]), lt.__file__  # the copy, not the package under test
entry = optable.TABLE["cbrt"]
x = lt.tensor([8.0, -1.0], requires_grad=True)
y = np.cbrt(x)
y.sum().backward()
found = {
    "lt": ("cbrt" in lt.__all__, lt.cbrt.__name__, lt.cbrt.__qualname__, lt.cbrt.__module__),
    "signature": str(inspect.signature(lt.cbrt)),
    "lt.cbrt": lt.cbrt(lt.tensor([8.0])).tolist(),
    "np.cbrt": (optable.UFUNCS[np.cbrt] is entry, y.tolist(), y.grad_fn.name, x.grad.tolist()),
    "numpy's name": optable.NUMPY_NAMES["cbrt"],
    "doctest": [
        tuple(doctest.DocTestRunner().run(test))
        for test in doctest.DocTestFinder().find(elementwise)
        if test.name == "lazytensor.array_api.elementwise.cbrt"
    ],
}
for check in (
    test_table_doors.test_every_function_made_from_the_table_is_declared_for_mypy,
    test_gradcheck.test_every_differentiable_entry_has_a_recipe,
):
    try:
        check()
    except AssertionError as error:
        found[check.__name__] = str(error) or "failed"
print(repr(found))
"""


def test_one_entry_more_in_the_table_reaches_every_door(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "lazytensor", tmp_path / "lazytensor", ignore=shutil.ignore_patterns("__pycache__")
    )
    source = tmp_path / "lazytensor" / "engine" / "optable.py"
    text = source.read_text(encoding="utf-8")
    at = text.index(BEFORE)
    source.write_text(text[:at] + CBRT.lstrip("\n") + text[at:], encoding="utf-8")
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "tests"), str(ROOT / "tests" / "engine")]),
    }
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    found = ast.literal_eval(child.stdout.splitlines()[-1])
    np_cbrt = found.pop("np.cbrt")
    assert np_cbrt[:3] == (True, [2.0, -1.0], "CbrtBackward0")
    assert np_cbrt[3] == pytest.approx([1 / 12, 1 / 3])
    assert found == {
        "lt": (True, "cbrt", "cbrt", "lazytensor.array_api.elementwise"),
        "signature": SIGNATURES["same"],
        "lt.cbrt": [2.0],
        "numpy's name": "cbrt",
        "doctest": [(0, 2)],
        "test_every_function_made_from_the_table_is_declared_for_mypy": (
            "lazytensor/array_api/elementwise.py declares the functions mypy knows: add ['cbrt: _Unary'], "
            "remove []"
        ),
        "test_every_differentiable_entry_has_a_recipe": "failed",
    }
