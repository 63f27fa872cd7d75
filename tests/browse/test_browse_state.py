"""The browser's state walked without a screen: every key's effect, the slice it names (checked
against numpy by evaluating its own key text), and the window of cells it reads.

Reaches into `lazytensor.browse`: the state, the window reader and the whole-tensor statistics are
the browser's pure parts, tested here without textual.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor.browse.drawing import options_of
from lazytensor.browse.state import MAX_PRECISION, BrowseState
from lazytensor.browse.wholestats import whole_statistics
from lazytensor.browse.window import read_window

NAMES = ("trial", "channel", "time", "freq")


def _named(shape: tuple[int, ...]) -> Any:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return a, lt.tensor(a, names=NAMES[: len(shape)])


def test_the_first_view_shows_the_last_two_axes_and_moves_the_one_before() -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES)
    assert (s.rows, s.cols, s.moving, s.outer) == (2, 3, 1, (0, 1))
    assert s.key_text() == "t[0, 0, :, :]"
    assert s.isel_text() == "t.isel(trial=0, channel=0)"


def test_arrows_step_the_moving_axis_and_stop_at_its_ends() -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES)
    assert s.step(1).step(1).step(1).key_text() == "t[0, 2, :, :]"  # channel has 3 positions
    assert s.step(-1).key_text() == "t[0, 0, :, :]"
    up = s.choose_axis(-1)
    assert up.moving == 0 and up.step(3).key_text() == "t[3, 0, :, :]"
    assert up.choose_axis(-1).moving == 1  # round the list of outer axes


def test_x_and_y_swap_the_moving_axis_into_the_slice_keeping_the_old_axis_index() -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES).step(2)  # channel=2
    x = s.make_columns()
    assert (x.rows, x.cols, x.moving) == (2, 1, 3)
    assert x.key_text() == "t[0, :, :, 0].T"  # channel (axis 1) across, time (axis 2) down
    assert x.make_columns().key_text() == "t[0, 2, :, :]"  # back: channel keeps its index 2
    y = s.make_rows()
    assert (y.rows, y.cols, y.moving) == (1, 3, 2)
    assert y.key_text() == "t[0, :, 0, :]"


def test_t_transposes_and_the_key_says_dot_t() -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES).transpose()
    assert s.key_text() == "t[0, 0, :, :].T" and s.isel_text() == "t.isel(trial=0, channel=0).T"
    assert s.transpose() == BrowseState.start((4, 3, 100, 50), NAMES)


def test_precision_and_heatmap() -> None:
    s = BrowseState.start((2, 3))
    assert s.with_precision(-10).precision == 0
    assert s.with_precision(100).precision == MAX_PRECISION
    assert s.toggle_heatmap().heatmap and not s.toggle_heatmap().toggle_heatmap().heatmap


def test_scrolling_stays_inside_the_slice_and_the_cursor_follows() -> None:
    s = BrowseState.start((1000, 500))
    down = s.scrolled(20, 0, (20, 10))
    assert (down.top, down.cursor) == (20, (20, 0))
    assert s.scrolled(10**6, 10**6, (20, 10)).top == 980
    assert s.scrolled(10**6, 10**6, (20, 10)).left == 490
    assert s.scrolled(-5, -5, (20, 10)) == s
    cursor = s.moved_cursor(25, 12, (20, 10))
    assert cursor.cursor == (25, 12) and (cursor.top, cursor.left) == (6, 3)


def test_a_typed_numpy_key_or_name_jumps() -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES)
    assert s.jump("2, :, 7, :").key_text() == "t[2, :, 7, :]"
    assert s.jump("t[2, :, 7, :]").jump("time=-1").key_text() == "t[2, :, 99, :]"
    assert s.jump("t.isel(trial=3, channel=1)").key_text() == "t[3, 1, :, :]"
    assert s.jump("[-1, -1, :, :]").key_text() == "t[3, 2, :, :]"
    assert s.transpose().jump(":, 0, 0, :").key_text() == "t[:, 0, 0, :].T"  # the transpose is kept


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("2, :, 7", IndexError, "the key has 3 items; the tensor has 4 axes"),
        ("2, :, 7, 1", IndexError, "the key needs 2 ':'"),
        ("9, 0, :, :", IndexError, "index 9 is out of bounds for axis 0 with size 4"),
        ("depth=2", ValueError, "no axis is named 'depth'"),
        ("time=2", ValueError, "time is an axis of the slice"),
        ("__import__('os'), 0, :, :", ValueError, "is not an index"),
        ("1.5, 0, :, :", ValueError, "'1.5' is not an index"),
        ("((", ValueError, "neither a numpy key nor name=index pairs"),
    ],
)
def test_a_bad_jump_is_one_line_and_changes_nothing(text: str, error: type[Exception], message: str) -> None:
    s = BrowseState.start((4, 3, 100, 50), NAMES)
    with pytest.raises(error, match=message.replace("(", r"\(")):
        s.jump(text)


def test_a_state_that_cannot_be_is_refused() -> None:
    with pytest.raises(ValueError, match="the rows and the columns are both axis 0"):
        BrowseState((2, 3), (None, None), (0, 0), 0, 0, None)
    with pytest.raises(ValueError, match="precision 99"):
        BrowseState((2, 3), (None, None), (0, 0), 0, 1, None, precision=99)


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("step"), st.integers(-3, 3)),
        st.tuples(st.just("choose_axis"), st.integers(-2, 2)),
        st.tuples(st.just("make_columns")),
        st.tuples(st.just("make_rows")),
        st.tuples(st.just("transpose")),
        st.tuples(st.just("scrolled"), st.integers(-4, 4), st.integers(-4, 4), st.just((2, 3))),
        st.tuples(st.just("moved_cursor"), st.integers(-4, 4), st.integers(-4, 4), st.just((2, 3))),
    ),
    max_size=12,
)


@given(shape=st.lists(st.integers(1, 5), min_size=0, max_size=4).map(tuple), actions=ACTIONS)
def test_the_window_read_is_numpys_selection_by_the_keys_own_text(
    shape: tuple[int, ...], actions: list[tuple[Any, ...]]
) -> None:
    a, t = _named(shape)
    s = BrowseState.start(shape, t.names)
    for name, *arguments in actions:
        s = getattr(s, name)(*arguments)
    expected = np.asarray(eval(s.key_text(), {"t": a}))  # the key as typed selects what is shown
    expected = expected.reshape(-1, 1) if expected.ndim < 2 else expected
    window = read_window(t, s, 2, 3).values
    np.testing.assert_array_equal(window, expected[s.top : s.top + 2, s.left : s.left + 3])
    if s.isel_text() is not None:
        np.testing.assert_array_equal(eval(s.isel_text(), {"t": t}).numpy(), eval(s.key_text(), {"t": a}))
    assert 0 <= s.cursor[0] < max(s.slice_shape[0], 1) and 0 <= s.cursor[1] < max(s.slice_shape[1], 1)


def test_the_whole_tensors_statistics_are_t_stats_and_stop_when_cancelled() -> None:
    t = lt.arange(1000.0).reshape(10, 100)
    done: list[tuple[int, int]] = []
    entries = whole_statistics(
        t, options_of(BrowseState.start(t.shape)), lambda: False, lambda d, n: done.append((d, n)), 64
    )
    assert dict(entries or []) == dict(t.stats().entries)
    assert done[-1] == (len(done), len(done)) and len(done) > 1
    calls = iter([False, False, True])
    stopped = whole_statistics(
        t, options_of(BrowseState.start(t.shape)), lambda: next(calls), lambda d, n: None, 64
    )
    assert stopped is None


# -- coordinates: labels shown, `t.sel` written, `/name=label` resolved ----------------------------------

DAYS = np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="M8[ns]")
STATIONS = np.array(["rome", "oslo", "lima"])
LEVELS = np.array([1000.0, 850.0, 500.0, 250.0])


def _labelled() -> Any:
    values = np.arange(3 * 3 * 4, dtype=np.float64).reshape(3, 3, 4)
    coords = {"time": DAYS, "station": STATIONS, "level": LEVELS}
    t = lt.tensor(values, names=("time", "station", "level"), coords=coords)
    return t, BrowseState.start(t.shape, t.names, coords=t.axis_coords).make_columns()


def test_a_state_knows_the_labels_of_its_axes_as_the_printer_shows_them() -> None:
    _, s = _labelled()  # the rows are stations, the columns days, the levels move
    assert (s.label(0, 1), s.label(1, 2), s.label(2, 1)) == ("2024-01-02", "lima", "850")
    assert BrowseState.start((2, 3)).label(0, 1) is None


def test_the_sel_text_quotes_strings_and_dates_and_selects_what_the_key_does() -> None:
    t, s = _labelled()
    s = s.make_columns()  # the columns: the levels; the days move
    assert s.step(1).sel_text() == 't.sel(time="2024-01-02")'
    s = s.transpose().step(2)
    assert s.sel_text() == 't.sel(time="2024-01-03").T'
    np.testing.assert_array_equal(
        np.asarray(eval(s.sel_text(), {"t": t})), np.asarray(eval(s.key_text(), {"t": t}))
    )
    number = BrowseState.start(t.shape, t.names, coords=t.axis_coords)
    number = number.make_rows().make_columns().step(1)  # the levels move
    assert number.sel_text() == "t.sel(level=850)"
    mixed = lt.tensor(
        np.zeros((2, 3, 4, 5)), names=("station", "run", None, None), coords={"station": ["a", "b"]}
    )
    state = BrowseState.start(mixed.shape, mixed.names, coords=mixed.axis_coords)
    assert state.sel_text() == 't.sel(station="a").isel(run=0)'
    assert BrowseState.start((2, 3, 4), ("a", None, None)).sel_text() is None


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("station=oslo", "t[:, 1, :]"),
        ('station="lima"', "t[:, 2, :]"),
        ("station=2", "t[:, 2, :]"),
        ('t.sel(station="rome")', "t[:, 0, :]"),
        ("level=500.0", "t[:, :, 2]"),
        ("t.sel(level=250)", "t[:, :, 3]"),
        ("level=1", "t[:, :, 1]"),
    ],
)
def test_slash_takes_a_label_or_a_position_by_name(typed: str, key: str) -> None:
    t, _ = _labelled()
    s = BrowseState.start(t.shape, t.names, coords=t.axis_coords).make_rows()  # time↓ level→, station moves
    if "level" in typed:
        s = s.choose_axis(1).make_columns()  # time↓ station→, level moves
    assert s.jump(typed).key_text() == key


def test_slash_takes_dates_in_their_shortest_form() -> None:
    _, s = _labelled()
    s = s.make_columns()  # the days move
    assert s.jump("time=2024-01-03").key_text() == "t[2, :, :]"
    assert s.jump("t.sel(time='2024-01-02')").key_text() == "t[1, :, :]"


def test_an_unknown_label_is_a_key_error_naming_the_nearest_and_changes_nothing() -> None:
    t, _ = _labelled()
    s = BrowseState.start(t.shape, t.names, coords=t.axis_coords).make_rows()
    with pytest.raises(KeyError, match="no label 'paris'; the nearest are 'lima', 'oslo', 'rome'"):
        s.jump("station=paris")
    with pytest.raises(KeyError) as sel:
        t.sel(station="paris")
    with pytest.raises(KeyError) as jump:
        s.jump("station=paris")
    assert str(jump.value) == str(sel.value)  # the same lookup, the same line
    plain = BrowseState.start((2, 3, 4), ("run", None, None))
    with pytest.raises(KeyError, match="has no coordinate"):
        plain.jump("run=first")


@pytest.mark.parametrize("width", [24, 40, 80])
def test_long_labels_are_cut_and_every_line_fits_the_width(width: int) -> None:
    from lazytensor.browse.drawing import grid_lines

    long = [f"{k}-" + "station" * 9 for k in range(6)]
    t = lt.tensor(np.arange(36.0).reshape(6, 6), names=("a", "b"), coords={"a": long, "b": long})
    s = BrowseState.start(t.shape, t.names, coords=t.axis_coords)
    lines = grid_lines(read_window(t, s, 6, 6), s, width, 10).lines
    assert all(len(line.plain) <= width for line in lines)
    label = "0-stationstatio…" if width >= 64 else "0-stationstatio"[: width // 4 - 1] + "…"
    assert lines[1].plain.startswith(f"a↓ {label} ") and "…" in lines[0].plain


@given(st.lists(st.sampled_from(["left", "right", "up", "down", "x", "y", "t"]), max_size=12))
def test_the_sel_text_and_its_jump_name_the_slice_the_key_does(keys: list[str]) -> None:
    values = np.arange(3 * 4 * 2 * 5, dtype=np.float64).reshape(3, 4, 2, 5)
    coords = {
        "time": DAYS,
        "station": ["rome", "oslo", "rome", "x" * 50],  # a repeated label and a cut one: by position
        "level": [850.0, np.nan],
    }
    t = lt.tensor(values, names=("time", "station", "level", "run"), coords=coords)
    s = BrowseState.start(t.shape, t.names, coords=t.axis_coords)
    moves = {
        "left": lambda s: s.step(-1),
        "right": lambda s: s.step(1),
        "up": lambda s: s.choose_axis(-1),
        "down": lambda s: s.choose_axis(1),
        "x": BrowseState.make_columns,
        "y": BrowseState.make_rows,
        "t": BrowseState.transpose,
    }
    for key in keys:
        s = moves[key](s)
    sel = s.sel_text()
    if sel is None:
        return
    expected = np.asarray(eval(s.key_text(), {"t": t}))
    np.testing.assert_array_equal(np.asarray(eval(sel, {"t": t})), expected)
    if ".isel(" not in sel:
        assert s.jump(sel.removesuffix(".T")).key() == s.key()


@pytest.mark.parametrize("hours", [[0, 0, 0], [0, 6, 0]])
def test_labels_of_a_screen_are_each_label_as_shown(hours: list[int]) -> None:
    days = (np.datetime64("2024-01-01T00", "h") + np.array([0, 24, 48]) + np.array(hours)).astype("M8[ns]")
    t = lt.tensor(np.zeros((3, 2)), names=("time", "x"), coords={"time": days})
    s = BrowseState.start(t.shape, t.names, coords=t.axis_coords)
    assert s.labels(0, [0, 1, 2]) == [s.label(0, p) for p in range(3)]
    assert s.labels(1, [0]) is None
    assert s.labels(0, [2])[0] == ("2024-01-03" if hours == [0, 0, 0] else "2024-01-03T00:00")
