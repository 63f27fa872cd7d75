"""lazytensor: tensors whose every view is a lazy, inspectable, write-through wrapper.

The package is also an array API namespace (the standard's 2024.12 revision): its functions,
constants and dtypes are here, `linalg` and `fft` are its extensions, and every tensor answers
`__array_namespace__()` with this module.
"""

import math
import warnings
from types import ModuleType, SimpleNamespace

from lazytensor import browse as browse  # importing it registers what `t.browse()` runs
from lazytensor import compat, fft, linalg, nn, optim, tenxor
from lazytensor.api.creation import (
    empty,
    empty_like,
    from_numpy,
    full_like,
    ones_like,
    randn,
    tensor,
    trandom,
    zeros_like,
)
from lazytensor.api.creation import tensor as array  # numpy's name: `np.array` copies, as `lt.tensor`
from lazytensor.api.files import from_array, load, open, save
from lazytensor.api.functions import (
    allclose,
    array_equal,
    cat,
    concatenate,
    maximum,
    minimum,
    nonzero,
    segment_max,
    segment_sum,
    tpoint,
    tredux,
    ttransform,
    unique,
    where,
)
from lazytensor.array_api import elementwise
from lazytensor.array_api.datatypes import (
    __array_namespace_info__,
    bool,
    can_cast,
    complex64,
    complex128,
    finfo,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)

# lt.sin, lt.add, ...: a function for each entry of the operator table that names one, and clip, round
from lazytensor.array_api.elementwise import *  # noqa: F403
from lazytensor.array_api.namespace import (
    all,
    any,
    arange,
    argmax,
    argmin,
    argsort,
    asarray,
    astype,
    broadcast_arrays,
    broadcast_to,
    concat,
    count_nonzero,
    cumulative_prod,
    cumulative_sum,
    diff,
    einsum,
    expand_dims,
    eye,
    flip,
    from_dlpack,
    full,
    gradient,
    isin,
    linspace,
    max,
    mean,
    meshgrid,
    min,
    moveaxis,
    ones,
    pad,
    permute_dims,
    prod,
    repeat,
    reshape,
    roll,
    searchsorted,
    sliding_window_view,
    sort,
    squeeze,
    stack,
    std,
    sum,
    take,
    take_along_axis,
    tile,
    tril,
    triu,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    unstack,
    var,
    zeros,
)
from lazytensor.engine.autograd import enable_grad, inference_mode, is_grad_enabled, no_grad
from lazytensor.ground.layout import Layout
from lazytensor.ground.settings import get_options, lazy, options, set_options
from lazytensor.kernels.threads import get_num_threads, set_num_threads
from lazytensor.linalg import matmul, matrix_transpose, tensordot, vecdot
from lazytensor.nn.functional import gather, log_softmax, softmax
from lazytensor.printer import to_string, tprint
from lazytensor.printer.options import get_printoptions, printoptions, set_printoptions
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor
from lazytensor.tensors.views import (
    ExpandedTensor,
    IndexedTensor,
    RenamedTensor,
    ReshapedTensor,
    SlicedTensor,
    TransposedTensor,
)

__array_api_version__ = "2024.12"
"""The revision of the array API standard this namespace implements."""

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None
"""`t[lt.newaxis]` inserts an axis, as numpy's `np.newaxis`."""
lib = SimpleNamespace(stride_tricks=SimpleNamespace(sliding_window_view=sliding_window_view))
"""numpy's `np.lib.stride_tricks.sliding_window_view` on tensors, where xarray's `rolling` looks for it."""

__all__ = [
    "AbstractTensor",
    "ExpandedTensor",
    "IndexedTensor",
    "Layout",
    "RenamedTensor",
    "ReshapedTensor",
    "SlicedTensor",
    "StorageTensor",
    "TransposedTensor",
    "__array_api_version__",
    "__array_namespace_info__",
    "all",
    "allclose",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "array",
    "array_equal",
    "asarray",
    "astype",
    "bool",
    "broadcast_arrays",
    "broadcast_to",
    "can_cast",
    "cat",
    "complex64",
    "complex128",
    "concat",
    "concatenate",
    "count_nonzero",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "e",
    "einsum",
    "empty",
    "empty_like",
    "enable_grad",
    "expand_dims",
    "eye",
    "fft",
    "finfo",
    "flip",
    "float32",
    "float64",
    "from_array",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "gather",
    "get_num_threads",
    "get_options",
    "get_printoptions",
    "gradient",
    "iinfo",
    "inf",
    "inference_mode",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_grad_enabled",
    "isdtype",
    "isin",
    "lazy",
    "lib",
    "linalg",
    "linspace",
    "load",
    "log_softmax",
    "matmul",
    "matrix_transpose",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "nan",
    "newaxis",
    "nn",
    "no_grad",
    "nonzero",
    "ones",
    "ones_like",
    "open",
    "optim",
    "options",
    "pad",
    "permute_dims",
    "pi",
    "printoptions",
    "prod",
    "randn",
    "repeat",
    "reshape",
    "result_type",
    "roll",
    "save",
    "searchsorted",
    "segment_max",
    "segment_sum",
    "set_num_threads",
    "set_options",
    "set_printoptions",
    "softmax",
    "sort",
    "squeeze",
    "stack",
    "std",
    "sum",
    "take",
    "take_along_axis",
    "tensor",
    "tensordot",
    "tenxor",
    "tile",
    "to_string",
    "tpoint",
    "tprint",
    "trandom",
    "tredux",
    "tril",
    "triu",
    "ttransform",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vecdot",
    "where",
    "zeros",
    "zeros_like",
]
__all__ += vars(elementwise)["__all__"]  # its list is for run time only: mypy reads its declarations

compat.register_old_paths()  # pickles of 0.1.0 name the flat modules (lazytensor/compat.py)


def __getattr__(name: str) -> ModuleType:  # pragma: no mutate block (a trampoline's frame moves stacklevel)
    """`lt.seed`, the old name of `lt.tenxor` (the seeds' helpers), for one release: the same module,
    with a DeprecationWarning, since `seed` reads as the random functions' `seed=` argument.

    >>> import warnings
    >>> import lazytensor as lt
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old = lt.seed
    >>> old is lt.tenxor, caught[0].category.__name__
    (True, 'DeprecationWarning')
    """
    if name == "seed":
        warnings.warn(
            "lt.seed is deprecated and will be removed in the next release: use lt.tenxor",
            DeprecationWarning,
            stacklevel=2,
        )
        return tenxor
    raise AttributeError(f"module 'lazytensor' has no attribute {name!r}")
