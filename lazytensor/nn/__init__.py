"""`lt.nn`: the pieces a small neural network needs beyond the operators (`functional`) and message
passing on an edge list (`message_passing`), the graph networks' building block."""

from lazytensor.nn.functional import (
    Edges,
    cross_entropy,
    dropout,
    dropout_mask,
    edge_softmax,
    elu,
    glorot_uniform,
    leaky_relu,
)

__all__ = [
    "Edges",
    "cross_entropy",
    "dropout",
    "dropout_mask",
    "edge_softmax",
    "elu",
    "glorot_uniform",
    "leaky_relu",
]
