"""`lt.nn.Module` and `lt.nn.Parameter` as PyTorch's: registration by attribute, `parameters()` in
registration order and each once (shared submodules and parameters too), dotted names, children and
modules, `zero_grad`, `train`/`eval` reaching every submodule, `state_dict` round trips and
`load_state_dict`'s errors (all listed, nothing copied), the module tree's `repr`."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazytensor as lt
from lazytensor import nn


class Block(nn.Module):
    """A module with a parameter of each kind, a plain tensor, a submodule and a left-out bias."""

    def __init__(self, width: int = 2) -> None:
        super().__init__()
        self.scale = nn.Parameter(lt.ones(width))
        self.shift = lt.zeros(width, requires_grad=True)
        self.limit = lt.tensor(3.0)  # needs no gradient: a plain attribute
        self.inner = nn.Linear(width, width, seed=0)
        self.register_parameter("offset", None)

    def forward(self, x: lt.AbstractTensor) -> lt.AbstractTensor:
        return self.inner(x * self.scale + self.shift).clip(max=self.limit)


def test_assigned_parameters_and_submodules_are_registered_and_plain_values_are_not() -> None:
    block = Block()
    assert [name for name, _ in block.named_parameters()] == ["scale", "shift", "inner.weight", "inner.bias"]
    assert [name for name, _ in block.named_children()] == ["inner"]
    assert "limit" not in dict(block.named_parameters()) and block.limit.item() == 3.0
    assert block.offset is None and "offset" in dir(block) and "inner" in dir(block)
    result = (block.scale * 2).sum()
    block.product = result  # the result of an operation: a plain attribute, as in PyTorch
    assert len(list(block.parameters())) == 4 and block.product is result


def test_reassigning_a_name_moves_it_and_a_parameter_slot_takes_only_a_parameter_or_none() -> None:
    block = Block()
    block.inner = nn.Parameter(lt.zeros(1))  # a submodule's name now holds a parameter
    assert "inner" not in dict(block.named_children()) and block.inner.shape == (1,)
    block.scale = None
    assert block.scale is None and "scale" not in dict(block.named_parameters())
    with pytest.raises(TypeError, match=r"cannot assign a StorageTensor as parameter 'offset' of Block"):
        block.offset = lt.zeros(2)  # no gradient asked: not a parameter
    del block.shift
    assert [name for name, _ in block.named_parameters()] == ["inner"]
    with pytest.raises(AttributeError, match=r"'Block' object has no attribute 'shift'"):
        _ = block.shift


def test_assigning_before_init_is_refused_naming_the_fix() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(lt.ones(1))
            super().__init__()

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) is called"):
        Early()


def test_names_must_be_strings_without_dots() -> None:
    module = nn.Module()
    with pytest.raises(KeyError, match=r"without '\.'"):
        module.add_module("a.b", nn.ReLU())
    with pytest.raises(TypeError, match="must be a string"):
        module.register_parameter(3, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a Module expected"):
        module.add_module("x", lt.ones(2))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a Parameter, a leaf that requires grad, or None expected"):
        module.register_parameter("w", lt.ones(2))


def test_shared_submodules_and_parameters_are_listed_once_under_their_first_name() -> None:
    shared = nn.Linear(2, 2, seed=0)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    net.tied = nn.Parameter(shared.weight)  # the same memory, but another parameter
    net.again = shared.bias  # the same parameter object, under another name
    names = [name for name, _ in net.named_parameters()]
    assert names == ["tied", "again", "0.weight"]  # the bias was first met as `again`
    assert len({id(p) for p in net.parameters()}) == len(names)
    assert [name for name, _ in net.named_modules()] == ["", "0", "1"]
    assert list(net.children()) == [shared, net[1]]
    # a state names every parameter under every name it has, as PyTorch's
    assert list(net.state_dict()) == ["tied", "again", "0.weight", "0.bias", "2.weight", "2.bias"]


@given(widths=st.lists(st.integers(1, 4), min_size=1, max_size=5), seed=st.integers(0, 100))
def test_parameters_come_in_registration_order_depth_first(widths: list[int], seed: int) -> None:
    layers = [nn.Linear(a, b, seed=seed) for a, b in zip([3, *widths[:-1]], widths, strict=True)]
    net = nn.Sequential(*layers)
    expected = [p for layer in layers for p in (layer.weight, layer.bias)]
    assert [id(p) for p in net.parameters()] == [id(p) for p in expected]
    assert [name for name, _ in net.named_parameters()] == [
        f"{k}.{kind}" for k in range(len(layers)) for kind in ("weight", "bias")
    ]
    assert [name for name, _ in net.named_parameters(recurse=False)] == []


def test_zero_grad_sets_none_or_zeros() -> None:
    layer = nn.Linear(3, 2, seed=0)
    layer(lt.ones(4, 3)).sum().backward()
    assert layer.weight.grad is not None
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is not None and not layer.weight.grad.numpy().any()
    layer.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None


def test_train_and_eval_reach_every_submodule_and_return_the_module() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(0.5), nn.ReLU()))
    assert all(m.training for m in net.modules())
    assert net.eval() is net and not any(m.training for m in net.modules())
    assert net.train() is net and all(m.training for m in net.modules())
    net[1].eval()
    assert net.training and not net[1].training and not net[1][0].training
    with pytest.raises(TypeError, match="training mode is True or False"):
        net.train("no")  # type: ignore[arg-type]


def test_calling_a_module_calls_forward_and_a_module_without_forward_says_so() -> None:
    block = Block()
    x = lt.tensor([1.0, 2.0])
    np.testing.assert_array_equal(block(x).numpy(), block.forward(x).numpy())
    with pytest.raises(NotImplementedError, match="Module has no forward"):
        nn.Module()(x)


# -- state -----------------------------------------------------------------------------------------


def test_a_state_dict_is_detached_views_of_the_parameters_in_order() -> None:
    block = Block()
    state = block.state_dict()
    assert list(state) == ["scale", "shift", "inner.weight", "inner.bias"]
    assert all(not value.requires_grad for value in state.values())
    assert state["scale"].shares_storage(block.scale)  # as PyTorch's: clone to keep a snapshot


def test_a_state_dict_round_trips_through_another_module_and_pickle() -> None:
    trained, fresh = Block(), Block()
    with lt.no_grad():
        trained.scale.copy_([5.0, 6.0])
        trained.inner.weight.copy_([[1.0, 2.0], [3.0, 4.0]])
    snapshot = {name: value.clone() for name, value in trained.state_dict().items()}
    restored = pickle.loads(pickle.dumps(snapshot))
    assert fresh.load_state_dict(restored) == nn.IncompatibleKeys([], [])
    for name, value in fresh.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), trained.state_dict()[name].numpy())
    x = lt.tensor([0.5, -1.0])
    np.testing.assert_array_equal(fresh(x).numpy(), trained(x).numpy())
    assert fresh.scale.requires_grad and fresh.scale.is_leaf  # loaded in place: the same parameters


def test_loading_copies_in_place_casting_numpy_arrays_and_lists() -> None:
    layer = nn.Linear(2, 1, seed=0)
    weight = layer.weight
    layer.load_state_dict({"weight": np.array([[1, 2]]), "bias": [0.5]})
    assert layer.weight is weight and weight.dtype == np.float64 and weight.tolist() == [[1.0, 2.0]]
    assert layer.bias.tolist() == [0.5]


def test_load_state_dict_lists_every_problem_and_copies_nothing() -> None:
    layer = nn.Linear(2, 2, seed=0)
    before = {name: value.clone().numpy() for name, value in layer.state_dict().items()}
    bad = {"weight": lt.zeros(3, 2), "extra": lt.zeros(1), "other": lt.zeros(1)}
    with pytest.raises(nn.StateDictError) as caught:
        layer.load_state_dict(bad)
    assert str(caught.value) == (
        "Error(s) in loading state_dict for Linear:\n"
        '\tMissing key(s) in state_dict: "bias".\n'
        '\tUnexpected key(s) in state_dict: "extra", "other".\n'
        "\tsize mismatch for weight: copying a param with shape (3, 2) from checkpoint, "
        "the shape in current model is (2, 2)."
    )
    assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, ValueError)
    for name, value in layer.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[name])


def test_load_state_dict_not_strict_returns_the_keys_but_still_refuses_a_shape() -> None:
    layer = nn.Linear(2, 2, seed=0)
    keys = layer.load_state_dict({"weight": lt.ones(2, 2), "extra": lt.zeros(1)}, strict=False)
    assert keys == nn.IncompatibleKeys(missing_keys=["bias"], unexpected_keys=["extra"])
    assert layer.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(nn.StateDictError, match=r"size mismatch for bias: copying a param with shape \(3,\)"):
        layer.load_state_dict({"bias": lt.zeros(3)}, strict=False)


def test_a_value_that_cannot_be_cast_is_refused_before_anything_is_copied() -> None:
    layer = nn.Linear(1, 1, seed=0)
    weight = layer.weight.tolist()
    with pytest.raises(ValueError, match="could not convert"):
        layer.load_state_dict({"weight": [[1.0]], "bias": np.array(["x"])})
    assert layer.weight.tolist() == weight


# -- Parameter -------------------------------------------------------------------------------------


def test_a_parameter_shares_a_storage_tensors_memory_and_copies_anything_else() -> None:
    base = lt.arange(6.0)
    shared = nn.Parameter(base)
    assert shared.shares_storage(base) and shared.requires_grad and shared.is_leaf
    with lt.no_grad():
        shared[0] = 9.0
    assert base[0] == 9.0
    view = base.reshape(2, 3).T
    copied = nn.Parameter(view)
    assert copied.shape == (3, 2) and not copied.shares_storage(base)
    np.testing.assert_array_equal(copied.numpy(), view.numpy())
    assert nn.Parameter([[1.0, 2.0]]).shape == (1, 2)
    frozen = nn.Parameter(lt.arange(3), requires_grad=False)
    assert not frozen.requires_grad and isinstance(frozen, lt.StorageTensor)


def test_a_parameter_of_integers_cannot_require_grad() -> None:
    with pytest.raises(TypeError, match="only floating and complex tensors can require gradients"):
        nn.Parameter(lt.arange(3))


def test_a_deep_copied_module_learns_on_its_own() -> None:
    block = Block()
    twin = copy.deepcopy(block)
    assert isinstance(twin.scale, nn.Parameter) and twin.scale.requires_grad
    assert not twin.scale.shares_storage(block.scale)
    with lt.no_grad():
        twin.scale.fill_(0.0)
    assert block.scale.tolist() == [1.0, 1.0]


# -- repr ------------------------------------------------------------------------------------------


def test_the_repr_is_pytorchs_module_tree() -> None:
    net = nn.Sequential(nn.Linear(4, 3), nn.Sequential(nn.ReLU(), nn.Dropout(0.25)), nn.Embedding(10, 3))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=4, out_features=3, bias=True)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Dropout(p=0.25)\n"
        "  )\n"
        "  (2): Embedding(10, 3)\n"
        ")"
    )
    assert repr(Block()) == "Block(\n  (inner): Linear(in_features=2, out_features=2, bias=True)\n)"


def test_a_module_pickles_with_its_parameters() -> None:
    block = Block()
    again: Any = pickle.loads(pickle.dumps(block))
    assert [name for name, _ in again.named_parameters()] == [name for name, _ in block.named_parameters()]
    assert again.scale.requires_grad and isinstance(again.scale, nn.Parameter)
    np.testing.assert_array_equal(again(lt.ones(2)).numpy(), block(lt.ones(2)).numpy())
