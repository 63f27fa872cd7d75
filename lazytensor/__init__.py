"""lazytensor: tensors whose every view is a lazy, inspectable, write-through wrapper."""

from lazytensor import nn, optim, seed
from lazytensor.autograd import no_grad
from lazytensor.creation import arange, eye, from_numpy, full, linspace, ones, randn, tensor, trandom, zeros
from lazytensor.functions import (
    allclose,
    cat,
    equal,
    maximum,
    minimum,
    nonzero,
    segment_max,
    segment_sum,
    sort,
    stack,
    tpoint,
    tredux,
    ttransform,
    where,
)
from lazytensor.io import from_array, load, open, save
from lazytensor.layout import Layout
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
    "cat",
    "equal",
    "eye",
    "from_array",
    "from_numpy",
    "full",
    "get_printoptions",
    "linspace",
    "load",
    "maximum",
    "minimum",
    "nn",
    "no_grad",
    "nonzero",
    "ones",
    "open",
    "optim",
    "printoptions",
    "randn",
    "save",
    "seed",
    "segment_max",
    "segment_sum",
    "set_printoptions",
    "sort",
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
