"""The browser as a person uses it: textual's `Pilot` presses keys and the screen's text is read,
headless; snapshots of whole screens at 80×24 and 160×48 are golden files (`tests/golden/browse`,
rewritten with `LAZYTENSOR_UPDATE_GOLDEN=1`).

Reaches into `lazytensor.browse`: the app is driven directly, as `t.browse()` runs it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np
import pytest

import lazytensor as lt

pytest.importorskip(
    "textual", reason="the browse extra (textual) is not installed: pip install -e '.[browse]'"
)

from browse_support import drive, settle
from golden_files import check_golden

from lazytensor.browse import launch
from lazytensor.browse.app import BrowseApp, PickApp

NAMES = ("trial", "channel", "time", "freq")


def _eeg() -> lt.AbstractTensor:
    """A 4-D named tensor of seeded values: 4 trials, 3 channels, 60 times, 40 frequencies."""
    values = np.random.default_rng(0).normal(size=(4, 3, 60, 40)).round(3)
    return lt.tensor(values, names=NAMES)


def _lines(screen: str) -> list[str]:
    return screen.splitlines()


@pytest.mark.parametrize(("width", "height"), [(80, 24), (160, 48)])
def test_the_first_screen_of_a_4d_named_tensor(width: int, height: int) -> None:
    screen = drive(BrowseApp(_eeg(), "eeg"), [], size=(width, height))
    check_golden("browse", f"4d_named_{width}x{height}", screen)


@pytest.mark.parametrize(("width", "height"), [(80, 24), (160, 48)])
def test_a_walked_screen_of_a_4d_named_tensor(width: int, height: int) -> None:
    steps = ["right", "up", "right", "right", "t", "plus", "pagedown"]
    screen = drive(BrowseApp(_eeg(), "eeg"), steps, size=(width, height))
    check_golden("browse", f"4d_named_walked_{width}x{height}", screen)


def test_a_zarr_store_says_its_chunks_and_read_only(tmp_path: pytest.TempPathFactory) -> None:
    zarr = pytest.importorskip("zarr")
    path = f"{tmp_path}/temperature.zarr"
    array = zarr.create_array(
        path, shape=(5, 30, 20), chunks=(1, 10, 10), dtype="f4", dimension_names=("time", "lat", "lon")
    )
    array[:] = np.arange(3000, dtype=np.float32).reshape(5, 30, 20) / 10
    screen = drive(BrowseApp(lt.open(path, mode="r"), "temperature.zarr"), ["right", "right"])
    check_golden("browse", "zarr_store_80x24", screen)


def test_the_header_names_the_slice_and_the_moving_axis() -> None:
    lines = _lines(drive(BrowseApp(_eeg(), "eeg"), ["right", "right", "up", "right"]))
    assert lines[0] == "eeg · (trial 4, channel 3, time 60, freq 40) · float64 · in memory · read-only"
    assert lines[1] == "t[1, 2, :, :]  =  t.isel(trial=1, channel=2)   ←/→ trial 1/3"
    assert lines[2].split()[:3] == ["freq→", "0", "1"] and lines[3].split()[:2] == ["time↓", "0"]


def test_the_cells_are_the_printers_numbers_of_the_slice() -> None:
    t = _eeg()
    lines = _lines(drive(BrowseApp(t, "eeg"), ["right"]))
    first_row = lines[3].split()[2:]
    expected = t[0, 1, 0].numpy()[: len(first_row)]
    assert [float(cell) for cell in first_row] == expected.tolist()


def test_the_status_line_has_the_shown_cells_statistics() -> None:
    t = lt.arange(24.0).reshape(4, 6)
    status = _lines(drive(BrowseApp(t, "t"), []))[-2]
    assert status.startswith("[0, 0] 0.0 · shown 4×6 of 4×6 · min 0 · max 23 · mean 11.5 · std 6.922")


def test_x_y_and_t_choose_the_axes_of_the_slice() -> None:
    lines = _lines(drive(BrowseApp(_eeg(), "eeg"), ["x"]))  # channel across, time down
    assert lines[1].startswith("t[0, :, :, 0].T  =  t.isel(trial=0, freq=0).T")
    assert lines[2].startswith("channel→") and lines[3].startswith("time↓")
    lines = _lines(drive(BrowseApp(_eeg(), "eeg"), ["y", "t"]))
    assert lines[1].startswith("t[0, :, 0, :].T")
    assert lines[2].startswith("channel→") and lines[3].startswith("freq↓")


def test_scrolling_keys_and_the_mouse_move_the_window() -> None:
    t = lt.arange(1000 * 50).reshape(1000, 50).rename("row", "column")
    assert _lines(drive(BrowseApp(t, "t"), ["end"]))[-3].split()[0] == "999"
    assert _lines(drive(BrowseApp(t, "t"), ["end", "home"]))[3].split()[:2] == ["row↓", "0"]
    assert _lines(drive(BrowseApp(t, "t"), ["pagedown"]))[3].split()[:2] == ["row↓", "19"]
    assert _lines(drive(BrowseApp(t, "t"), ["right_square_bracket"]))[2].split()[1] != "0"

    def wheel(app: BrowseApp) -> None:
        app.on_mouse_scroll_down(type("Scroll", (), {"shift": False})())  # type: ignore[arg-type]

    def shift_wheel(app: BrowseApp) -> None:
        app.on_mouse_scroll_down(type("Scroll", (), {"shift": True})())  # type: ignore[arg-type]

    def wheel_up(app: BrowseApp) -> None:
        app.on_mouse_scroll_up(type("Scroll", (), {"shift": False})())  # type: ignore[arg-type]

    assert _lines(drive(BrowseApp(t, "t"), [wheel, wheel]))[3].split()[:2] == ["row↓", "6"]
    assert _lines(drive(BrowseApp(t, "t"), [wheel, wheel, wheel_up]))[3].split()[:2] == ["row↓", "3"]
    assert _lines(drive(BrowseApp(t, "t"), [shift_wheel]))[2].split()[:2] == ["column→", "3"]


def test_precision_and_heatmap() -> None:
    t = lt.tensor([[1 / 3, 2 / 3], [1.0, 4 / 3]])
    assert "0.333333" in drive(BrowseApp(t, "t"), ["plus", "plus"])
    assert "0.33 " in drive(BrowseApp(t, "t"), ["minus", "minus"])
    heat = _lines(drive(BrowseApp(t, "t"), ["h"]))
    assert heat[5].startswith("0.3333333333333333 ") and heat[5].endswith(" 1.3333333333333333")


def test_slash_jumps_by_key_or_name_and_a_bad_key_is_one_line() -> None:
    jump = ["slash", *"2, :, 7, :", "enter"]
    assert _lines(drive(BrowseApp(_eeg(), "eeg"), jump))[1].startswith(
        "t[2, :, 7, :]  =  t.isel(trial=2, time=7)"
    )
    by_name = ["slash", *"trial=3", "enter"]
    assert _lines(drive(BrowseApp(_eeg(), "eeg"), by_name))[1].startswith("t[3, 0, :, :]")
    bad = _lines(drive(BrowseApp(_eeg(), "eeg"), ["slash", *"depth=1", "enter"]))
    assert bad[1].startswith("t[0, 0, :, :]")
    assert bad[-2] == "ValueError: no axis is named 'depth' (the names: trial, channel, time, freq)"
    escaped = _lines(drive(BrowseApp(_eeg(), "eeg"), ["slash", "1", "escape", "right"]))
    assert escaped[1].startswith("t[0, 1, :, :]")  # Esc closed the prompt; keys browse again


def test_c_copies_the_key_and_e_explains_the_slice() -> None:
    app = BrowseApp(_eeg(), "eeg")
    screen = drive(app, ["right", "c"])
    assert app.clipboard == "t[0, 1, :, :]"
    assert "copied t[0, 1, :, :]" in screen
    explained = drive(BrowseApp(_eeg(), "eeg"), ["right", "e"], size=(100, 40))
    assert (
        "t[0, 1, :, :].explain()" in explained
        and "└── Storage (trial 4, channel 3, time 60, freq 40)" in explained
    )


def test_s_computes_the_whole_tensors_statistics_and_esc_closes_them() -> None:
    t = _eeg()
    screen = drive(BrowseApp(t, "eeg"), ["s"], size=(120, 30))
    expected = " · ".join(f"{name} {value}" for name, value in t.stats().entries)
    assert "stats of the whole tensor: " + expected in " ".join(screen.split())
    assert "stats of the whole tensor" not in drive(BrowseApp(t, "eeg"), ["s", "escape"], size=(120, 30))
    assert "stats of the whole tensor" not in drive(BrowseApp(t, "eeg"), ["s", "s"], size=(120, 30))


def test_enter_edits_a_cell_through_the_view_and_u_undoes_it() -> None:
    t = lt.arange(24.0).reshape(2, 3, 4)
    edit = ["right", "shift+down", "shift+right", "enter", "ctrl+u", *"-7.5", "enter"]
    screen = drive(BrowseApp(t, "t", writable=True), edit)
    assert t[1, 1, 1].item() == -7.5 and "-7.5" in screen
    assert "writable" in _lines(screen)[0]
    drive(BrowseApp(t, "t", writable=True), [*edit, "u"])
    assert t[1, 1, 1].item() == -7.5  # the first edit's value stays: the second app undid its own
    t[1, 1, 1] = 17.0
    drive(BrowseApp(t, "t", writable=True), [*edit, "u"])
    assert t[1, 1, 1].item() == 17.0


def test_enter_on_a_read_only_browser_says_so_and_writes_nothing() -> None:
    t = lt.arange(6.0).reshape(2, 3)
    screen = drive(BrowseApp(t, "t"), ["enter", *"9", "enter"])
    assert "read-only: browse with --writable to edit cells" in screen
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_a_bad_value_is_one_line_and_writes_nothing() -> None:
    t = lt.arange(6).reshape(2, 3)
    screen = drive(BrowseApp(t, "t", writable=True), ["enter", "ctrl+u", *"'x'", "enter"])
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert _lines(screen)[-2].startswith("ValueError")


@pytest.mark.parametrize("shape", [(), (5,), (0, 3), (2, 0, 4), (0, 3, 4)])
def test_small_and_empty_tensors_browse(shape: tuple[int, ...]) -> None:
    t = lt.zeros(*shape) if shape else lt.tensor(2.5)
    screen = drive(
        BrowseApp(t, "t", writable=True), ["right", "x", "t", "end", "s", "e", "enter", "1", "enter"]
    )
    assert _lines(screen)[0].startswith(f"t · {shape}")


def test_a_store_with_several_arrays_is_a_list_to_pick_from(tmp_path: Any, monkeypatch: Any) -> None:
    async def pick() -> Any:
        app = PickApp("two.zarr", ["temperature", "wind/speed"])
        async with app.run_test(size=(60, 10)) as pilot:
            await settle(pilot)
            assert "two.zarr holds 2 arrays: pick one" in app.screen._compositor.render_strips()[0].text
            await pilot.press("down", "enter")
            await pilot.pause()
        return app.return_value

    assert asyncio.run(pick()) == "wind/speed"

    zarr = pytest.importorskip("zarr")
    group = zarr.open_group(str(tmp_path / "two.zarr"), mode="w")
    group.create_array("temperature", shape=(2, 3), dtype="f4")
    group.create_array("wind/speed", shape=(4,), dtype="i2")
    shown: list[BrowseApp] = []
    monkeypatch.setattr(launch, "pick_array", lambda path, names: names[-1])
    monkeypatch.setattr(BrowseApp, "run", lambda self: shown.append(self))
    assert launch.browse_file(str(tmp_path / "two.zarr")) == 0
    assert shown[0].tensor.shape == (4,) and shown[0].file_label.endswith("two.zarr wind/speed")


def test_t_browse_opens_the_browser_on_the_tensor(monkeypatch: Any) -> None:
    shown: list[BrowseApp] = []
    monkeypatch.setattr(BrowseApp, "run", lambda self: shown.append(self))
    t = lt.arange(6).reshape(2, 3)
    t.T.browse(writable=True)
    assert shown[0].writable and shown[0].tensor.shape == (3, 2)


def test_an_edit_is_written_to_the_zarr_store_and_undone_there(tmp_path: Any) -> None:
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "s.zarr")
    zarr.create_array(path, shape=(3, 4, 5), chunks=(1, 2, 5), dtype="f8", fill_value=1.0)
    t = lt.open(path, mode="r+")
    edit = ["right", "t", "shift+down", "enter", "ctrl+u", *"42", "enter"]  # t[1, :, :].T[1, 0]
    drive(BrowseApp(t, "s.zarr", writable=True), edit)
    assert zarr.open_array(path, mode="r")[1, 0, 1] == 42.0
    drive(BrowseApp(lt.open(path, mode="r+"), "s.zarr", writable=True), [*edit[:-3], *"7", "enter", "u"])
    assert zarr.open_array(path, mode="r")[1, 0, 1] == 42.0  # written, then undone back to 42


def test_a_write_to_a_file_opened_read_only_is_one_line_and_changes_nothing(tmp_path: Any) -> None:
    path = tmp_path / "a.npy"
    np.save(path, np.arange(6.0).reshape(2, 3))
    screen = drive(BrowseApp(lt.open(path), "a.npy", writable=True), ["enter", "ctrl+u", "9", "enter"])
    assert np.load(path).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert _lines(screen)[-2].startswith("ValueError: cannot write to")  # the file's one-line refusal, cut


def test_a_netcdf_variable_and_an_hdf5_dataset_browse_by_their_names(tmp_path: Any) -> None:
    xarray = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    values = np.arange(2 * 4 * 6, dtype=np.float32).reshape(2, 4, 6) / 4
    dataset = xarray.Dataset(
        {"temperature": (("time", "station", "level"), values), "wind": (("time",), np.zeros(2))},
        coords={"station": ["rome", "oslo", "lima", "pune"]},
    )
    dataset.to_netcdf(tmp_path / "weather.nc", engine="h5netcdf")
    screen = drive(
        BrowseApp(lt.open(tmp_path / "weather.nc", "temperature"), "weather.nc temperature"), ["right"]
    )
    check_golden("browse", "netcdf_variable_80x24", screen)
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "f.h5", "w") as file:
        file["group/data"] = values
    lines = _lines(drive(BrowseApp(lt.open(tmp_path / "f.h5", "group/data", mode="r"), "f.h5"), ["right"]))
    assert lines[1].startswith("t[1, :, :]") and "read-only" in lines[0]


def _weather(tmp_path: Any) -> lt.AbstractTensor:
    """A netCDF variable written by xarray: days, three stations by name, four pressure levels."""
    xarray = pytest.importorskip("xarray")
    pytest.importorskip("h5netcdf")
    values = np.arange(3 * 3 * 4, dtype=np.float32).reshape(3, 3, 4) / 4
    dataset = xarray.Dataset(
        {"temperature": (("time", "station", "level"), values)},
        coords={
            "time": np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="M8[ns]"),
            "station": ["rome", "oslo", "lima"],
            "level": [1000.0, 850.0, 500.0, 250.0],
        },
    )
    dataset.to_netcdf(tmp_path / "weather.nc", engine="h5netcdf")
    return lt.open(tmp_path / "weather.nc", "temperature")


@pytest.mark.parametrize(("width", "height"), [(80, 24), (160, 48)])
def test_a_store_with_coordinates_shows_its_labels(tmp_path: Any, width: int, height: int) -> None:
    screen = drive(BrowseApp(_weather(tmp_path), "weather.nc temperature"), ["right"], size=(width, height))
    check_golden("browse", f"coords_{width}x{height}", screen)
    lines = _lines(screen)
    at = next(k for k, line in enumerate(lines) if line.startswith("level→"))
    header = " ".join(lines[1:at])  # the key line wraps at 80 columns
    assert 't.sel(time="2024-01-02")' in header and "←/→ time 2024-01-02 1/2" in header
    assert lines[at].split()[1:] == ["1000", "850", "500", "250"]
    assert [line.split()[-5] for line in lines[at + 1 : at + 4]] == ["rome", "oslo", "lima"]


def test_slash_jumps_to_a_label_and_an_unknown_one_names_the_nearest(tmp_path: Any) -> None:
    t = _weather(tmp_path)
    station = ["y", "slash", *"station=oslo", "enter"]  # y: the days are the rows, the stations move
    lines = _lines(drive(BrowseApp(t, "w"), station, size=(160, 48)))
    assert lines[1].startswith('t[:, 1, :]  =  t.isel(station=1)  =  t.sel(station="oslo")')
    assert "←/→ station oslo 1/2" in lines[1]
    day = _lines(drive(BrowseApp(t, "w"), ["slash", *"time=2024-01-03", "enter"], size=(160, 48)))
    assert day[1].startswith('t[2, :, :]  =  t.isel(time=2)  =  t.sel(time="2024-01-03")')
    bad = _lines(drive(BrowseApp(t, "w"), ["y", "slash", *"station=paris", "enter"], size=(160, 48)))
    assert bad[1].startswith("t[:, 0, :]")
    assert (
        bad[-2]
        == "KeyError: sel: axis 'station' has no label 'paris'; the nearest are 'lima', 'oslo', 'rome'"
    )


class SlowArray:
    """An array-like whose every read waits, as a store over a slow network does."""

    def __init__(self, values: np.ndarray, seconds: float) -> None:
        self.values, self.seconds = values, seconds
        self.shape, self.dtype, self.ndim = values.shape, values.dtype, values.ndim
        self.reads = 0

    def __getitem__(self, key: Any) -> np.ndarray:
        self.reads += 1
        time.sleep(self.seconds)
        return self.values[key]


def test_slow_reads_never_block_the_keys_and_the_last_key_wins() -> None:
    slow = SlowArray(np.arange(8 * 5 * 6, dtype=np.float64).reshape(8, 5, 6), 0.3)
    app = BrowseApp(lt.from_array(slow), "slow")

    async def run() -> tuple[str, str]:
        async with app.run_test(size=(80, 16)) as pilot:
            await settle(pilot)
            for _ in range(5):
                await pilot.press("right")  # no wait for the reads
            await pilot.pause()
            pressed = app.screen_text()
            await settle(pilot)
            return pressed, app.screen_text()

    pressed, drawn = asyncio.run(run())
    assert _lines(pressed)[1].startswith("t[5, :, :]")  # the header followed every key at once
    assert _lines(drawn)[1].startswith("t[5, :, :]")
    assert _lines(drawn)[3].split()[:4] == ["axis", "1↓", "0", "150."]  # the cells of t[5], the last key's


@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 0, 4), (2, 3, 0), (1, 1, 1)])
def test_empty_and_tiny_axes_with_coordinates_browse(shape: tuple[int, ...]) -> None:
    names = ("station", "time", "level")
    coords = {name: [f"label{k}" for k in range(size)] for name, size in zip(names, shape, strict=True)}
    t = lt.tensor(np.zeros(shape), names=names, coords=coords)
    screen = drive(BrowseApp(t, "t"), ["right", "x", "t", "end", "y", "left"])
    assert _lines(screen)[0].startswith("t · (station")
