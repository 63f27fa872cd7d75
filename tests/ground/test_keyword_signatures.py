"""What `help()` shows of a keyword with two spellings (`dim`/`axis`, `keepdim`/`keepdims`): its
default is the marker `<unset>` (not None, which means every axis, nor an object's address), so a
reader sees that neither spelling was given.
"""

from __future__ import annotations

import inspect
import pydoc

import lazytensor as lt


def test_help_shows_a_keyword_with_two_spellings_as_unset() -> None:
    assert str(inspect.signature(lt.zeros(1).sum)).startswith(
        "(dim: 'Dims' = <unset>, keepdim: 'bool' = <unset>, *, axis: 'Dims' = <unset>, "
        "keepdims: 'bool' = <unset>, dtype:"
    )
    text = pydoc.plain(pydoc.render_doc(lt.cat))
    assert (
        "cat(tensors: 'Sequence[Operand]', dim: 'int | None' = <unset>, *, axis: 'int | None' = <unset>)"
        in text
    )
