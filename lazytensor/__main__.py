"""The command line: `python -m lazytensor tour`."""

from __future__ import annotations

import argparse
import sys

import lazytensor as lt


def tour() -> None:
    """A short printed walk through lazy views that share storage and write through."""
    t = lt.arange(12).reshape(3, 4)
    steps = [
        ("t = lt.arange(12).reshape(3, 4)", t),
        ("t.T  (a TransposedTensor: no copy)", t.T),
        ("t[::-1, 1::2]  (a SlicedTensor)", t[::-1, 1::2]),
        ("t.T.reshape(2, 6)  (a ReshapedTensor that cannot fuse into strides)", t.T.reshape(2, 6)),
        ("t[[2, 0]]  (a list index is a view too)", t[[2, 0]]),
    ]
    for title, view in steps:
        layers = " ∘ ".join(type(layer).__name__ for layer in view.layers)
        print(f">>> {title}\n{view.numpy()}\n    layers: {layers}; layout: {view.layout}\n")
    view = t[[2, 0]]
    view[0, 0] = 100
    print(">>> t[[2, 0]][0, 0] = 100   # writes through to t")
    print(f"{t.numpy()}\n    shares storage: {view.shares_storage(t)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lazytensor")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("tour", help="a printed walk through the library")
    args = parser.parse_args(argv)
    if args.command == "tour":
        tour()
    return 0


if __name__ == "__main__":
    sys.exit(main())
