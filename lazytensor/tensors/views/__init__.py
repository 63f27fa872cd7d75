"""The view wrappers, one module per kind, each holding the tensor below it and never copying:
`transposed`, `reshaped`, `sliced`, `expanded`, `indexed` and `renamed`, on the root class of
`view`; `constructors` turns user arguments into validated wrappers.

The classes are re-exported here: pickles of lazytensor 0.1.0 name them in `lazytensor.views`,
which `lazytensor.compat` makes an alias of this package.
"""

from lazytensor.ground.indexing import Range
from lazytensor.tensors.views.expanded import ExpandedTensor
from lazytensor.tensors.views.indexed import IndexedTensor
from lazytensor.tensors.views.renamed import RenamedTensor
from lazytensor.tensors.views.reshaped import ReshapedTensor
from lazytensor.tensors.views.sliced import SlicedTensor
from lazytensor.tensors.views.transposed import TransposedTensor
from lazytensor.tensors.views.view import IndexArrays, View, _unpickle_stack

__all__ = [
    "ExpandedTensor",
    "IndexArrays",
    "IndexedTensor",
    "Range",
    "RenamedTensor",
    "ReshapedTensor",
    "SlicedTensor",
    "TransposedTensor",
    "View",
    "_unpickle_stack",
]
