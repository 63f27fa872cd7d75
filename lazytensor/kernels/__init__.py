"""The kernels: numpy arrays in, numpy arrays out. Elementwise and joining kernels (`numeric`),
reductions, scatters, the generic callable machinery (`callables`), numpy's routines, and the
thread pool that splits big ones into blocks. They know nothing of tensors."""
