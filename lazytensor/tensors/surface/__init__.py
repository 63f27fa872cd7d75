"""The user-facing surface of a tensor, one mixin per job; `AbstractTensor` (in `tensor.py`) inherits
them all, implements the protocol, and binds the primitives they name (declared on `base.Surface`).

- `display.Display`: printing, rich and Jupyter, `summary`, `explain()`; no primitive (the printer
  reads the protocol).
- `standard.ArrayAPI`: the array API namespace, device and DLPack; `numpy()`.
- `collection.DaskCollection`: dask's collection protocol, `compute()`; `base` (it builds the lazy array).
- `gradients.Gradients`: `requires_grad`, `grad`, `grad_fn`, `backward`, `detach`; `base` (its
  gradient state).
- `shaping.Shaping`: the views (`permute`, `reshape`, `t[key]`, `split`, ...); `_views`, the view
  constructors.
- `naming.Naming`: named axes (`names`, `rename`, `isel`); `_views`.
- `operators.Operators`: operators and elementwise functions; `_apply`, one entry of the table.
- `reducing.Reductions`: `sum`, `mean`, `max`, `std`, the NaN-ignoring ones, `cumsum`; `_apply`.
- `arrays.ArrayMethods`: sorting and numpy's names (`copy`, `take`, `put`, `diagonal`, ...); `_apply`.
- `casts.Casts`: PyTorch's casts by name (`float()`, `double()`, `long()`, `int()`, `bool()`,
  `half()`), in a module of their own since the names are builtins'; `_apply`.
- `inplace.InPlace`: `t += x` and PyTorch's `add_`, `zero_`, `copy_`, ...; `_apply`, then
  `evaluate`'s write.
- `numbers.Numbers`: a one-element tensor as a number, `size`, `nbytes`; `numpy()`.

None of these modules imports `tensor` or `views` at run time (only for annotations): the
primitives are bound on `AbstractTensor`, so the package keeps its one mutual import.
"""
