r"""Text from users (file names, store paths, string data, error messages) made safe for a terminal.

Every place that prints such text routes it through `printable`: a character a terminal
would act on (C0 and C1 controls, ESC, DEL, the bidirectional overrides and other format
characters, unassigned code points) is written as its escape, as `repr` of a str writes
it, so data never moves the cursor, recolours the screen, retitles the window or reorders
what is shown. This module imports nothing of lazytensor: any floor may use it.

>>> printable("results\x1b]0;owned\x07.npy")
'results\\x1b]0;owned\\x07.npy'
"""

from __future__ import annotations


def printable(text: str, keep_newlines: bool = False) -> str:
    r"""`text` with every character a terminal would act on written as its visible escape.

    With `keep_newlines`, line breaks (`\n`) stay: multi-line text (a traceback, a print)
    keeps its lines while everything else in it is escaped.

    >>> printable("ok"), printable("\x1b[2Jhi\n"), printable("a\u202eb\x9b\x7f")
    ('ok', '\\x1b[2Jhi\\n', 'a\\u202eb\\x9b\\x7f')
    >>> printable("two\nlines\r", keep_newlines=True)
    'two\nlines\\r'
    """
    if text.isprintable():
        return text
    if keep_newlines:
        return "\n".join(printable(line) for line in text.split("\n"))
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
