"""tri_solve: hand-computed case, and identical (to the bit) to scipy.linalg.solve_triangular on stacks."""

import numpy as np
import pytest
import scipy.linalg as sla

from tt_core.models.linalg import tri_solve


def test_hand_computed_two_by_two():
    L = np.array([[[2.0, 0.0], [1.0, 4.0]]])
    b = np.array([[[4.0], [10.0]]])
    # L x = b: x0 = 2, x1 = (10 - 2) / 4 = 2;  L^T y = b: y1 = 10 / 4 = 2.5, y0 = (4 - 2.5) / 2 = 0.75
    np.testing.assert_allclose(tri_solve(L, b)[0, :, 0], [2.0, 2.0])
    np.testing.assert_allclose(tri_solve(L, b, trans=True)[0, :, 0], [0.75, 2.5])


@pytest.mark.parametrize("M, n, k", [(12, 44, 1), (5, 9, 7), (1, 3, 2)])
def test_identical_to_scipy_on_stacks_and_broadcast_right_hand_sides(M, n, k):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((M, n, n))
    L = np.linalg.cholesky(A @ A.transpose(0, 2, 1) + n * np.eye(n))
    B = rng.standard_normal((M, n, k))
    for trans in (0, 1):
        ref = sla.solve_triangular(L, B, lower=True, trans=trans, check_finite=False)
        assert np.array_equal(tri_solve(L, B, trans=bool(trans)), ref)
    r = np.broadcast_to(rng.standard_normal(n), (M, n))[..., None]
    assert np.array_equal(tri_solve(L, r), sla.solve_triangular(L, r, lower=True, check_finite=False))
    U = L.transpose(0, 2, 1)  # an upper-triangular, non-C-ordered stack
    assert np.array_equal(tri_solve(U, B, lower=False), sla.solve_triangular(U, B, lower=False, check_finite=False))


def test_errors():
    with pytest.raises(ValueError, match="shape"):
        tri_solve(np.eye(3), np.ones((2, 1)))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        tri_solve(np.zeros((1, 2, 2)), np.ones((1, 2, 1)))
