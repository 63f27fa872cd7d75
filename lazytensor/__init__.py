"""lazytensor: tensors whose every view is a lazy, inspectable, write-through wrapper."""

from lazytensor import nn, optim
from lazytensor.autograd import cat, no_grad, stack, where
from lazytensor.creation import arange, from_numpy, full, ones, tensor, trandom, zeros
from lazytensor.generic import tpoint, tredux, ttransform
from lazytensor.io import load, save
from lazytensor.layout import Layout
from lazytensor.operators import allclose, equal, maximum, minimum
from lazytensor.positions import (
    broadcast_shapes,
    index_to_position,
    next_position,
    position_to_index,
)
from lazytensor.printer import to_string, tprint
from lazytensor.printer.options import get_printoptions, printoptions, set_printoptions
from lazytensor.tensor import AbstractTensor, StorageTensor
from lazytensor.views import (
    ExpandedTensor,
    IndexedTensor,
    ReshapedTensor,
    SlicedTensor,
    TransposedTensor,
)

__all__ = [
    "AbstractTensor",
    "ExpandedTensor",
    "IndexedTensor",
    "Layout",
    "ReshapedTensor",
    "SlicedTensor",
    "StorageTensor",
    "TransposedTensor",
    "allclose",
    "arange",
    "broadcast_shapes",
    "cat",
    "equal",
    "from_numpy",
    "full",
    "get_printoptions",
    "index_to_position",
    "load",
    "maximum",
    "minimum",
    "next_position",
    "nn",
    "no_grad",
    "ones",
    "optim",
    "position_to_index",
    "printoptions",
    "save",
    "set_printoptions",
    "stack",
    "tensor",
    "to_string",
    "tpoint",
    "tprint",
    "trandom",
    "tredux",
    "ttransform",
    "where",
    "zeros",
]
