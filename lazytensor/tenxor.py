"""The seed posts' position helpers, kept public under their own namespace (`lt.tenxor`, after the
seeds' `Tenxor`; `lt.seed`, its old name, read as a random seed and stays an alias for one release).

>>> import lazytensor as lt
>>> lt.tenxor.position_to_index([1, 2], [3, 4]), lt.tenxor.index_to_position(6, [3, 4])
(6, [1, 2])
>>> lt.tenxor.broadcast_shapes([5, 1, 3], [7, 1, 4, 3])
([1, 5, 1, 3], [7, 1, 4, 3], [7, 5, 4, 3])
"""

from __future__ import annotations

from lazytensor.ground.positions import index_to_position, next_position, position_to_index
from lazytensor.ground.positions import padded_broadcast as broadcast_shapes

__all__ = ["broadcast_shapes", "index_to_position", "next_position", "position_to_index"]
