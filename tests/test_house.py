"""The house: floors that imports climb down, a new wrapper kind is one class, and stacks may be of any depth.

- Each folder of the package is a floor (`FLOORS`), `docs/concepts.md` maps every module to it, and
  an import points down a floor or across, never up; no module imports one that imports it back,
  and no module of ours is imported inside a function.
- `FlippedTensor`, defined here and nowhere in the package, reverses one axis: it gives one
  map (`translate_batch`) and its layout (one `Layout.select`), and reading, writing,
  printing, `explain()` and backward all work through it with no change elsewhere.
- Stacks of 10,000 layers (alternating `.T` and `[::1]`; and list-index views that do not
  fuse) build, fuse, read, write, print, explain and differentiate without recursion.

Reaches into `lazytensor.tensors.views` for `View`, the base class a new kind of wrapper extends.
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys
from typing import Any

import attrs
import numpy as np
import pytest

import lazytensor as lt
from lazytensor.tensors.views import View

PACKAGE = pathlib.Path(lt.__file__).parent
DEPTH = 10_000


# -- the floors --------------------------------------------------------------------------------

FLOORS = (
    "ground",
    "kernels",
    "engine",
    "printer",
    "tensors",
    "bases",
    "api",
    "array_api",
    "nn",
    "browse",
    "top",
)
"""The floors from the bottom up: a module may import its own floor's modules and those below."""

FLOOR_MAP = PACKAGE.parent / "docs" / "concepts.md"
_TREE_LINE = re.compile(
    r"^(?P<indent>(?:[│ ] {3}|    )*)(?:[├└]── )?(?P<name>[\w.]+/?)(?:\s{2,}(?P<rest>.*))?$"
)


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_MODULES = {_module_name(path) for path in PACKAGE.rglob("*.py")}


_FOLDERS = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}


def _floor(module: str) -> str:
    """A module's floor: the folder it sits in under the package, or the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in _FOLDERS else "top"


def _imports(tree: ast.AST, module: str) -> tuple[set[str], list[int]]:
    """The modules of ours this one imports at run time, as `imports.py` counts them (`from a.b import
    c` imports `a.b` and `a.b.c`), and the lines of imports made inside functions."""
    top: set[str] = set()
    inside: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom) and "lazytensor" in ast.unparse(inner):
                    inside.append(inner.lineno)
    for node in tree.body if isinstance(tree, ast.Module) else []:
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lazytensor"):
            names = [str(node.module)] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name.startswith("lazytensor")]
        for name in names:
            while name and name not in _MODULES:
                name = name.rpartition(".")[0]
            if name and name not in (module, "lazytensor"):
                top.add(name)
    return top, inside


def _graph() -> tuple[dict[str, set[str]], dict[str, list[int]]]:
    graph, inside = {}, {}
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        graph[module], inside[module] = _imports(ast.parse(path.read_text(encoding="utf-8")), module)
    return graph, inside


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def _floor_map() -> dict[str, str]:
    """The tree of `docs/concepts.md` (the block after `<!-- floor-map -->`): each module it names, as a
    dotted name, with the floor its line declares (folders) or an empty string (modules)."""
    text = FLOOR_MAP.read_text(encoding="utf-8")
    block = text.split("<!-- floor-map -->", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    found: dict[str, str] = {}
    folders: list[str] = []
    for line in block.splitlines():
        match = _TREE_LINE.match(line)
        assert match is not None, f"a line of the floor map is not a tree line: {line!r}"
        depth = len(match["indent"]) // 4 + (1 if "── " in line else 0)
        name = match["name"]
        folders = folders[:depth]
        words = (match["rest"] or "").split()
        floor = words[0] if words and words[0] in FLOORS else ""
        if name.endswith("/"):
            folders.append(name.removesuffix("/"))
            module = ".".join(folders)
        else:
            module = ".".join([*folders, name.removesuffix(".py")])
        assert module not in found, f"{module} is in the floor map twice"
        found[module] = floor
    return found


def test_the_floor_map_names_every_module_and_only_those() -> None:
    mapped = _floor_map()
    assert sorted(set(mapped) - _MODULES) == [], "the floor map names modules that do not exist"
    assert sorted(_MODULES - set(mapped)) == [], "modules missing from the floor map in docs/concepts.md"


def test_every_folder_of_the_package_is_a_floor_and_the_map_says_which() -> None:
    mapped = _floor_map()
    assert mapped["lazytensor"] == "top"
    for folder in sorted(_FOLDERS):  # a subfolder (tensors/views) stands on its folder's floor
        assert folder in FLOORS, f"the folder {folder} is not a floor"
        assert mapped[f"lazytensor.{folder}"] == folder, f"the floor map gives {folder}/ another floor"


def test_imports_point_down_a_floor_or_across_never_up() -> None:
    graph, _ = _graph()
    rank = {floor: i for i, floor in enumerate(FLOORS)}
    upward = [
        f"{module} ({_floor(module)}) imports {target} ({_floor(target)})"
        for module, targets in graph.items()
        for target in targets
        if rank[_floor(target)] > rank[_floor(module)]
    ]
    assert upward == []


def test_no_module_imports_one_that_imports_it_back_nor_ours_inside_a_function() -> None:
    graph, inside = _graph()
    assert _cycles(graph) == []
    assert {module: lines for module, lines in inside.items() if lines} == {}


def test_the_tensors_floor_binds_every_primitive_its_surface_names() -> None:
    """The primitives `Surface` declares for the type checker are real attributes of `AbstractTensor`."""
    source = (PACKAGE / "tensors" / "surface" / "primitives.py").read_text(encoding="utf-8")
    declared = set(re.findall(r"^        (?:def )?(_\w+)\b", source, flags=re.MULTILINE))
    assert {"_apply", "_views", "_check_in_place", "_whole_sum"} <= declared
    for name in sorted(declared):
        assert name in vars(lt.AbstractTensor) or any(name in vars(c) for c in lt.AbstractTensor.__mro__), (
            name
        )


def test_readers_and_kernels_never_import_the_tensor_classes_at_run_time() -> None:
    graph, _ = _graph()
    classes = {
        module
        for module in _MODULES
        if module.startswith(("lazytensor.tensors.tensor", "lazytensor.tensors.views"))
    }
    lower = ["lazytensor.tensors.evaluate", "lazytensor.array_api.datatypes"]
    for floor in ("ground", "kernels", "engine", "printer", "tensors.surface"):
        lower += [module for module in _MODULES if module.startswith(f"lazytensor.{floor}")]
    for name in lower:
        assert not graph[name] & classes, name


def test_the_protocol_is_a_ground_floor_module_the_readers_use() -> None:
    """`protocol.py` imports only the layout and position types; the readers type tensors with it."""
    graph, _ = _graph()
    assert graph["lazytensor.ground.protocol"] <= {"lazytensor.ground.layout", "lazytensor.ground.positions"}
    for name in [
        "tensors.evaluate",
        "engine.autograd",
        "printer.explain",
        "printer.shown",
        "printer.tensorprint",
    ]:
        assert "lazytensor.ground.protocol" in graph[f"lazytensor.{name}"], name


# -- a new kind of wrapper, defined only here --------------------------------------------------


@attrs.frozen(eq=False, repr=False, slots=False)
class FlippedTensor(View):
    """One axis reversed: position `i` along `axis` is `size - 1 - i` below."""

    axis: int

    @property
    def shape(self) -> tuple[int, ...]:
        return self.wrapped.shape

    def translate_batch(self, index_arrays: tuple[Any, ...]) -> tuple[Any, ...]:
        below = list(index_arrays)
        below[self.axis] = self.shape[self.axis] - 1 - index_arrays[self.axis]
        return tuple(below)

    @property
    def layout(self) -> lt.Layout | None:
        below = self.wrapped.layout
        if below is None:
            return None
        key = [slice(None)] * len(self.shape)
        key[self.axis] = slice(None, None, -1)
        return below.select(key)

    def numpy_equivalent(self, below: Any) -> Any:
        return np.flip(below, self.axis)

    def describe(self) -> str:
        return f"axis {self.axis} reversed"

    def names_of(self, names_below: tuple[str | None, ...]) -> tuple[str | None, ...]:
        return names_below


def test_a_new_wrapper_reads_writes_prints_explains_and_differentiates() -> None:
    base = lt.arange(12.0).reshape(3, 4)
    flipped = FlippedTensor(base, 1)
    expected = np.arange(12.0).reshape(3, 4)[:, ::-1]
    assert flipped.tolist() == expected.tolist()
    assert flipped[2, 0] == expected[2, 0] and flipped.get((0, -1)) == expected[0, -1]
    assert flipped.T.reshape(-1)[[0, 5]].tolist() == expected.T.reshape(-1)[[0, 5]].tolist()

    flipped[0, 0] = 100.0  # write through: lands on the last column of the base
    flipped.T[[1], 2] = -1.0
    assert base[0, 3] == 100.0 and base[2, 2] == -1.0

    text = repr(flipped.T)
    assert "layers Transposed ∘ Flipped ∘ Reshaped ∘ Storage" in text
    tree, trace = str(flipped.explain()), str(flipped.explain((0, 1)))
    assert "Flipped (3, 4) · axis 1 reversed" in tree
    assert "Flipped   (3, 4)  (0, 1)    axis 1 reversed" in trace
    assert "Reshaped  (3, 4)  (0, 2)" in trace

    w = lt.arange(6.0).reshape(2, 3).contiguous()
    w = lt.tensor(w.numpy(), requires_grad=True)
    weights = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (FlippedTensor(w, 1).reshape(3, 2).T * weights.reshape(3, 2).T).sum().backward()
    assert w.grad is not None and w.grad.tolist() == weights[:, ::-1].tolist()
    assert FlippedTensor(base.rename("row", "col"), 0).T.names == ("col", "row")


def test_a_new_wrapper_without_a_layout_reads_through_both_paths() -> None:
    base = lt.arange(24).reshape(4, 6)
    unfused = FlippedTensor(base.T.reshape(24), 0)  # a reshape that does not fuse, then the flip
    expected = np.arange(24).reshape(4, 6).T.reshape(24)[::-1]
    assert unfused.layout is None
    assert unfused.tolist() == expected.tolist()  # materialise: numpy's flip of the reshape's copy
    assert unfused[[3, 1]].tolist() == expected[[3, 1]].tolist()
    assert [unfused[i] for i in (0, 7, 23)] == [expected[i] for i in (0, 7, 23)]


# -- stacks of any depth -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _small_recursion_limit() -> Any:
    """Any walk that recursed once per layer would fail at this depth."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(2_000)
    yield
    sys.setrecursionlimit(old)


def _alternating(base: lt.AbstractTensor, depth: int) -> lt.AbstractTensor:
    t = base
    for i in range(depth):
        t = t.T if i % 2 == 0 else t[::1]
    return t


def test_a_10000_layer_fused_stack_works_everywhere() -> None:
    base = lt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    t = _alternating(base, DEPTH)
    assert len(t.layers) == DEPTH + 1 and t.layers[-1] is base
    assert t.shape == (2, 3) and t.layout == lt.Layout((2, 3), (3, 1), 0)
    assert t.storage is base.storage and t.base is base
    assert t.get((1, 2)) == 5.0 and t.locate((1, -1)) == 5 and t[1, 0] == 3.0
    assert t.numpy().tolist() == np.arange(6.0).reshape(2, 3).tolist()
    assert "… 9,993 more" in repr(t)
    assert "more layers" in str(t.explain()) and "more layers" in str(t.explain((1, 2)))
    (t * lt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert base.grad is not None and base.grad.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    with lt.no_grad():
        t[0, 1] = -1.0
        t.set((1, 2), -2.0)
    assert base.tolist() == [[0.0, -1.0, 2.0], [3.0, 4.0, -2.0]]


def _unfused(base: lt.AbstractTensor, depth: int) -> lt.AbstractTensor:
    """List-index views that are not progressions, alternating with transposes: nothing fuses."""
    t = base
    for i in range(depth):
        t = t.T if i % 2 == 0 else t[[2, 0, 1]]
    return t


def test_a_10000_layer_stack_that_never_fuses_works_everywhere() -> None:
    values = np.arange(9.0).reshape(3, 3)
    base = lt.tensor(values, requires_grad=True)
    t = _unfused(base, DEPTH)
    expected = values
    for i in range(DEPTH):
        expected = expected.T if i % 2 == 0 else expected[[2, 0, 1]]
    assert t.layout is None and len(t.layers) == DEPTH + 1
    assert t.numpy().tolist() == expected.tolist()
    assert t[2, 1] == expected[2, 1] and t.get((0, 2)) == expected[0, 2]
    assert t.storage[t.locate((1, 1))] == expected[1, 1]
    assert "more layers" in str(t.explain((2, 2))) and "… 9,993 more" in repr(t)
    weights = np.arange(1.0, 10.0).reshape(3, 3)
    (t * weights).sum().backward()
    grad = np.zeros((3, 3))
    np.add.at(grad, np.unravel_index(expected.astype(int), (3, 3)), weights)
    assert base.grad is not None and base.grad.tolist() == grad.tolist()
    with lt.no_grad():
        t[0, 0] = -5.0
    flat = base.numpy().reshape(-1)
    assert flat[int(expected[0, 0])] == -5.0 and (flat == -5.0).sum() == 1
