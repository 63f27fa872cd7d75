"""Convert the Planetoid files of Cora and Citeseer into the compressed `.npz` files the examples ship.

    python scripts/convert_planetoid.py [--source ../shared/data/planetoid] [--out examples/data/planetoid]

Run once, by hand; its output is committed. The originals are Python pickles (the distribution of
Kipf & Welling's reference GCN, MIT licence); they are read with the restricted unpickler of
`examples/graphs.py`, never with `pickle.load`. Each `.npz` holds plain arrays only (features as
CSR index arrays, labels, the undirected edges, the test index in its file order, the number of
training nodes), and the script checks that loading it gives exactly the graph the originals give.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import graphs  # noqa: E402

GRAPH_FIELDS = ("features", "labels", "src", "dst", "train_idx", "val_idx", "test_idx")


def convert(name: str, source: Path, out: Path) -> Path:
    """Write `out/NAME.npz` from the Planetoid files in `source`, and check it loads to the same graph."""
    parts = graphs.read_planetoid(name, source)
    path = out / f"{name}.npz"
    np.savez_compressed(path, **graphs.parts_to_arrays(parts))
    expected, shipped = parts.graph(), graphs.shipped(name, out)
    for field in GRAPH_FIELDS:
        if not np.array_equal(getattr(expected, field), getattr(shipped, field)):
            raise SystemExit(f"{path}: {field} differs from the original files")
    if expected.num_classes != shipped.num_classes:
        raise SystemExit(f"{path}: the number of classes differs from the original files")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT.parent / "shared" / "data" / "planetoid")
    parser.add_argument("--out", type=Path, default=ROOT / "examples" / "data" / "planetoid")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in graphs.SHIPPED_NAMES:
        path = convert(name, args.source, args.out)
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
