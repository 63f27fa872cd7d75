"""The codecs a safe store checks chunks against come from the array's metadata, also where zarr
opens an array but cannot turn its metadata back into a dict (a v3 bool array whose fill value is a
list): a decompression bomb in such a store is refused before it inflates.

Reaches into `lazytensor.bases.zarrstore` and `lazytensor.bases.zarrreads`: the limits a safe store
fits to an array and the codec names it reads are checked where they are computed.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numcodecs
import numpy as np
import pytest
import zarr
import zarr.codecs

from lazytensor.bases import zarrstore
from lazytensor.bases.zarrreads import reading
from lazytensor.bases.zarrstore import StoreError


def _bool_store_with_a_list_fill_value(folder: Path) -> None:
    z = zarr.create_array(
        str(folder),
        shape=(4,),
        chunks=(2,),
        dtype="bool",
        fill_value=False,
        zarr_format=3,
        compressors=zarr.codecs.GzipCodec(),
    )
    z[:] = [True, False, True, True]
    document = json.loads((folder / "zarr.json").read_text())
    document["fill_value"] = []  # zarr opens it, but its metadata's to_dict() then raises
    (folder / "zarr.json").write_text(json.dumps(document))


def test_such_a_store_opens_with_limits_fitted_to_its_chunks_and_codecs(tmp_path: Path) -> None:
    _bool_store_with_a_list_fill_value(tmp_path)
    array = zarrstore.open_array(str(tmp_path), "r")
    with pytest.raises(ValueError):
        array.metadata.to_dict()
    limits = array.store.limits
    assert {"gzip", "bytes"} <= limits.codecs
    assert limits.decoded == 2 and limits.file == zarrstore.ENCODED_SLACK * 2 + zarrstore.SLACK_BYTES
    np.testing.assert_array_equal(array[2:4], [True, True])


def test_a_bomb_in_such_a_store_is_refused_before_it_inflates(tmp_path: Path) -> None:
    _bool_store_with_a_list_fill_value(tmp_path)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip: 64 MiB of zeros in about 64 KiB
    (tmp_path / "c" / "0").write_bytes(packer.compress(bytes(64 << 20)) + packer.flush())
    array = zarrstore.open_array(str(tmp_path), "r")
    with pytest.raises(StoreError) as caught, reading(array, slice(0, 2)):
        array[0:2]
    assert str(caught.value) == (
        f"{tmp_path}: key c/0: its gzip data inflates to more than 65,552 bytes; a chunk of this array "
        "holds 2 (a decompression bomb?)"
    )


@pytest.mark.parametrize(
    ("fmt", "compressors", "shards"),
    [
        (3, zarr.codecs.BloscCodec(cname="lz4", shuffle="bitshuffle"), None),
        (3, zarr.codecs.ZstdCodec(), (4,)),
        (3, None, None),
        (2, numcodecs.Zlib(), None),
        (2, numcodecs.Blosc(), None),
    ],
)
def test_the_metadata_field_by_field_names_the_codecs_zarr_s_dict_names(
    fmt: int, compressors: object, shards: tuple[int, ...] | None
) -> None:
    filters = [numcodecs.Delta(dtype="<i4")] if fmt == 2 else None
    z = zarr.create_array(
        {},
        shape=(8,),
        chunks=(2,),
        shards=shards,
        dtype="<i4",
        zarr_format=fmt,
        compressors=compressors,
        filters=filters,
    )
    expected = zarrstore._codec_names(json.loads(json.dumps(z.metadata.to_dict())))
    assert zarrstore._codec_names(zarrstore._fields_document(z.metadata)) == expected
    assert expected - {"regular", "default", "v2"}  # some codec is named
