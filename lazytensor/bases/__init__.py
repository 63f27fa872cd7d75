"""The bases beyond one numpy buffer: array-likes (zarr, dask, HDF5, xarray, numpy) under every view
(`arraylike`), zarr stores opened safely and read through one error path (`zarrstore`,
`zarrreads`), one write lock per stored array (`writelock`), checked memory maps (`memmap`), and
computed tensors: elementwise operations on all of them, computed when read (`computed`)."""
