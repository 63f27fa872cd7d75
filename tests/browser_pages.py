"""A notebook of tensors, executed with nbclient and exported with nbconvert, and a headless Chromium
(the system's, from Debian's `chromium` package, driven by Playwright) to look at it.

Used by test_notebook.py (executing the notebook needs no browser), test_browser.py, and
`docs/make_pictures.py --screenshots`.
"""

from __future__ import annotations

import functools
import os
import pathlib
import shutil
import sys
import tempfile
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

CELLS = {
    "one_axis": "t1 = lt.tensor([0.5, -1.25, float('nan'), 0.0, float('inf')])\nt1",
    "two_axes": "t2 = lt.trandom(4, 6, seed=0)\nt2",
    "three_axes": "t3 = lt.arange(24).reshape(2, 3, 4) - 12\nt3",
    "four_axes": "t4 = lt.trandom(2, 4, 3, 5, seed=1)\nt4[0, 1, 2, 3] = float('nan')\nt4",
    "five_axes": "t5 = lt.arange(2 * 2 * 2 * 3 * 4).reshape(2, 2, 2, 3, 4)\nt5",
    "fancy_view": "fancy = lt.trandom(5, 6, 7, seed=2).T[1:, [2, 0, 4]]\nfancy",
    "heatmap": "waves = lt.from_numpy(np.sin(np.arange(48.0) / 5).reshape(6, 8))\n"
    "with lt.printoptions(heatmap=True):\n    display(waves)",
    "explain": "fancy.explain()",
    "memory_map": "np.save(PATH, np.arange(200 * 300.0).reshape(200, 300) - 100)\nm = lt.load(PATH)\nm",
    "memory_map_slice": "m[:3, :3]",
    "big": "lt.arange(10**6).reshape(100, 100, 10, 10)",
    "zero_d": "t2.sum()",
    "pair": "t2.mean(0), t2.std(0)",
    "named": "eeg = lt.trandom(2, 3, 4, 5, seed=4, names=('trial', 'channel', 'time', 'freq'))\n"
    "eeg[0, 1, 2, 3] = float('nan')\neeg",
    "named_slice": "eeg.T.print((None, 1, None, None))",
}
"""What the notebook shows: tensors of 1 to 5 axes, a fancy view, a heatmap, explain(), a memory map,
a tensor with named axes and a slice of one of its views."""

SETUP = "import numpy as np\nimport lazytensor as lt\nPATH = {path!r}"


def build_notebook(folder: pathlib.Path) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [nbformat.v4.new_code_cell(SETUP.format(path=str(folder / "mapped.npy")))]
    for name, source in CELLS.items():
        cells.append(nbformat.v4.new_code_cell(source, metadata={"tags": [name]}))
    notebook.cells = cells
    return notebook


@functools.cache
def executed_notebook() -> nbformat.NotebookNode:
    """The notebook, executed once per test session in a kernel of this Python."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="lazytensor-notebook-"))
    notebook = build_notebook(folder)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": folder}}
    )
    client.execute()
    return notebook


def outputs(name: str) -> list[Any]:
    """The outputs of the cell tagged `name`."""
    for cell in executed_notebook().cells:
        if name in cell.metadata.get("tags", []):
            return list(cell.outputs)
    raise KeyError(name)


def export_html(template: str = "lab", theme: str = "light") -> str:
    """The executed notebook as one HTML page, as nbconvert writes it (`lab` or `basic` template)."""
    exporter = HTMLExporter(template_name=template, theme=theme)
    body, _ = exporter.from_notebook_node(executed_notebook())
    return body


def chromium_path() -> str:
    """The system's Chromium: `LAZYTENSOR_CHROMIUM`, else `chromium` (Debian's) found on PATH."""
    given = os.environ.get("LAZYTENSOR_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Chromium found: install Debian's `chromium` package or set LAZYTENSOR_CHROMIUM")


def launch(playwright: Any) -> Any:
    """Headless Chromium from the system's packages (Playwright downloads no browser of its own here)."""
    return playwright.chromium.launch(
        executable_path=chromium_path(),
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--font-render-hinting=none"],
    )


def write_page(folder: pathlib.Path, name: str, text: str) -> str:
    path = folder / f"{name}.html"
    path.write_text(text, encoding="utf-8")
    return path.as_uri()


def offline(page: Any) -> None:
    """Nothing but the page's own file loads (nbconvert's pages link MathJax and RequireJS from the web)."""
    page.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )


if __name__ == "__main__":  # pragma: no cover - a manual look: write the pages and print where
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        print(write_page(out, f"lab-{theme}", export_html("lab", theme)))
