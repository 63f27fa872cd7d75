"""`python -m lazytensor browse FILE` and `t.browse()`: walk the axes of a tensor in the terminal,
reading only the cells on screen (see `docs/browse.md`).

The pure parts import nothing optional: `state` (what is shown), `keys` (the key table), `window`
(reading the visible cells), `drawing` (the text), `wholestats` (`s`, cancellable); `app` is the
textual screen, imported by `launch` only when browsing starts. Importing this package registers
`launch.browse_tensor` as what `t.browse()` runs (the tensors' floor sits below this one).
"""

from lazytensor.browse.launch import browse_file, browse_tensor
from lazytensor.tensors.surface.display import BROWSERS

BROWSERS.append(browse_tensor)

__all__ = ["browse_file", "browse_tensor"]
