"""Message passing on an edge list: gather node rows onto edges as views that explain themselves edge
by edge, and sum, average, maximise or softmax per-edge values into their target nodes.

`Edges(src, dst, num_nodes)` is PyG's `edge_index`. `edges.sources(h)` is `h[src]` (PyG's
`x_j`): a lazy list-indexed view, labelled so that `explain()` reads "edge k: s → d".
Everything is composed of public operations (`index_add`, `segment_max`, `exp`, views),
so gradients come from theirs.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt
from rich.console import Console, ConsoleOptions
from rich.table import Table
from rich.text import Text

from lazytensor.engine import optable
from lazytensor.ground.indexing import normalize_indices, read_only_window
from lazytensor.ground.layout import IndexArray, Layout
from lazytensor.ground.naming import Names
from lazytensor.ground.once import stacked
from lazytensor.ground.positions import Shape
from lazytensor.kernels.scatter import Grouping
from lazytensor.printer.escapes import printable
from lazytensor.printer.options import current_options, line_width
from lazytensor.printer.render import render_plain
from lazytensor.printer.styles import DIM, LABEL
from lazytensor.tensors.apply import apply
from lazytensor.tensors.tensor import AbstractTensor, StorageTensor
from lazytensor.tensors.views import IndexArrays, IndexedTensor, View

Buffer = npt.NDArray[Any]


def _node_ids(values: Any, num_nodes: int, what: str) -> IndexArray:
    array = np.asarray(values.numpy() if isinstance(values, AbstractTensor) else values)
    if array.ndim != 1:
        raise ValueError(f"{what} must be 1-D (one node per edge), got shape {array.shape}")
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"{what} must hold integer node ids, got dtype {array.dtype}")
    ids = normalize_indices(array.astype(np.intp), 0, num_nodes, axis_word="node axis")
    return read_only_window(ids)  # `astype` made a copy: nobody else holds it


@attrs.frozen(eq=False)
class Edges:
    """Directed edges `src[k] → dst[k]` among `num_nodes` nodes (node ids may count from the end).

    >>> import lazytensor as lt
    >>> edges = Edges([0, 1, 2], [1, 2, 1], num_nodes=3)
    >>> h = lt.tensor([[1.0], [10.0], [100.0]])
    >>> edges.sum(edges.sources(h)).tolist()          # each node: the sum of its in-neighbours
    [[0.0], [101.0], [10.0]]
    >>> print(edges.sources(h).explain((2, 0)))
    position (2, 0) of a tensor of shape (3, 1)
    layer    shape   position  parameters
    Edges    (3, 1)  (2, 0)    edge 2: 2 → 1
    Indexed  (3, 1)  (2, 0)    indices [[0, 1, 2], :]
    Storage  (3, 1)  (2, 0)    buffer of 3 × float64
    storage index 2 holds 100.0
    the fused layout (strides (1, 1), offset 0) gives 2 in one step
    """

    src: IndexArray
    dst: IndexArray
    num_nodes: int = attrs.field()
    num_sources: int = attrs.field(default=None)
    """How many nodes the sources are drawn from, when they are another set than the targets (a
    bipartite block of sampled message passing: `h` has `num_sources` rows, the result `num_nodes`);
    by default the same `num_nodes`."""
    _into_targets: Grouping = attrs.field(init=False, repr=False)
    """The edges grouped by target once, for every sum into the targets."""

    @num_nodes.validator
    def _check_count(self, attribute: attrs.Attribute[int], count: int) -> None:
        if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
            raise ValueError(f"{attribute.name} must be a non-negative integer, got {count!r}")

    @num_sources.validator
    def _check_sources(self, attribute: attrs.Attribute[int], count: int | None) -> None:
        if count is not None:
            self._check_count(attribute, count)

    def __attrs_post_init__(self) -> None:
        if self.num_sources is None:
            object.__setattr__(self, "num_sources", self.num_nodes)
        src = _node_ids(self.src, self.num_sources, "src")
        dst = _node_ids(self.dst, self.num_nodes, "dst")
        if src.shape != dst.shape:
            raise ValueError(
                f"src of shape {src.shape} and dst of shape {dst.shape} must pair up edge by edge"
            )
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "_into_targets", Grouping.of(dst, self.num_nodes))

    @property
    def count(self) -> int:
        """The number of edges."""
        return int(self.src.shape[0])

    def in_degree(self) -> IndexArray:
        """How many edges end at each node."""
        return np.bincount(self.dst, minlength=self.num_nodes)

    def into(self, node: int) -> IndexArray:
        """The ids of the edges that end at `node`."""
        return np.flatnonzero(self.dst == self._node(node))

    def _node(self, node: int) -> int:
        """`node` counted from the end when negative; TypeError for no integer (as numpy's `a[1.0]`),
        IndexError when out of range."""
        ids = np.array([operator.index(node)], dtype=np.intp)
        (checked,) = normalize_indices(ids, 0, self.num_nodes, axis_word="node axis")
        return int(checked)

    # -- views onto the edges ---------------------------------------------------------------------

    def sources(self, h: AbstractTensor) -> EdgesTensor:
        """`h[src]`, the rows each edge carries from its source (PyG's `x_j`): a view, no copy.
        `h` has a row per source node."""
        return EdgesTensor.trusted(_rows(h, self.src, self.num_sources), self, "source row")

    def targets(self, h: AbstractTensor) -> EdgesTensor:
        """`h[dst]`, the rows of each edge's target (PyG's `x_i`): a view, no copy. `h` has a row per
        target node."""
        return EdgesTensor.trusted(_rows(h, self.dst, self.num_nodes), self, "target row")

    def label(self, values: AbstractTensor, name: str = "weight") -> EdgesTensor:
        """Per-edge values (attention weights, say) as a view that explains itself edge by edge."""
        return EdgesTensor(values, self, name)

    # -- from edges into nodes ----------------------------------------------------------------------

    def sum(self, messages: AbstractTensor) -> StorageTensor:
        """`out[d]` = the sum of the messages of the edges into `d` (`segment_sum` over the targets,
        grouped once)."""
        return apply(
            optable.SEGMENT_SUM, messages, self.dst, num_segments=self.num_nodes, grouping=self._into_targets
        )

    def mean(self, messages: AbstractTensor) -> StorageTensor:
        """`out[d]` = the mean of the messages into `d`; 0 at a node that receives none."""
        degree = self.in_degree().astype(np.float64)
        inverse = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
        shape = (self.num_nodes,) + (1,) * (messages.ndim - 1)
        dtype = np.result_type(messages.dtype, np.float32)
        result: StorageTensor = self.sum(messages) * inverse.astype(dtype).reshape(shape)
        return result

    def max(self, messages: AbstractTensor) -> StorageTensor:
        """`out[d]` = the largest message into `d` (`segment_max`; not differentiable)."""
        return apply(optable.SEGMENT_MAX, messages, self.dst, num_segments=self.num_nodes)

    def softmax(self, scores: AbstractTensor) -> StorageTensor:
        """The softmax of edge scores among the edges that share a target (see `edge_softmax`)."""
        return _edge_softmax(scores, self.dst, self.num_nodes, self._into_targets)

    def explain_node(
        self,
        node: int,
        weights: AbstractTensor | None = None,
        limit: int = 20,
        *,
        weight_names: Sequence[str] | None = None,
        sources: Mapping[str, Any] | None = None,
    ) -> NodeMessages:
        """Where `node`'s messages come from: its incoming edges and, given per-edge `weights`
        (attention, say), the weight of each (one column per trailing position, headed by
        `weight_names`, such as `["head 0", "head 1"]`); `sources` adds a column per entry, the
        entry's value for each message's source node (their classes, say).

        >>> import lazytensor as lt
        >>> edges = Edges([0, 2], [1, 1], num_nodes=3)
        >>> print(edges.explain_node(1, lt.tensor([0.25, 0.75]), weight_names=["attention"],
        ...                          sources={"class": ["a", "b", "c"]}))
        node 1 receives 2 messages
        edge  from → to  class  attention
           0  0 → 1      a         0.2500
           1  2 → 1      c         0.7500
        """
        checked = self._node(node)
        if weights is not None and (weights.ndim == 0 or weights.shape[0] != self.count):
            raise ValueError(f"weights of shape {weights.shape} do not give one row per edge of {self.count}")
        columns = {name: np.asarray(values) for name, values in (sources or {}).items()}
        for name, values in columns.items():
            if values.shape[:1] != (self.num_nodes,):
                raise ValueError(
                    f"sources[{name!r}] of shape {values.shape} does not give one value per node of "
                    f"{self.num_nodes}"
                )
        return NodeMessages(self, checked, weights, limit, tuple(weight_names or ()), columns)


def edge_softmax(scores: AbstractTensor, dst: Any, num_nodes: int) -> StorageTensor:
    """The softmax of edge scores among the edges that share a target: for an edge `k` into node `d`,
    `exp(s[k]) / sum(exp(s[j]) for every edge j into d)`. `scores` is `(E,)` or `(E, heads, ...)`.

    Composed of public operations, so its gradient is theirs: the per-target maximum
    (`segment_max`, detached: it only keeps `exp` finite) gathered back to the edges and
    subtracted, `exp`, the per-target sum (`segment_sum`) gathered back, and a division.

    >>> import lazytensor as lt
    >>> edge_softmax(lt.tensor([0.0, 0.0, 5.0]), [1, 1, 0], 2).tolist()
    [0.5, 0.5, 1.0]
    """
    targets = np.asarray(dst.numpy() if isinstance(dst, AbstractTensor) else dst)
    return _edge_softmax(scores, targets, num_nodes, None)


def _edge_softmax(
    scores: AbstractTensor, targets: Any, num_nodes: int, grouping: Grouping | None
) -> StorageTensor:
    """`edge_softmax`, with the targets' grouping when an edge list has it."""
    peak = apply(optable.SEGMENT_MAX, scores.detach(), targets, num_segments=num_nodes)
    weights = (scores - peak[targets]).exp()
    total = apply(optable.SEGMENT_SUM, weights, targets, num_segments=num_nodes, grouping=grouping)
    result: StorageTensor = weights / total[targets]
    return result


def _rows(h: AbstractTensor, ids: IndexArray, count: int) -> AbstractTensor:
    """`h[ids]` for node ids already checked against `count` rows: the view made directly, with no
    copy or check of the ids, when `h` has those rows (else numpy's rules, and their errors)."""
    shape = h.shape
    if not shape or shape[0] < count:
        indexed: AbstractTensor = h[ids]
        return indexed
    return IndexedTensor.trusted(h, (ids, *[None] * (len(shape) - 1)), False)


@attrs.frozen(eq=False, repr=False, slots=False)
class EdgesTensor(View):
    """A tensor whose first axis runs over edges, labelled with them: reads, writes and gradients pass
    straight through; `explain()` names the edge of every position ("edge 5: 3 → 7").

    >>> import lazytensor as lt
    >>> edges = Edges([2, 0], [1, 1], num_nodes=3)
    >>> w = edges.label(lt.tensor([0.25, 0.75]))
    >>> w.describe_position((1,))
    'edge 1: 0 → 1, weight 0.75'
    """

    edges: Edges = attrs.field(validator=attrs.validators.instance_of(Edges))  # and `_check_rows`
    carries: str = "weight"
    """What each edge holds: "source row" or "target row" for gathered node rows, otherwise the
    name of a per-edge value shown beside the edge ("weight")."""

    @edges.validator
    def _check_rows(self, _attribute: object, edges: Edges) -> None:
        """One row per edge (`trusted` skips this: `sources` and `targets` have one by construction)."""
        if self.wrapped.ndim == 0 or self.wrapped.shape[0] != edges.count:
            raise ValueError(
                f"a tensor of shape {self.wrapped.shape} does not run over {edges.count} edges "
                "along its first axis"
            )

    @stacked
    def shape(self) -> Shape:  # a label moves nothing: base, shape and layout are the labelled tensor's
        return self.wrapped.shape

    def translate_batch(self, index_arrays: IndexArrays) -> IndexArrays:
        return index_arrays

    @stacked
    def layout(self) -> Layout | None:
        return self.wrapped.layout

    def names_of(self, names_below: Names) -> Names:
        return names_below

    def numpy_equivalent(self, below: Buffer) -> Buffer:
        return below

    def values(self) -> Buffer:
        """The values below: a label changes none, so a gathered view below is read once, as itself."""
        return self.wrapped.values()

    def numpy(self) -> Buffer:
        return self.wrapped.numpy()

    def view_of(self, below: Buffer) -> Buffer | None:
        return below

    def backward_step(self, grad: Buffer, retain: bool = False) -> list[tuple[Any, Buffer]]:
        """A label moves nothing: the gradient passes straight down."""
        return [(self.wrapped, grad)]

    def describe(self) -> str:
        edges, nodes = self.edges.count, self.edges.num_nodes
        return f"{edges:,} edges src → dst over {nodes:,} nodes, each with its {self.carries}"

    def describe_position(self, pos: Shape) -> str:
        k = pos[0]
        edge = f"edge {k}: {self.edges.src[k]} → {self.edges.dst[k]}"
        if self.carries.endswith(" row"):
            return edge
        return f"{edge}, {self.carries} {printable(str(self.get(pos)))}"


@attrs.frozen(eq=False)
class NodeMessages:
    """The edges into one node, a row each: "edge k: s → d" and the weights they carry."""

    edges: Edges
    node: int
    weights: AbstractTensor | None
    limit: int
    weight_names: tuple[str, ...] = ()
    sources: Mapping[str, Any] = attrs.Factory(dict)

    def __str__(self) -> str:
        return render_plain(self, line_width(current_options()))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        incoming = self.edges.into(self.node)
        yield Text.assemble(
            ("node ", LABEL), (str(self.node), LABEL), f" receives {len(incoming):,} messages"
        )
        table = Table(box=None, show_edge=False, pad_edge=False, header_style=DIM)
        table.add_column("edge", justify="right")
        table.add_column("from → to")
        for name in self.sources:
            table.add_column(printable(name))
        weights = None if self.weights is None else self.weights.numpy()
        columns = 0 if weights is None else int(np.prod(weights.shape[1:], dtype=np.intp))
        for column in range(columns):
            table.add_column(self._weight_name(column, columns), justify="right")
        for k in incoming[: self.limit]:
            cells = [f"{self.edges.src[k]} → {self.edges.dst[k]}"]
            cells += [printable(str(values[self.edges.src[k]])) for values in self.sources.values()]
            if weights is not None:
                cells += [f"{w:.4f}" for w in weights[k].reshape(-1)]
            table.add_row(str(k), *cells)
        yield table
        if len(incoming) > self.limit:
            yield Text(f"… {len(incoming) - self.limit:,} more edges", style=DIM)

    def _weight_name(self, column: int, columns: int) -> str:
        if column < len(self.weight_names):
            return printable(self.weight_names[column])
        return f"weight {column}" if columns > 1 else "weight"
