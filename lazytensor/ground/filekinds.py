"""What a file that is not a regular file is, in words, for the one-line refusals of the readers:
`.npy` files, zarr stores and HDF5 or netCDF files all refuse FIFOs and devices before opening them."""

from __future__ import annotations

import stat

FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


def file_kind(mode: int, otherwise: str = "not a regular file") -> str:
    """The kind of file `mode` (an `os.stat` mode) says, in words.

    >>> import os
    >>> file_kind(os.stat("/").st_mode), file_kind(0)
    ('a directory', 'not a regular file')
    """
    return FILE_KINDS.get(stat.S_IFMT(mode), otherwise)
