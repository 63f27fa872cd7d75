"""The ground floor: positions, the strided `Layout`, index keys, dtypes, buffers, names, keywords,
the tensor protocol. Pure functions and small types; nothing here imports another floor."""
