"""The public functions that make and save tensors and run the table on them: creation, files
(`load`, `save`, `open`, `from_array`) and the table's functions (`lt.where`, `lt.ttransform`, ...).
`lazytensor/__init__.py` re-exports them; they compose the floors below."""
