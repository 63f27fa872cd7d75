"""Rewrite the decorated functions in a scratch copy of the tree so that mutmut 3 mutates them.

mutmut 3 skips every function that has a decorator other than a lone `staticmethod` or
`classmethod`: a decorator runs when the function is defined, and a `@property` breaks the trampoline
mutmut puts in the function's place. Run on a COPY of the tree (never on the checkout), this turns

    @handles("sum")
    def _sum(doors, a): ...

into `def _sum(doors, a): ...` followed by `_sum = handles("sum")(_sum)`, which is what the decorator
line means, so mutmut sees a plain function. A def that redefines the attribute it decorates
(`@grad.setter def grad`) is renamed (`_grad__setter`) so that the class keeps both functions. A
`functools.cache` or `lru_cache` gets one cache per mutant (`_mutmut_cache.py`, written beside the
package): a value cached before a worker started must not hide the mutant under test. `overload` and
`abstractmethod` stubs stay as they are (nothing in them to mutate).

Prints the mutmut name pattern of every function it rewrote (for a nested function, of the outermost
function around it), one a line, for `mutmut run` (docs/testing.md, "Decorated functions").

usage: python scripts/mutmut_undecorate.py COPY [MODULE ...]
       (MODULE relative to COPY/lazytensor, such as `views.py` or `printer/grid.py`; default: all)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

LEFT_ALONE = frozenset({"overload", "abstractmethod"})
CACHES = frozenset({"cache", "lru_cache"})
KEYED = "__import__('lazytensor._mutmut_cache')._mutmut_cache.keyed"
SEPARATOR = "ǁ"  # mutmut's separator of class and method in a mutant's name

CACHE_MODULE = '''"""Written by scripts/mutmut_undecorate.py into a scratch copy: a cache per mutant."""

import functools
from typing import Any, Callable


def keyed(decorator: Callable[[Callable[..., Any]], Any]) -> Callable[[Callable[..., Any]], Any]:
    def wrap(f: Callable[..., Any]) -> Any:
        caches: dict[str, Any] = {}

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            from mutmut.mutation.trampoline import get_mutant_under_test

            key = get_mutant_under_test()
            if key not in caches:
                caches[key] = decorator(f)
            return caches[key](*args, **kwargs)

        call.cache_clear = lambda: [cached.cache_clear() for cached in caches.values()]
        return call

    return wrap
'''


@attrs.frozen
class Rewrite:
    """One decorated def: its decorator lines (removed), its def line (renamed when `new_name` differs
    from `name`) and the assignment inserted after its last line."""

    first_decorator_line: int
    def_line: int
    last_line: int
    indent: int
    name: str
    new_name: str
    assignment: str


def _decorator_name(node: ast.expr) -> str:
    """The last name of a decorator: `handles` of `handles("sum")`, `setter` of `grad.setter`."""
    if isinstance(node, ast.Call):
        return _decorator_name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _left_alone(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    names = [_decorator_name(d) for d in function.decorator_list]
    if not names or LEFT_ALONE.intersection(names):
        return True
    return names in (["staticmethod"], ["classmethod"])


def _new_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """`_p__setter` for a def that redefines the attribute it decorates (`@p.setter def p`)."""
    for decorator in function.decorator_list:
        if (
            isinstance(decorator, ast.Attribute)
            and isinstance(decorator.value, ast.Name)
            and decorator.value.id == function.name
        ):
            return f"_{function.name}__{decorator.attr}"
    return function.name


def _assignment(source: str, function: ast.FunctionDef | ast.AsyncFunctionDef, new_name: str) -> str:
    call = new_name
    for decorator in reversed(function.decorator_list):
        text = ast.get_source_segment(source, decorator)
        assert text is not None
        if _decorator_name(decorator) in CACHES:
            text = f"{KEYED}({text})"
        call = f"({text})({call})"
    return f"{function.name} = {call}"


def _walk(node: ast.AST, outer: tuple[ast.AST, ...] = ()) -> Iterator[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """Every node with the classes and functions around it, outermost first."""
    for child in ast.iter_child_nodes(node):
        yield child, outer
        inner = (
            (*outer, child)
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            else outer
        )
        yield from _walk(child, inner)


def _pattern(
    module: str, function: ast.FunctionDef | ast.AsyncFunctionDef, outer: tuple[ast.AST, ...], new_name: str
) -> str:
    """The mutmut names of the function mutmut will mutate for this one: itself, or the top-level
    function or method around it."""
    if not outer:
        return f"{module}.x_{new_name}__mutmut_*"
    top = outer[0]
    assert isinstance(top, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    if not isinstance(top, ast.ClassDef):
        return f"{module}.x_{top.name}__mutmut_*"
    method = outer[1] if len(outer) > 1 else None
    if method is None:
        return f"{module}.x{SEPARATOR}{top.name}{SEPARATOR}{new_name}__mutmut_*"
    assert isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef), "no class inside a class"
    return f"{module}.x{SEPARATOR}{top.name}{SEPARATOR}{method.name}__mutmut_*"


def plan(source: str, module: str) -> tuple[list[Rewrite], list[str]]:
    """The rewrites of one module's source, and the mutmut name patterns they open."""
    rewrites, patterns = [], []
    for node, outer in _walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or _left_alone(node):
            continue
        new_name = _new_name(node)
        rewrites.append(
            Rewrite(
                first_decorator_line=min(d.lineno for d in node.decorator_list),
                def_line=node.lineno,
                last_line=node.end_lineno or node.lineno,
                indent=node.col_offset,
                name=node.name,
                new_name=new_name,
                assignment=_assignment(source, node, new_name),
            )
        )
        patterns.append(_pattern(module, node, outer, new_name))
    return rewrites, sorted(set(patterns))


def rewrite(source: str, module: str) -> tuple[str, list[str]]:
    """`source` with every decorated function made plain and decorated by assignment after it.

    >>> text, patterns = rewrite("class C:\\n    @property\\n    def p(self):\\n        return 1\\n", "m")
    >>> print(text, end="")
    class C:
        def p(self):
            return 1
        p = (property)(p)
    >>> patterns
    ['m.xǁCǁp__mutmut_*']
    """
    rewrites, patterns = plan(source, module)
    removed = {line for r in rewrites for line in range(r.first_decorator_line, r.def_line)}
    renamed = {r.def_line: r for r in rewrites}
    ending: dict[int, list[Rewrite]] = {}
    for r in rewrites:
        ending.setdefault(r.last_line, []).append(r)
    out = []
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        if number in removed:
            continue
        if number in renamed and renamed[number].new_name != renamed[number].name:
            r = renamed[number]
            line = line.replace(f"def {r.name}(", f"def {r.new_name}(", 1)
        out.append(line if line.endswith("\n") else line + "\n")
        for r in sorted(ending.get(number, []), key=lambda r: -r.indent):  # the innermost first
            out.append(" " * r.indent + r.assignment + "\n")
    return "".join(out), patterns


def modules(package: Path, names: Sequence[str]) -> list[Path]:
    if names:
        return [package / name for name in names]
    return sorted(path for path in package.rglob("*.py") if path.name != "_mutmut_cache.py")


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    copy = Path(argv[0])
    package = copy / "lazytensor"
    if (copy / ".git").exists():
        print(f"{copy} is a git checkout: run this on a scratch copy", file=sys.stderr)
        return 2
    for path in modules(package, argv[1:]):
        module = ".".join(path.relative_to(copy).with_suffix("").parts).removesuffix(".__init__")
        text, patterns = rewrite(path.read_text(), module)
        path.write_text(text)
        for pattern in patterns:
            print(pattern)
    (package / "_mutmut_cache.py").write_text(CACHE_MODULE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
