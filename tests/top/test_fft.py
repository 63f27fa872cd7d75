"""`lt.fft` against `np.fft`: every keyword passed on (norm, axes, d, dtype) and a device that is not
the one device refused."""

from __future__ import annotations

import numpy as np
import pytest

import lazytensor as lt

VALUES = np.arange(24.0).reshape(4, 6) ** 1.5


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_n_dimensional_transforms_take_norm_as_numpy(name, norm) -> None:
    result = getattr(lt.fft, name)(lt.tensor(VALUES), axes=(0, 1), norm=norm)
    expected = getattr(np.fft, name)(VALUES, axes=(0, 1), norm=norm)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("axes", [0, 1, (0,), None])
def test_ifftshift_takes_axes_as_numpy(axes) -> None:
    values = np.arange(15.0).reshape(3, 5)
    np.testing.assert_array_equal(
        lt.fft.ifftshift(lt.tensor(values), axes=axes).numpy(), np.fft.ifftshift(values, axes)
    )


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("dtype", [None, "float32", np.float64])
def test_frequencies_take_spacing_and_dtype_as_numpy(name, dtype) -> None:
    result = getattr(lt.fft, name)(7, d=0.25, dtype=dtype)
    expected = getattr(np.fft, name)(7, 0.25).astype(np.float64 if dtype is None else dtype)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.numpy(), expected)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_refuse_another_device(name) -> None:
    with pytest.raises(ValueError, match="lazytensor has one device, 'cpu'; got device='cuda'"):
        getattr(lt.fft, name)(4, device="cuda")
    assert getattr(lt.fft, name)(4, device="cpu").shape == getattr(np.fft, name)(4).shape
