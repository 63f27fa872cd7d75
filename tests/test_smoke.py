import numpy as np

import lazytensor as lt


def test_transposed_view_shares_storage_and_writes_through() -> None:
    t = lt.arange(6).reshape(2, 3)
    view = t.T
    view[2, 1] = 50
    assert view.shares_storage(t)
    np.testing.assert_array_equal(t.numpy(), [[0, 1, 2], [3, 4, 50]])
