"""pytest's collection for the whole checkout: a module that needs an optional extra which is not
installed has its doctests left out (its tests in `tests/` skip with the reason)."""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("textual") else ["lazytensor/browse/app.py"]
