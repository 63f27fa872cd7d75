"""The seed posts' position helpers, kept public under their own namespace (`lt.seed`).

>>> import lazytensor as lt
>>> lt.seed.position_to_index([1, 2], [3, 4]), lt.seed.index_to_position(6, [3, 4])
(6, [1, 2])
>>> lt.seed.broadcast_shapes([5, 1, 3], [7, 1, 4, 3])
([1, 5, 1, 3], [7, 1, 4, 3], [7, 5, 4, 3])
"""

from __future__ import annotations

from lazytensor.positions import index_to_position, next_position, position_to_index
from lazytensor.positions import padded_broadcast as broadcast_shapes

__all__ = ["broadcast_shapes", "index_to_position", "next_position", "position_to_index"]
