"""The array API standard's methods on a tensor, against numpy's arrays: `__array_namespace__` for each
revision served (a refusal naming them otherwise), `to_device`'s one device, and `__dlpack__`
passing each of the consumer's keywords on to numpy's export (a stream refused, a newer capsule
for `max_version`, a device refused, a copy when asked)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import lazytensor as lt


@pytest.mark.parametrize("version", [None, "2021.12", "2022.12", "2023.12", "2024.12"])
def test_the_namespace_of_every_revision_served_is_lazytensor(version: str | None) -> None:
    assert lt.zeros(2).__array_namespace__(api_version=version) is lt


@pytest.mark.parametrize("version", ["2020.10", "2025.12", "2023"])
def test_an_unserved_revision_is_refused_by_name(version: str) -> None:
    served = "('2021.12', '2022.12', '2023.12', '2024.12')"
    message = f"lazytensor implements the array API {served}, not '{version}'"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lt.zeros(2).__array_namespace__(api_version=version)


def test_to_device_knows_one_device() -> None:
    t = lt.arange(3.0)
    assert t.to_device("cpu") is t
    with pytest.raises(ValueError, match=r"^lazytensor has one device, 'cpu'; got 'cuda'$"):
        t.to_device("cuda")


def _capsule_name(capsule: Any) -> str:
    """The name a PyCapsule was made with (`dltensor` or `dltensor_versioned`), from its repr."""
    return repr(capsule).split('"')[1]


@pytest.mark.parametrize("max_version", [None, (0, 8), (1, 0), (1, 1)])
def test_dlpack_gives_the_capsule_numpy_gives_for_max_version(max_version: tuple[int, int] | None) -> None:
    ours = lt.arange(6.0).reshape(2, 3).__dlpack__(max_version=max_version)
    numpys = np.arange(6.0).reshape(2, 3).__dlpack__(max_version=max_version)
    assert _capsule_name(ours) == _capsule_name(numpys)


def _refusal(export: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as caught:
        export()
    return caught.type, str(caught.value)


def test_dlpack_refuses_a_stream_and_another_device_as_numpy_does() -> None:
    t, a = lt.arange(3.0), np.arange(3.0)
    assert _refusal(lambda: t.__dlpack__(stream=1)) == _refusal(lambda: a.__dlpack__(stream=1))
    cuda = (2, 0)
    assert _refusal(lambda: t.__dlpack__(dl_device=cuda)) == _refusal(lambda: a.__dlpack__(dl_device=cuda))
    assert _capsule_name(t.__dlpack__(dl_device=(1, 0))) == "dltensor"  # the CPU itself is fine


def test_dlpack_copies_when_the_consumer_asks() -> None:
    t = lt.arange(6.0)
    assert not np.shares_memory(np.from_dlpack(t, copy=True), t.numpy())
    assert np.shares_memory(np.from_dlpack(t, copy=False), t.numpy())
    assert np.shares_memory(np.from_dlpack(t), t.numpy())
