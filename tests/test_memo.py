"""RowMemo: each distinct candidate row is computed once, values unchanged (known answers by hand)."""

import numpy as np
import pytest

from tt_core.acquisitions.memo import RowMemo


def test_each_distinct_row_is_computed_once_and_values_are_the_function_s():
    seen = []

    def f(X):
        seen.extend(map(tuple, X))
        return X[:, 0] * 10 + X[:, 1]  # hand-checkable values

    memo = RowMemo(f)
    A = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    np.testing.assert_array_equal(memo(A), [12.0, 34.0, 12.0])
    B = np.array([[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(memo(B), [34.0, 56.0])
    assert seen == [(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)]  # duplicates and repeats not recomputed
    assert memo.n_computed == 3
    np.testing.assert_array_equal(memo(A[:0]), [])


def test_wrong_shapes_are_refused():
    with pytest.raises(ValueError, match="callable"):
        RowMemo(3)
    with pytest.raises(ValueError, match="2-D"):
        RowMemo(lambda X: X[:, 0])(np.zeros(3))
    with pytest.raises(ValueError, match="shape"):
        RowMemo(lambda X: np.zeros(len(X) + 1))(np.zeros((2, 2)))
