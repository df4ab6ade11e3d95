"""The one check of a run's seed (as scikit-learn's ``check_random_state`` is its one check of a random
state): every seeded component of the package validates its ``seed`` here, with the same message."""

from __future__ import annotations

import numpy as np

from tt_core.data.io import shown


def check_seed(seed, name: str = "seed") -> int:
    """``seed`` as a Python int, if it is a non-negative integer (a bool is not); else a ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> check_seed(3), check_seed(np.int64(7))
    (3, 7)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{name} must be a non-negative integer (same seed, same run), got {shown(seed)}")
    return int(seed)
