"""`lt.nn`: PyTorch's modules (`Module`, `Linear`, `Sequential`, `ReLU`, `Dropout`, `Embedding`), the
graph layers of PyTorch Geometric (`GCNConv`, `GATConv`, `SAGEConv`, `SGConv`, `APPNP`), message passing
on an edge list (`Edges`, the graph networks' building block), and the functions a small network needs
beyond the operators (`functional`)."""

from lazytensor.nn import functional
from lazytensor.nn.functional import (
    cross_entropy,
    dropout,
    dropout_mask,
    edge_softmax,
    elu,
    gather,
    glorot_uniform,
    leaky_relu,
    log_softmax,
    softmax,
)
from lazytensor.nn.graph_layers import APPNP, GATConv, GCNConv, SAGEConv, SGConv
from lazytensor.nn.layers import Dropout, Embedding, Linear, ReLU, Sequential
from lazytensor.nn.message_passing import Edges
from lazytensor.nn.module import IncompatibleKeys, Module, Parameter, StateDictError
from lazytensor.nn.propagation import Propagation, add_self_loops, gcn_norm

__all__ = [
    "APPNP",
    "Dropout",
    "Edges",
    "Embedding",
    "GATConv",
    "GCNConv",
    "IncompatibleKeys",
    "Linear",
    "Module",
    "Parameter",
    "Propagation",
    "ReLU",
    "SAGEConv",
    "SGConv",
    "Sequential",
    "StateDictError",
    "add_self_loops",
    "cross_entropy",
    "dropout",
    "dropout_mask",
    "edge_softmax",
    "elu",
    "functional",
    "gather",
    "gcn_norm",
    "glorot_uniform",
    "leaky_relu",
    "log_softmax",
    "softmax",
]
