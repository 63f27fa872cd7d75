"""Count what the file fuzzers' inputs come to: the outcome table of each corpus.

    python scripts/fuzz_outcomes.py [--npy 2000] [--bytes 2000] [--zarr 1000] [--hdf5 400] [--netcdf 200]
                                    [--seed 0]

Draws inputs from the strategies of `tests/api/test_fuzz_files.py` (crafted `.npy` files, arbitrary
bytes, hostile zarr stores) and `tests/hdf5_corpus.py` (hostile HDF5 and netCDF files: bit flips
and cuts of valid files, bombs, external storage on `/etc/passwd` or a FIFO, virtual datasets,
external links, FIFOs) and sorts each into clean error, opened and printed, hang (past the time
limit), raw traceback (any other exception) or wrong result (values that differ from numpy's,
zarr's or h5py's own); an HDF5 file also into foreign bytes read (another file's bytes in what was
printed or read) and crash (its child process killed by a signal). Run by hand; the numbers go
into notes, not into tests.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "api"), str(ROOT / "examples")]

from fuzz_support import OUTCOMES, assert_one_line, time_limit  # noqa: E402
from hdf5_corpus import HDF5_OUTCOMES, classify_file, hostile_files, make_file  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_fuzz_files import SAFE_FOR_ZARR, classify_store, hostile_stores, make_store, mutated_npy  # noqa: E402

import lazytensor as lt  # noqa: E402


def classify_npy(path: Path) -> str:
    """lt.load (both ways) and a print of a crafted `.npy` file, sorted into one of OUTCOMES."""
    try:
        with time_limit(20), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                for mmap in (True, False):
                    t = lt.load(path, mmap=mmap)
                    str(t)
                    loaded = t.numpy()
            except (ValueError, OSError, MemoryError) as error:
                assert_one_line(str(error), f"{path}: ")
                return "clean error"
    except TimeoutError:
        return "hang"
    except Exception as error:
        print(
            f"raw traceback from {path.read_bytes()[:160]!r}: {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return "raw traceback"
    expected = np.load(path, allow_pickle=False)
    same = loaded.shape == expected.shape and loaded.dtype == expected.dtype
    if not same or not np.array_equal(loaded, expected, equal_nan=loaded.dtype.kind in "fc"):
        return "wrong result"
    return "opened and printed"


def tally(
    name: str,
    count: int,
    seed: int,
    strategy: st.SearchStrategy[Any],
    run: Callable[[Any], str],
    outcomes_shown: tuple[str, ...] = OUTCOMES,
) -> None:
    if count <= 0:
        return
    outcomes: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(item=strategy)
    def sample(item: Any) -> None:
        outcomes[run(item)] += 1

    random.seed(seed)
    sample()
    total = sum(outcomes.values())
    print(f"\n{name}: {total} inputs")
    print("| outcome | inputs |\n|---|---|")
    for outcome in outcomes_shown:
        print(f"| {outcome} | {outcomes[outcome]} |")


def run_npy(content: bytes) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.npy"
        path.write_bytes(content)
        return classify_npy(path)


def run_bytes(content: bytes) -> str:
    return run_npy(b"\x93NUMPY" + content if content[:1] == b"\x01" else content)


def run_zarr(recipe: dict[str, object]) -> str:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store.zarr"
        make_store(store, recipe)
        return classify_store(store, reference=recipe["mutation"] in SAFE_FOR_ZARR)


def run_hdf5(recipe: dict[str, Any]) -> str:
    """A hostile HDF5 or netCDF file opened, printed and read in a child process (20 s at most)."""
    with tempfile.TemporaryDirectory() as folder:
        path, key = make_file(Path(folder), recipe)
        outcome, detail = classify_file(path, key, recipe, seconds=20)
    if outcome not in ("clean error", "opened and printed"):
        print(f"{outcome} from {recipe['mutation']} {recipe}: {detail}", file=sys.stderr)
    return outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npy", type=int, default=2000)
    parser.add_argument("--bytes", type=int, default=2000)
    parser.add_argument("--zarr", type=int, default=1000)
    parser.add_argument("--hdf5", type=int, default=400)
    parser.add_argument("--netcdf", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    tally("crafted .npy files", args.npy, args.seed, mutated_npy(), run_npy)
    tally("arbitrary bytes", args.bytes, args.seed, st.binary(max_size=200), run_bytes)
    tally("hostile zarr stores", args.zarr, args.seed, hostile_stores(), run_zarr)
    tally("hostile HDF5 files", args.hdf5, args.seed, hostile_files(), run_hdf5, HDF5_OUTCOMES)
    tally("hostile netCDF files", args.netcdf, args.seed, hostile_files(netcdf=True), run_hdf5, HDF5_OUTCOMES)


if __name__ == "__main__":
    main()
