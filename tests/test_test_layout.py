"""The tests mirror the package, and a test that reaches past the public API says so.

- Every test file sits in a folder named for what it tests: a floor of the package (`tests/ground/`,
  ..., `tests/nn/`, a subfolder only where the floor has that module or subpackage, as
  `tests/tensors/views/`), `tests/top/` for the top-level modules (the command line, `linalg`, `fft`,
  `optim`, `compat`, `tenxor`), `tests/examples/` or `tests/scripts/`. Only the repository-wide tests
  (`REPOSITORY_WIDE`) sit in `tests/` itself, beside the support modules that conftest puts on the path.
- Test files have unique names (pytest imports each by its bare name) and the subfolders hold only
  test files.
- A test file that imports a module of lazytensor other than the public ones (`PUBLIC`), by `import`,
  `from ... import`, `importlib.import_module` or an attribute such as `lt.engine`, has a paragraph
  in its module docstring starting "Reaches into" that names each floor it reaches
  (`lazytensor.engine`, ...) and says why. Private attributes of public objects (`t._lazy_values`)
  are not looked for.
"""

from __future__ import annotations

import ast
import collections
import pathlib

import lazytensor as lt

TESTS = pathlib.Path(__file__).resolve().parent
PACKAGE = pathlib.Path(lt.__file__).resolve().parent
PUBLIC = {
    "lazytensor",
    "lazytensor.nn",
    "lazytensor.optim",
    "lazytensor.linalg",
    "lazytensor.fft",
    "lazytensor.tenxor",
}
FLOORS = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
OTHER_FOLDERS = {"top", "examples", "scripts"}
REPOSITORY_WIDE = {"test_house.py", "test_docs.py", "test_test_layout.py"}
REACHES = "Reaches into"


def _test_files() -> list[pathlib.Path]:
    return sorted(TESTS.rglob("test_*.py"))


_MODULES = {
    ".".join(("lazytensor", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py")
}


def _modules_named(node: ast.AST, aliases: set[str]) -> list[str]:
    """The dotted lazytensor modules one node imports or reads (`lt.engine` read as `lazytensor.engine`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        inner = [f"{node.module}.{alias.name}" for alias in node.names]
        return [name if name in _MODULES else node.module for name in inner]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "import_module"
    ):
        first = node.args[0] if node.args else None
        return [first.value] if isinstance(first, ast.Constant) and isinstance(first.value, str) else []
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
        return [f"lazytensor.{node.attr}"] if f"lazytensor.{node.attr}" in _MODULES else []
    return []


def reached_floors(source: str) -> set[str]:
    """`lazytensor.<floor or top-level module>` for each module past the public API that `source` reaches."""
    tree = ast.parse(source)
    aliases = {"lazytensor"} | {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "lazytensor" and alias.asname
    }
    return {
        ".".join(name.split(".")[:2])
        for node in ast.walk(tree)
        for name in _modules_named(node, aliases)
        if name.startswith("lazytensor.") and name not in PUBLIC
    }


def test_every_test_file_sits_in_the_folder_of_what_it_tests() -> None:
    misplaced = []
    for path in _test_files():
        folders = path.relative_to(TESTS).parts[:-1]
        if not folders:
            if path.name not in REPOSITORY_WIDE:
                misplaced.append(f"{path.name}: in tests/ itself, which holds only {sorted(REPOSITORY_WIDE)}")
            continue
        if folders[0] in OTHER_FOLDERS:
            if len(folders) > 1:
                misplaced.append(f"{path.relative_to(TESTS)}: tests/{folders[0]}/ has no subfolders")
            continue
        if folders[0] not in FLOORS:
            misplaced.append(
                f"{path.relative_to(TESTS)}: {folders[0]} is no floor of the package {sorted(FLOORS)}"
            )
            continue
        mirrored = PACKAGE.joinpath(*folders)
        if not (mirrored.is_dir() or mirrored.with_suffix(".py").is_file()):
            misplaced.append(f"{path.relative_to(TESTS)}: the package has no {'/'.join(folders)}")
    assert misplaced == []


def test_test_files_have_unique_names_and_the_subfolders_hold_only_tests() -> None:
    names = collections.Counter(path.name for path in _test_files())
    assert [name for name, count in names.items() if count > 1] == []
    others = [
        path for path in TESTS.rglob("*.py") if path.parent != TESTS and not path.name.startswith("test_")
    ]
    assert [str(path.relative_to(TESTS)) for path in others] == []  # support modules stay in tests/


def test_a_test_that_reaches_past_the_public_api_says_where_and_why() -> None:
    unsaid = {}
    for path in _test_files():
        source = path.read_text(encoding="utf-8")
        floors = reached_floors(source)
        if not floors:
            continue
        docstring = ast.get_docstring(ast.parse(source)) or ""
        said = " ".join(part for part in docstring.split("\n\n") if part.startswith(REACHES))
        missing = sorted(floor for floor in floors if floor not in said)
        if missing:
            unsaid[str(path.relative_to(TESTS))] = missing
    assert unsaid == {}, f'say "{REACHES} `lazytensor.<floor>`: ... because ..." in the module docstring'


def test_the_check_sees_every_way_in() -> None:
    """Each way a test can reach a module past the public API is seen; the public modules are not."""
    assert reached_floors("import lazytensor.cli") == {"lazytensor.cli"}
    assert reached_floors("import lazytensor.api.files as ltio") == {"lazytensor.api"}
    assert reached_floors("from lazytensor import printer") == {"lazytensor.printer"}
    assert reached_floors("from lazytensor.nn.message_passing import X") == {"lazytensor.nn"}
    assert reached_floors('importlib.import_module("lazytensor.tensors.tensor")') == {"lazytensor.tensors"}
    assert reached_floors("import lazytensor as lt\nlt.engine.optable.ADD") == {"lazytensor.engine"}
    assert reached_floors("from lazytensor.nn import functional") == {"lazytensor.nn"}
    public = (
        "import lazytensor as lt\nfrom lazytensor import optim, fft\nimport lazytensor.linalg\nlt.nn.Edges"
    )
    assert reached_floors(public) == set()
