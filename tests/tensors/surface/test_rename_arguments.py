"""`t.rename`'s two forms (the full list of new names, or `old="new"` pairs) and the refusal of
both at once, in words; the tensor keeps its names after a refusal.
"""

from __future__ import annotations

import pytest

import lazytensor as lt


def test_rename_refuses_new_names_and_pairs_together_in_words() -> None:
    t = lt.zeros(2, 3, names=("trial", "time"))
    with pytest.raises(TypeError) as caught:
        t.rename("a", "b", trial="x")
    assert str(caught.value) == "rename takes either the new names or old=new pairs, not both"
    assert t.names == ("trial", "time")


def test_rename_takes_either_form_alone() -> None:
    t = lt.zeros(2, 3, names=("trial", "time"))
    assert t.rename("a", None).names == ("a", None)
    assert t.rename(["a", "b"]).names == ("a", "b")
    assert t.rename(time="t").names == ("trial", "t")
    assert t.rename(None).names == (None, None)
