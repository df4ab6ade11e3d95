"""RowMemo and FantasyMemo: each distinct input computed once, values unchanged (known answers by hand)."""

import numpy as np
import pytest

from tt_core.acquisitions.memo import FantasyMemo, RowMemo


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


class _Counting:
    """A stand-in model: a fantasy appends the points; a prediction is the sum of the targets plus X's first column."""

    def __init__(self, y=(), log=None):
        self.y, self.log = list(y), [] if log is None else log

    def fantasize(self, X_new, y_new):
        self.log.append(("fit", len(self.y), float(np.asarray(y_new)[0])))
        return _Counting(self.y + list(np.asarray(y_new, dtype=float)), self.log)

    def predict(self, X, return_std=False):
        self.log.append(("predict", len(self.y)))
        mean = np.asarray(X, dtype=float)[:, 0] + sum(self.y)
        return (mean, np.ones(len(mean))) if return_std else mean


def test_a_fantasy_is_fitted_once_per_parent_and_exact_inputs():
    log = []
    memo = FantasyMemo()
    root = memo.wrap(_Counting(log=log))
    x = np.array([[0.5, 1.0]])
    a = root.fantasize(x, [2.0])
    b = root.fantasize(x, np.array([2.0]))         # same bytes: the model fitted first
    assert b is a and b.model.y == [2.0]
    c = root.fantasize(x, [-0.0])                  # -0.0 and 0.0 are different inputs (different bytes)
    d = root.fantasize(x, [0.0])
    assert c is not d
    e = a.fantasize(x, [2.0])                      # another parent: a fit of its own
    assert e is not a and e.model.y == [2.0, 2.0]
    assert root.fantasize(np.array([[0.5, 0.75]]), [2.0]) is not a  # another point
    assert (memo.n_fits, memo.n_reused) == (5, 1)
    assert [entry for entry in log if entry[0] == "fit"] == [("fit", 0, 2.0), ("fit", 0, -0.0), ("fit", 0, 0.0),
                                                              ("fit", 1, 2.0), ("fit", 0, 2.0)]


def test_a_prediction_is_computed_once_per_exact_input_and_handed_out_read_only():
    log = []
    memo = FantasyMemo()
    m = memo.wrap(_Counting(y=[1.0, 2.0], log=log)).fantasize(np.zeros((1, 2)), [4.0])
    X = np.array([[0.25, 0.0], [0.5, 0.0]])
    mean, sd = m.predict(X, return_std=True)
    np.testing.assert_array_equal(mean, [7.25, 7.5])   # 1 + 2 + 4 + x0
    again = m.predict(X.copy(), return_std=True)
    assert again[0] is mean and again[1] is sd
    np.testing.assert_array_equal(m.predict(X), [7.25, 7.5])  # without the std: another call
    assert log.count(("predict", 3)) == 2
    assert (memo.n_predicted, memo.n_predictions_reused) == (2, 1)
    with pytest.raises(ValueError, match="read-only"):
        mean[0] = 0.0
