"""The scan of a `.npy` header before numpy's parser sees it: brackets and runs of signs are
counted outside strings only (quotes, escapes, empty strings), by their bytes alone, and what the
scan lets through gets numpy's own verdict."""

from __future__ import annotations

from pathlib import Path
from tokenize import TokenError

import numpy as np
import pytest

import lazytensor as lt

DICT = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }"
NESTED = "corrupt .npy header (brackets nested deeper than 16)"
SIGNS = "corrupt .npy header (a run of more than 4 signs)"

SCANNED = {
    # strings: an empty one, an escaped quote; a bracket inside either is not counted, after it is
    "empty-string": ("{'': '" + "(" * 17 + "'}", None),
    "escaped-quote": ("{'\\'': " + "(" * 17, NESTED),
    "escaped-then-more": ("{'a\\'b': 'c', 'd': " + "(" * 17, NESTED),
    # depth goes down by one per closing bracket, from where it was
    "sibling-then-deeper": ("[" * 16 + "]" + "[" * 2, NESTED),
    "sibling-within-limit": ("[" * 16 + "]" + "[", None),
    # signs: a run may open the text; only whitespace joins one; other letters are neither
    "four-leading-signs": ("- - - -" + DICT, None),
    "five-leading-signs": ("-+-~-" + DICT, SIGNS),
    "signs-between-letters": (DICT + "-X-X-X-X-X", None),
    "letters": (DICT + "X" * 20, None),
    "letter-then-nesting": (DICT + "X" + "(" * 17, NESTED),
    "letters-then-nesting": (DICT + "X" * 20 + "(" * 17, NESTED),
}


def npy_bytes(header: str) -> bytes:
    encoded = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(encoded).to_bytes(2, "little") + encoded + bytes(8)


@pytest.mark.parametrize("name", sorted(SCANNED))
def test_the_header_scan_counts_outside_strings_only(tmp_path: Path, name: str) -> None:
    header, limit = SCANNED[name]
    path = tmp_path / f"{name}.npy"
    path.write_bytes(npy_bytes(header))
    with pytest.raises((ValueError, TokenError)):  # numpy refuses every one of them too
        np.load(path, allow_pickle=False)
    with pytest.raises(ValueError) as caught:
        lt.load(path)
    message = str(caught.value)
    if limit is not None:
        assert message == f"{path}: {limit}"
    else:  # past our scan: numpy's parser gives the reason
        assert message.startswith(f"{path}: corrupt .npy header (")
        assert "nested deeper" not in message and "a run of more" not in message
