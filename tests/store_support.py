"""A zarr store that counts its chunk reads and writes: the tests' proof that a read, a print, a
reduction or a browse touches only the chunks it needs."""

from __future__ import annotations

from typing import Any

from zarr.storage import MemoryStore


class CountingStore(MemoryStore):
    """A zarr store that records every chunk key read and written."""

    def __init__(self) -> None:
        super().__init__()
        self.chunk_reads: list[str] = []
        self.chunk_writes: list[str] = []

    async def get(self, key: str, *args: Any, **kwargs: Any) -> Any:
        if key.startswith("c/"):
            self.chunk_reads.append(key)
        return await super().get(key, *args, **kwargs)

    async def set(self, key: str, *args: Any, **kwargs: Any) -> None:
        if key.startswith("c/"):
            self.chunk_writes.append(key)
        await super().set(key, *args, **kwargs)
