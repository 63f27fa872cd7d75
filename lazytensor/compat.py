"""The module paths of lazytensor 0.1.0, kept importable for one release so that its pickles load.

A pickle names each class by module and name (`lazytensor.views.TransposedTensor`). Those flat
modules now live in floor folders: each old module path is registered as an alias of the module that
holds its classes today, so `pickle.loads` (and an old `import lazytensor.views`) finds them.
`lazytensor.bases` is a package now, so the classes its pickles name are set on it. New pickles
name the new modules.
"""

import importlib
import sys

OLD_MODULES = {
    "lazytensor.tensor": "lazytensor.tensors.tensor",
    "lazytensor.views": "lazytensor.tensors.views",
    "lazytensor.indexing": "lazytensor.ground.indexing",
    "lazytensor.layout": "lazytensor.ground.layout",
    "lazytensor.autograd": "lazytensor.engine.autograd",
    "lazytensor.mapped": "lazytensor.bases.memmap",
}
"""What 0.1.0's pickles name, and where it is now (tests/top/test_old_pickles.py loads one of each)."""

OLD_BASES = ("ArrayBase", "NumpyBackend", "ZarrBackend", "DaskBackend", "Hdf5Backend", "XarrayBackend")
"""The classes 0.1.0's pickles name in `lazytensor.bases`, now in `lazytensor.bases.arraylike`."""


def register_old_paths() -> None:
    """Make each old module path an alias of its new module, and the bases package hold its classes."""
    for old, new in OLD_MODULES.items():
        sys.modules.setdefault(old, importlib.import_module(new))
    package = importlib.import_module("lazytensor.bases")
    arraylike = importlib.import_module("lazytensor.bases.arraylike")
    for name in OLD_BASES:
        setattr(package, name, getattr(arraylike, name))
