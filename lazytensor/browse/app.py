"""The browser's screen, a textual app: the header, the slice, the status line, the footer of keys.

Every key turns the pure `BrowseState` into a new one and asks a worker thread for the window of
cells the screen shows (`read_window`): the workers are exclusive, so the key pressed last wins
and a slow read never freezes the screen. `s` streams the whole tensor's statistics in another
worker, with progress, cancelled by Esc. This module needs textual (`pip install
'lazytensor[browse]'`); `lazytensor.browse.launch` imports it only when browsing starts.
"""

from __future__ import annotations

import ast
import threading
from typing import Any, ClassVar, Literal

import attrs
import numpy as np
from rich.console import RenderableType
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input, OptionList, Static
from textual.worker import get_current_worker

from lazytensor.browse.drawing import (
    Drawn,
    fitting_columns,
    grid_lines,
    header_lines,
    heat_scale,
    join_lines,
    label_width,
    options_of,
    status_line,
    widest_cell,
)
from lazytensor.browse.keys import KEYS
from lazytensor.browse.state import BrowseState
from lazytensor.browse.wholestats import whole_statistics
from lazytensor.browse.window import Window, read_window, slice_view
from lazytensor.printer.axisnames import coords_of
from lazytensor.printer.escapes import printable
from lazytensor.printer.styles import DIM, WARN
from lazytensor.tensors.tensor import AbstractTensor

SCROLL_LINES = 3
"""Rows one turn of the mouse wheel scrolls."""

Prompt = Literal["jump", "edit"]


@attrs.frozen
class Edit:
    """One write made by Enter: where (the state it was made in, the cell) and the value it replaced."""

    state: BrowseState
    cell: tuple[int, int]
    old: Any


def _region(state: BrowseState) -> tuple[Any, ...]:
    """What decides which cells a window holds: the key, the transpose, the first row and column, and
    the heatmap (its colour scale takes a line)."""
    return (state.key(), state.transposed, state.top, state.left, state.heatmap)


def _one_line(error: BaseException) -> str:
    said = error.args[0] if isinstance(error, KeyError) and error.args else error  # no quotes round it
    message = printable(" ".join(str(said).split()))
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class Grid(Static):
    """The slice's cells: when its size changes (a resize, a panel opened), the app reads what fits."""

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, BrowseApp):
            app.redraw()


class BrowseApp(App[None]):
    """`python -m lazytensor browse FILE`: walk the axes of `tensor` (see `docs/browse.md`)."""

    CSS = """
    #header { height: auto; }
    #grid { height: 1fr; }
    #info { height: auto; max-height: 50%; display: none; border-top: solid $secondary; }
    #status { height: 1; }
    #prompt { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            key.keys,
            key.action,
            key.description,
            show=key.footer,
            group=None if key.group is None else Binding.Group(key.group, compact=True),
        )
        for key in KEYS
    ]
    AUTO_FOCUS = None  # the prompt takes the keys only while it is open
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, tensor: AbstractTensor, title: str = "t", writable: bool = False) -> None:
        super().__init__()
        self.tensor = tensor
        self.file_label = title
        self.writable = writable
        self.state = BrowseState.start(tensor.shape, tensor.names, coords=coords_of(tensor))
        self.last_window: Window | None = None
        self.last_request: tuple[Any, ...] | None = None
        self.reading = threading.Lock()  # one window read at a time: memory holds one window, not one per key
        self.shown_values: Any = np.zeros((0, 0))
        self.on_screen = (1, 1)
        self.edits: list[Edit] = []
        self.prompting: Prompt | None = None
        self.notice: Text | None = None
        self.panel: str | None = None
        self.title = f"lazytensor browse {title}"

    # -- the screen -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield Grid(id="grid")
        yield Static(id="info")
        yield Static(id="status")
        yield Input(id="prompt")
        yield Footer()

    def on_mount(self) -> None:  # the cells are read when their area gets its size (`Grid.on_resize`)
        self.query_one("#header", Static).update(
            join_lines(header_lines(self.tensor, self.state, self.file_label, self.writable))
        )

    def screen_text(self) -> str:
        """The screen as plain text, one line per row (what the snapshot tests compare)."""
        strips = self.screen._compositor.render_strips()
        return "\n".join(strip.text.rstrip() for strip in strips) + "\n"

    def grid_size(self) -> tuple[int, int]:
        """(width, height) of the slice's area, in characters."""
        size = self.query_one("#grid", Static).size
        return max(size.width, 8), max(size.height, 2)

    def redraw(self) -> None:
        """The header now, and a worker reading the window the new state shows."""
        self.query_one("#header", Static).update(
            join_lines(header_lines(self.tensor, self.state, self.file_label, self.writable))
        )
        width, height = self.grid_size()
        request = (_region(self.state), width, height)
        reuse = self.last_window if request == self.last_request else None
        self.last_request = request
        self.load_window(self.state, width, height, reuse)

    @work(exclusive=True, thread=True, group="window", exit_on_error=False)
    def load_window(self, state: BrowseState, width: int, height: int, reuse: Window | None) -> None:
        """Read the cells that fit (as many columns as the last cells' width allows, widened once when
        these came out narrower) and draw them; a read for a state pressed over is dropped. A key
        that shows the same cells (another moving axis, the precision) draws the last window again."""
        if state.heatmap:  # a line under the cells for the colour scale
            height -= 1
        rows = max(height - 1, 1)
        try:
            with self.reading:  # keys pressed while a read runs wait here; those pressed over read nothing
                if get_current_worker().is_cancelled:
                    return
                if reuse is not None:
                    window = attrs.evolve(reuse, state=state)
                    drawn = grid_lines(window, state, width, height)
                else:
                    window, drawn = self.read_cells(state, width, height, rows)
        except Exception as error:  # a failed read says so in the status line; the screen stays
            if not get_current_worker().is_cancelled:
                self.call_from_thread(self.say, Text(_one_line(error), style=WARN))
            return
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self.show_window, state, window, drawn)

    def read_cells(self, state: BrowseState, width: int, height: int, rows: int) -> tuple[Window, Drawn]:
        """The columns that fit the widest cells of the dtype, then, when the cells came out narrower,
        the columns after them that fit too: no read of a column the screen has no room for."""
        widest = widest_cell(self.tensor.dtype, state.precision)
        cols = fitting_columns(widest, label_width(state, state.top, rows, width), width)
        window = read_window(self.tensor, state, rows, cols)
        drawn = grid_lines(window, state, width, height)
        more = min(drawn.fits, state.slice_shape[1] - state.left) - window.values.shape[1]
        if more > 0 and drawn.values.shape[1] == window.values.shape[1]:
            after = attrs.evolve(state, left=state.left + window.values.shape[1])
            extra = read_window(self.tensor, after, rows, more)
            window = attrs.evolve(window, values=np.concatenate([window.values, extra.values], axis=1))
            drawn = grid_lines(window, state, width, height)
        return window, drawn

    def show_window(self, state: BrowseState, window: Window, drawn: Drawn) -> None:
        """Draw a window read for `state`, unless the state moved on since."""
        if state != self.state:
            return
        self.last_window, self.shown_values = window, drawn.values
        self.on_screen = (max(drawn.values.shape[0], 1), max(drawn.values.shape[1], 1))
        lines = drawn.lines
        if state.heatmap:
            lines = [*lines, heat_scale(drawn.values, self.grid_size()[0])]
        self.query_one("#grid", Static).update(join_lines(lines))
        self.update_status()

    def cursor_value(self) -> Any:
        """The value under the cursor, when the window read holds it."""
        if self.last_window is None:
            return None
        row = self.state.cursor[0] - self.last_window.top
        col = self.state.cursor[1] - self.last_window.left
        values = self.last_window.values
        if 0 <= row < values.shape[0] and 0 <= col < values.shape[1]:
            return values[row, col]
        return None

    def update_status(self) -> None:
        line = (
            self.notice
            if self.notice is not None
            else status_line(self.shown_values, self.state, self.cursor_value())
        )
        self.query_one("#status", Static).update(line)

    def say(self, message: Text) -> None:
        """A message in the status line until the next key."""
        self.notice = message
        self.update_status()

    def show_info(self, kind: str | None, content: RenderableType = "") -> None:
        """The panel under the slice: the whole tensor's statistics or `explain()`, or nothing."""
        panel = self.query_one("#info", Static)
        self.panel = kind
        panel.display = kind is not None
        panel.update(content)

    def move(self, state: BrowseState) -> None:
        """Show `state`: the header at once, the cells when the worker has read them."""
        self.notice = None
        if state == self.state:
            self.update_status()
            return
        self.state = state
        if self.panel == "explain":
            self.show_info("explain", self.explanation())
        self.redraw()

    # -- the keys (named in `keys.KEYS`) ------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.move(self.state.step(delta))

    def action_choose_axis(self, delta: int) -> None:
        self.move(self.state.choose_axis(delta))

    def action_make_columns(self) -> None:
        self.move(self.state.make_columns())

    def action_make_rows(self) -> None:
        self.move(self.state.make_rows())

    def action_transpose(self) -> None:
        self.move(self.state.transpose())

    def action_heatmap(self) -> None:
        self.move(self.state.toggle_heatmap())

    def action_precision(self, delta: int) -> None:
        self.move(self.state.with_precision(delta))

    def action_page(self, pages: int) -> None:
        self.move(self.state.scrolled(pages * self.on_screen[0], 0, self.on_screen))

    def action_page_columns(self, pages: int) -> None:
        self.move(self.state.scrolled(0, pages * self.on_screen[1], self.on_screen))

    def action_home(self) -> None:
        self.move(self.state.scrolled(-self.state.slice_shape[0], 0, self.on_screen))

    def action_end(self) -> None:
        self.move(self.state.scrolled(self.state.slice_shape[0], 0, self.on_screen))

    def action_cursor(self, rows: int, cols: int) -> None:
        self.move(self.state.moved_cursor(rows, cols, self.on_screen))

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.move(
            self.state.scrolled(0, SCROLL_LINES, self.on_screen)
            if event.shift
            else self.state.scrolled(SCROLL_LINES, 0, self.on_screen)
        )

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.move(
            self.state.scrolled(0, -SCROLL_LINES, self.on_screen)
            if event.shift
            else self.state.scrolled(-SCROLL_LINES, 0, self.on_screen)
        )

    def action_copy_key(self) -> None:
        key = self.state.key_text()
        self.copy_to_clipboard(key)
        self.say(Text(f"copied {key}", style=DIM))

    def explanation(self) -> RenderableType:
        """`explain()` of the slice on screen, or why there is none (an empty outer axis)."""
        try:
            view = slice_view(self.tensor, self.state)
        except IndexError as error:
            return Text(_one_line(error), style=WARN)
        return Text.assemble((self.state.key_text() + ".explain()\n", DIM), str(view.explain()))

    def action_explain(self) -> None:
        if self.panel == "explain":
            self.show_info(None)
            return
        self.show_info("explain", self.explanation())

    def action_stats(self) -> None:
        if self.panel == "stats":
            self.workers.cancel_group(self, "stats")
            self.show_info(None)
            return
        self.show_info("stats", Text("stats of the whole tensor: starting (Esc cancels)", style=DIM))
        self.whole_stats()

    @work(exclusive=True, thread=True, group="stats", exit_on_error=False)
    def whole_stats(self) -> None:
        """`t.stats()` block by block, its progress in the panel; Esc stops it between two blocks."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if not worker.is_cancelled:
                text = Text(
                    f"stats of the whole tensor: {done:,}/{total:,} blocks read (Esc cancels)", style=DIM
                )
                self.call_from_thread(self.show_info, "stats", text)

        try:
            entries = whole_statistics(
                self.tensor, options_of(self.state), lambda: worker.is_cancelled, progress
            )
        except Exception as error:  # the panel says why, the browser goes on
            self.call_from_thread(self.show_info, "stats", Text(_one_line(error), style=WARN))
            return
        if entries is None or worker.is_cancelled:
            return
        line = Text("stats of the whole tensor: ", style=DIM)
        for k, (name, value) in enumerate(entries):
            line.append_text(Text.assemble((" · " if k else "", DIM), (name + " ", DIM), value))
        self.call_from_thread(self.show_info, "stats", line)

    def action_cancel(self) -> None:
        """Esc: stop the statistics, close the panel or the prompt."""
        if self.prompting is not None:
            self.close_prompt()
            return
        self.workers.cancel_group(self, "stats")
        self.show_info(None)
        self.move(self.state)

    # -- typing: `/` jumps, Enter edits ----------------------------------------------------

    def open_prompt(self, kind: Prompt, placeholder: str, value: str = "") -> None:
        prompt = self.query_one("#prompt", Input)
        self.prompting = kind
        prompt.placeholder = placeholder
        prompt.value = value
        prompt.display = True
        prompt.focus()

    def close_prompt(self) -> None:
        prompt = self.query_one("#prompt", Input)
        self.prompting = None
        prompt.display = False
        self.set_focus(None)

    def action_jump(self) -> None:
        self.open_prompt(
            "jump",
            "a numpy key (2, :, 7, :), name=index (time=7) or name=label (station=rome); "
            "Enter jumps, Esc cancels",
        )

    def action_edit(self) -> None:
        if not self.writable:
            self.say(Text("read-only: browse with --writable to edit cells", style=WARN))
            return
        value = self.cursor_value()
        self.open_prompt(
            "edit", f"a new value for cell {list(self.state.cursor)}", "" if value is None else str(value)
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        kind = self.prompting
        self.close_prompt()
        try:
            if kind == "jump":
                self.move(self.state.jump(event.value))
            elif kind == "edit":
                self.write_cell(self.state, self.state.cursor, _value(event.value))
        except Exception as error:  # a bad key or value, a store that refuses: one line, nothing changed
            self.say(Text(_one_line(error), style=WARN))

    def on_key(self, event: events.Key) -> None:
        if self.prompting is not None and event.key == "escape":
            self.close_prompt()
            event.stop()

    def write_cell(self, state: BrowseState, cell: tuple[int, int], value: Any, undo: bool = False) -> None:
        """`value` written through the slice's view to the tensor (and its store); remembered for `u`."""
        view = slice_view(self.tensor, state)
        position: tuple[int, ...] = cell[: view.ndim] if view.ndim < 2 else cell
        old = (view[position] if view.ndim else view).item()  # the value itself: an element is a 0-d view
        if view.ndim:
            view[position] = value
        else:
            view[...] = value
        if not undo:
            self.edits.append(Edit(state, cell, old))
        self.redraw()
        where = state.key_text() + (str(list(position)) if position else "")
        self.say(Text(f"{'undone' if undo else 'wrote'} {where} = {value}", style=DIM))

    def action_undo(self) -> None:
        if not self.edits:
            self.say(Text("nothing to undo", style=DIM))
            return
        edit = self.edits.pop()
        try:
            self.write_cell(edit.state, edit.cell, edit.old, undo=True)
        except (ValueError, IndexError, TypeError, OSError) as error:
            self.say(Text(_one_line(error), style=WARN))


def _value(text: str) -> Any:
    """A value typed for a cell: a Python literal (a number, True, a string in quotes), a float numpy
    reads (`nan`, `-inf`), else the text itself.

    >>> _value("3"), _value("nan"), _value("'a'"), _value("b")
    (3, nan, 'a', 'b')
    """
    stripped = text.strip()
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError):
        pass
    try:
        return float(stripped)
    except ValueError:
        return stripped


class PickApp(App[str]):
    """The arrays of a store, one per line: Enter browses the one under the cursor, q quits."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "quit")]

    def __init__(self, path: str, names: list[str]) -> None:
        super().__init__()
        self.path = path
        self.names = names
        self.title = f"lazytensor browse {path}"

    def compose(self) -> ComposeResult:
        yield Static(Text(f"{printable(self.path)} holds {len(self.names)} arrays: pick one", style="bold"))
        yield OptionList(*[printable(name) for name in self.names], id="arrays")
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(self.names[event.option_index])


def pick(path: str, names: list[str]) -> str | None:
    """The name picked from `names` on a list screen, or None when the user quit."""
    return PickApp(path, names).run()
