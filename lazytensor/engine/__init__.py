"""The engine: the operation table (`optable`, one entry per operation with its kernel, backward
rule and chunked form), the chunked (dask) forms, numpy's functions routed to the table, and the
reverse-mode autograd engine. It runs kernels and records graphs; it never imports a tensor class."""
