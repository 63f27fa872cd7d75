"""The array API standard's namespace (2024.12): its data types, its elementwise functions and the
rest of its functions, re-exported at the top of `lazytensor`, which is the namespace itself."""
