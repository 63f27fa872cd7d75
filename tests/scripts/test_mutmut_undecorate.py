"""`scripts/mutmut_undecorate.py`, which makes decorated functions plain in a scratch copy so that
mutmut 3 mutates them (docs/testing.md): the rewritten source behaves as the original, names what
mutmut will call its mutants, and leaves nothing decorated that mutmut would skip."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from repo_paths import ROOT

import lazytensor

SCRIPT = ROOT / "scripts" / "mutmut_undecorate.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutmut_undecorate", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # attrs resolves the module of the classes it makes
    spec.loader.exec_module(module)
    return module


SAMPLE = '''
import contextlib
import functools

REGISTRY = {}


def registers(*names):
    def register(f):
        for name in names:
            REGISTRY[name] = f
        return f
    return register


class Field:
    def __init__(self):
        self.checks = []

    def validator(self, f):
        self.checks.append(f)
        return f


class Box:
    size = Field()

    def __init__(self, value):
        self._value = value

    @property
    def value(self):
        """The value."""
        return self._value * 2

    @value.setter
    def value(self, new):
        self._value = new + 1

    @size.validator
    def _check_size(self, value):
        return value >= 0

    @staticmethod
    def plain(x):
        return x + 1


@registers(
    "double",
    "twice",
)
def double(x):
    return 2 * x


def shout(f):
    @functools.wraps(f)
    def loud(*args):
        return f(*args).upper()
    return loud


@shout
def greet(name):
    """Say hello."""
    return "hello " + name


CALLS = []


@functools.cache
def expensive(n):
    CALLS.append(n)
    return n * n


@contextlib.contextmanager
def bracket(log):
    log.append("(")
    yield len(log)
    log.append(")")
'''


def _run(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<sample>", "exec"), namespace)
    return namespace


def _behaviour(ns: dict[str, Any]) -> list[Any]:
    box = ns["Box"](3)
    seen: list[Any] = [box.value]
    box.value = 10
    seen += [box.value, ns["Box"].value.__doc__, ns["Box"].plain(1), ns["Box"].size.checks[0](box, -1)]
    seen += [sorted(ns["REGISTRY"]), ns["REGISTRY"]["twice"](4), ns["greet"]("ann"), ns["greet"].__doc__]
    seen += [ns["greet"].__name__]
    log: list[str] = []
    with ns["bracket"](log) as depth:
        seen.append(depth)
    seen.append(log)
    return seen


@pytest.mark.usefixtures("mutant")
def test_the_rewritten_sample_behaves_as_the_original() -> None:
    text, _ = _script().rewrite(SAMPLE, "sample")
    assert _behaviour(_run(text)) == _behaviour(_run(SAMPLE))
    assert _behaviour(_run(SAMPLE))[:7] == [6, 22, "The value.", 2, False, ["double", "twice"], 8]
    assert _behaviour(_run(SAMPLE))[7:] == ["HELLO ANN", "Say hello.", "greet", 1, ["(", ")"]]


def test_nothing_is_left_decorated_but_what_mutmut_mutates_anyway() -> None:
    text, _ = _script().rewrite(SAMPLE, "sample")
    decorated = [
        [ast.unparse(d) for d in node.decorator_list]
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef) and node.decorator_list
    ]
    assert decorated == [["staticmethod"]]
    assert "def _value__setter(self, new):" in text  # the setter renamed: the class keeps both


def test_the_patterns_name_the_functions_mutmut_will_mutate() -> None:
    _, patterns = _script().rewrite(SAMPLE, "sample")
    assert patterns == [
        "sample.x_bracket__mutmut_*",
        "sample.x_double__mutmut_*",
        "sample.x_expensive__mutmut_*",
        "sample.x_greet__mutmut_*",
        "sample.x_shout__mutmut_*",  # `loud`, nested in it, is mutated with it
        "sample.xǁBoxǁ_check_size__mutmut_*",
        "sample.xǁBoxǁ_value__setter__mutmut_*",
        "sample.xǁBoxǁvalue__mutmut_*",
    ]


@pytest.fixture
def mutant(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The scratch copy's cache module, over a stand-in for mutmut's trampoline whose active mutant is
    the one-element list returned (mutmut is not a dev dependency)."""
    active = ["sample.x_expensive__mutmut_1"]
    trampoline = ModuleType("mutmut.mutation.trampoline")
    trampoline.get_mutant_under_test = lambda: active[0]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mutmut.mutation.trampoline", trampoline)
    cache_module = ModuleType("lazytensor._mutmut_cache")
    exec(_script().CACHE_MODULE, cache_module.__dict__)
    monkeypatch.setitem(sys.modules, "lazytensor._mutmut_cache", cache_module)
    monkeypatch.setattr(lazytensor, "_mutmut_cache", cache_module, raising=False)
    return active


def test_a_cache_keeps_one_value_per_mutant(mutant: list[str]) -> None:
    active = mutant
    text, _ = _script().rewrite(SAMPLE, "sample")
    ns = _run(text)
    assert [ns["expensive"](3), ns["expensive"](3)] == [9, 9] and ns["CALLS"] == [3]
    active[0] = "sample.x_expensive__mutmut_2"  # another mutant: computed again, not read from the first
    assert ns["expensive"](3) == 9 and ns["CALLS"] == [3, 3]
    ns["expensive"].cache_clear()
    active[0] = "sample.x_expensive__mutmut_1"
    assert ns["expensive"](3) == 9 and ns["CALLS"] == [3, 3, 3]


def test_every_module_of_the_package_rewrites_to_python_that_compiles(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "lazytensor", copy / "lazytensor", ignore=shutil.ignore_patterns("__pycache__"))
    assert _script().main([str(copy)]) == 0
    assert (copy / "lazytensor" / "_mutmut_cache.py").is_file()
    for path in sorted(set((copy / "lazytensor").rglob("*.py")) - {copy / "lazytensor" / "_mutmut_cache.py"}):
        compile(path.read_text(), str(path), "exec")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
                names = {ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in node.decorator_list}
                stub = bool(names & {"overload", "abstractmethod"})  # nothing in it to mutate
                assert stub or names in ({"staticmethod"}, {"classmethod"}), (path, node.name)


def test_a_git_checkout_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert _script().main([str(ROOT)]) == 2
    assert "is a git checkout: run this on a scratch copy" in capsys.readouterr().err
