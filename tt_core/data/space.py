"""Configuration space: encoding (configuration, training-set size) pairs into [0, 1]^(d+1).

TrimTuner (paper Sec. III, Alg. 1) searches a finite set of configurations ``x`` (cloud + training
hyper-parameters) at a finite set of training-set sizes ``s``. The models work on encoded inputs::

    X = [u_1(x), ..., u_d(x), s~]   with every entry in [0, 1]

* numeric configuration columns are scaled linearly to [0, 1], or on a log scale when their values
  span a decade or more (``max / min >= 10`` and ``min > 0``), e.g. learning rate 1e-5..1e-3,
  number of workers 1..80, batch size 16..256;
* categorical columns are ordinal: category ``j`` of ``k`` (in sorted order, or an order given by the
  caller) is encoded as ``j / (k - 1)``; a column with a single value encodes to 0;
* the size is encoded as ``s~ = (log2 s - log2 s_min) / (log2 s_max - log2 s_min)`` (Klein et al., AISTATS 2017,
  FABOLAS' log-scaled size), with ``s_min`` and ``s_max`` taken from the data, so ``s~ = 1`` is the
  full training set. With a single size, ``s~ = 1``.

:class:`CandidatePool` tracks which (configuration, size) pairs have been tested (Alg. 1, set T).

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* The original hard-codes the MNIST sizes and never removes the initial-design points from the pool
  of untested configurations. Here sizes come from the data and
  :meth:`CandidatePool.mark_tested` removes every tested pair (testing a pair twice is an error).
* Categorical values are ordinal codes scaled to [0, 1] rather than raw indices; for AWS t2 VM flavours
  the default order is by machine size (``t2.small < t2.medium < t2.xlarge < t2.2xlarge``) instead of
  alphabetical.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from tt_core.data.io import shown

#: Default orders of known categorical columns, used when a column's values are all listed here.
DEFAULT_CATEGORICAL_ORDERS: dict[str, tuple[Any, ...]] = {
    "vm_flavor": ("t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge"),
}

#: A numeric column whose values satisfy ``max / min >= LOG_RATIO`` (and ``min > 0``) is log-scaled.
LOG_RATIO = 10.0


@dataclass(frozen=True)
class ColumnEncoding:
    """How one configuration column maps to [0, 1].

    Attributes
    ----------
    name : str
        Column name.
    kind : {"linear", "log", "categorical"}
        Encoding type.
    low, high : float or None
        Smallest and largest value of a numeric column (``None`` for categorical columns).
    categories : tuple or None
        Ordered categories of a categorical column (``None`` for numeric columns).
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    categories: tuple[Any, ...] | None = None

    def encode(self, values) -> np.ndarray:
        """Encode raw values into [0, 1].

        Parameters
        ----------
        values : array-like of shape (n,)

        Returns
        -------
        ndarray of shape (n,)
        """
        if self.kind == "categorical":
            values = plain_values(pd.Series(np.asarray(values, dtype=object).ravel(), dtype=object))
        values = np.asarray(values, dtype=object if self.kind == "categorical" else float).ravel()
        if self.kind == "categorical":
            codes = {c: j for j, c in enumerate(self.categories)}
            unknown = sorted({str(v) for v in values if v not in codes})
            if unknown:
                raise ValueError(
                    f"column {shown(self.name)}: unknown value(s) {unknown}; known values: {list(self.categories)}"
                )
            k = len(self.categories)
            j = np.array([codes[v] for v in values], dtype=float)
            return j / (k - 1) if k > 1 else np.zeros_like(j)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"column {shown(self.name)}: values must be finite numbers")
        if self.high == self.low:
            return np.zeros_like(values)
        if self.kind == "log":
            if np.any(values <= 0):
                raise ValueError(f"column {shown(self.name)} is log-scaled; its values must be > 0")
            return (np.log(values) - np.log(self.low)) / (np.log(self.high) - np.log(self.low))
        return (values - self.low) / (self.high - self.low)

    def decode(self, u) -> np.ndarray:
        """Map encoded values back to raw values (categorical: nearest category).

        Parameters
        ----------
        u : array-like of shape (n,)

        Returns
        -------
        ndarray of shape (n,) (dtype object for categorical columns)
        """
        u = np.asarray(u, dtype=float).ravel()
        if self.kind == "categorical":
            k = len(self.categories)
            j = np.clip(np.rint(u * (k - 1)), 0, k - 1).astype(int) if k > 1 else np.zeros(u.shape, int)
            return np.array([self.categories[i] for i in j], dtype=object)
        if self.high == self.low:
            return np.full(u.shape, self.low, dtype=float)
        if self.kind == "log":
            return np.exp(np.log(self.low) + u * (np.log(self.high) - np.log(self.low)))
        return self.low + u * (self.high - self.low)


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def plain_values(series: pd.Series) -> list:
    """A configuration column as plain Python values, as a job receives them: a missing value (``None``,
    NaN, ``pd.NA``) is ``None`` (scikit-learn's ``max_depth=None``), numpy scalars are Python ``int``/``float``,
    and a column of whole numbers that pandas turned into floats because it also holds ``None`` gives ``int`` s
    again (``[2, 4, None]`` is stored as ``[2.0, 4.0, nan]``)."""
    missing = series.isna().to_numpy()
    whole = bool(missing.any()) and series.dtype.kind == "f" and bool((series.dropna() % 1 == 0).all())
    out = []
    for v, gone in zip(series.tolist(), missing):
        if gone:
            out.append(None)
        elif whole:
            out.append(int(v))
        else:
            out.append(v.item() if hasattr(v, "item") else v)
    return out


def _natural_key(v):
    """Order of a mixed column's values: numbers ascending, then text, then ``None`` (e.g. ``max_depth``: 2, 4,
    None = unlimited)."""
    if v is None:
        return (2, 0.0, "")
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def _column_encoding(name: str, series: pd.Series, order: Sequence[Any] | None) -> ColumnEncoding:
    if series.isna().any():  # None is a value (scikit-learn's max_depth=None): the column becomes ordinal
        series = pd.Series(plain_values(series), dtype=object)
        if order is None:
            return ColumnEncoding(name, "categorical", categories=tuple(sorted(set(series), key=_natural_key)))
    values = series.unique()
    if order is not None:
        order = tuple(order)
        if len(set(order)) != len(order):
            raise ValueError(f"categorical_order[{shown(name)}] lists a value twice: {list(order)}")
        known = set(order)
        missing = sorted({str(v) for v in values if v not in known})
        if missing:
            raise ValueError(
                f"categorical_order[{shown(name)}] lacks value(s) {missing} that occur in the table; "
                f"list every value of the column"
            )
        return ColumnEncoding(name, "categorical", categories=order)
    if _is_numeric(series):
        vals = series.to_numpy(dtype=float)
        if not np.all(np.isfinite(vals)):
            raise ValueError(f"configuration column {shown(name)} has non-finite values")
        lo, hi = float(vals.min()), float(vals.max())
        kind = "log" if lo > 0 and hi / lo >= LOG_RATIO else "linear"
        return ColumnEncoding(name, kind, low=lo, high=hi)
    default = DEFAULT_CATEGORICAL_ORDERS.get(name)
    if default is not None and set(values) <= set(default):
        return ColumnEncoding(name, "categorical", categories=tuple(v for v in default if v in set(values)))
    try:
        cats = tuple(sorted(values))
    except TypeError:  # mixed types (max_features 0.5, "sqrt"): numbers first, then text
        cats = tuple(sorted(values, key=_natural_key))
    return ColumnEncoding(name, "categorical", categories=cats)


class ConfigSpace:
    """Finite configuration space with encoded inputs ``X = [u(x), s~]`` in [0, 1]^(d+1).

    Build it with :meth:`from_table` or :meth:`from_benchmark`; the constructor takes already
    validated parts.

    Parameters
    ----------
    configs : pandas.DataFrame
        One row per configuration: ``config_id`` and the configuration columns.
    encodings : sequence of ColumnEncoding
        One per configuration column, in column order.
    sizes : sequence of int
        Training-set sizes (positive), sorted.
    pairs : tuple of ndarray, optional
        ``(config_ids, sizes)`` of the measurable pairs; default all configurations x all sizes.
    """

    def __init__(self, configs: pd.DataFrame, encodings: Sequence[ColumnEncoding], sizes: Sequence[int],
                 pairs: tuple[np.ndarray, np.ndarray] | None = None):
        self.encodings = tuple(encodings)
        self.config_columns = tuple(e.name for e in self.encodings)
        configs = configs.sort_values("config_id").reset_index(drop=True)
        self._configs = configs[["config_id", *self.config_columns]].copy()
        for c in self.config_columns:  # a missing value is the value None (max_depth=None), in a column of objects
            if self._configs[c].isna().any():
                self._configs[c] = pd.Series(plain_values(self._configs[c]), dtype=object)
        self.config_ids = configs["config_id"].to_numpy(dtype=np.int64)
        self._row_of = pd.Index(self.config_ids)
        self.sizes = tuple(int(s) for s in sorted(sizes))
        if not self.sizes or self.sizes[0] <= 0:
            raise ValueError(f"sizes must be positive integers, got {list(sizes)}")
        self.min_size, self.max_size = self.sizes[0], self.sizes[-1]
        self._U = np.column_stack(
            [e.encode(self._configs[e.name].to_numpy()) for e in self.encodings]
        ) if self.encodings else np.zeros((len(self.config_ids), 0))
        if pairs is None:
            ids = np.repeat(self.config_ids, len(self.sizes))
            szs = np.tile(np.asarray(self.sizes, dtype=np.int64), len(self.config_ids))
            pairs = (ids, szs)
        self._pairs = (np.asarray(pairs[0], dtype=np.int64), np.asarray(pairs[1], dtype=np.int64))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_table(cls, table: pd.DataFrame, config_columns: Sequence[str], sizes: Iterable[int] | None = None,
                   categorical_order: Mapping[str, Sequence[Any]] | None = None) -> "ConfigSpace":
        """Build the space from a benchmark table.

        Parameters
        ----------
        table : pandas.DataFrame
            One row per (configuration, size) with columns ``config_id``, ``size`` and
            ``config_columns``.
        config_columns : sequence of str
            Configuration columns, in the order of the encoded dimensions.
        sizes : iterable of int, optional
            All training-set sizes (default: the sizes present in ``table``); ``s_min`` and ``s_max``
            of the size encoding are the smallest and largest of them.
        categorical_order : mapping of str to sequence, optional
            Explicit order of the values of a column, which is then encoded as ordinal even if numeric.
            Without it, non-numeric columns use :data:`DEFAULT_CATEGORICAL_ORDERS` when it lists all
            their values, else sorted order.

        Returns
        -------
        ConfigSpace
        """
        config_columns = list(config_columns)
        categorical_order = dict(categorical_order or {})
        if not isinstance(table, pd.DataFrame):
            raise ValueError(f"table must be a pandas DataFrame, got {type(table).__name__}")
        if not config_columns:
            raise ValueError("config_columns is empty; name at least one configuration column")
        if len(set(config_columns)) != len(config_columns):
            raise ValueError(f"config_columns lists a column twice: {config_columns}")
        needed = ["config_id", "size", *config_columns]
        missing = [c for c in needed if c not in table.columns]
        if missing:
            raise ValueError(f"table lacks column(s) {missing}; it has {list(table.columns)}")
        unknown = sorted(set(categorical_order) - set(config_columns))
        if unknown:
            raise ValueError(f"categorical_order names unknown column(s) {unknown}; config columns: {config_columns}")
        if len(table) == 0:
            raise ValueError("table is empty; the configuration space needs at least one row")
        ids = table["config_id"]
        if not pd.api.types.is_integer_dtype(ids):
            raise ValueError("column 'config_id' must hold integers")
        configs = table[["config_id", *config_columns]].drop_duplicates()
        if configs["config_id"].duplicated().any():
            bad = int(configs.loc[configs["config_id"].duplicated(), "config_id"].iloc[0])
            raise ValueError(
                f"config_id {bad} has rows with different configuration values; each config_id must name "
                f"one configuration"
            )
        if configs.duplicated(config_columns).any():
            raise ValueError("two config_ids have the same configuration values; give each configuration one id")
        tsizes = table["size"].to_numpy()
        if not (pd.api.types.is_numeric_dtype(table["size"]) and np.all(tsizes > 0)
                and np.all(tsizes == np.round(tsizes))):
            raise ValueError("column 'size' must hold positive integers (training-set sizes)")
        table_sizes = sorted({int(s) for s in tsizes})
        if sizes is None:
            sizes = table_sizes
        else:
            sizes = sorted({int(s) for s in sizes})
            extra = sorted(set(table_sizes) - set(sizes))
            if extra:
                raise ValueError(f"table has size(s) {extra} not listed in sizes={sizes}; list every size")
        dup = table.duplicated(["config_id", "size"])
        if dup.any():
            raise ValueError("table has duplicate (config_id, size) rows; keep one row per configuration and size")
        encodings = [_column_encoding(c, configs[c], categorical_order.get(c)) for c in config_columns]
        order = np.lexsort((tsizes, ids.to_numpy()))
        pairs = (ids.to_numpy()[order], tsizes[order].astype(np.int64))
        return cls(configs, encodings, sizes, pairs)

    @classmethod
    def from_benchmark(cls, benchmark, categorical_order: Mapping[str, Sequence[Any]] | None = None) -> "ConfigSpace":
        """Build the space of a :class:`tt_core.data.benchmarks.Benchmark` (its table, columns and sizes)."""
        return cls.from_table(benchmark.table, benchmark.config_columns, benchmark.sizes, categorical_order)

    # ------------------------------------------------------------------ properties
    @property
    def dim(self) -> int:
        """Number of configuration dimensions ``d`` (encoded inputs have ``d + 1`` columns)."""
        return len(self.encodings)

    @property
    def n_configs(self) -> int:
        return len(self.config_ids)

    @property
    def configs(self) -> pd.DataFrame:
        """One row per configuration (``config_id`` + configuration columns), sorted by id (a copy)."""
        return self._configs.copy()

    @property
    def encoded_configs(self) -> np.ndarray:
        """Encoded configurations ``u(x)``, shape (n_configs, d), rows in ``config_ids`` order (a copy)."""
        return self._U.copy()

    def __repr__(self) -> str:
        cols = ", ".join(f"{e.name}:{e.kind}" for e in self.encodings)
        return f"ConfigSpace({self.n_configs} configs [{cols}], sizes={list(self.sizes)})"

    # ------------------------------------------------------------------ encoding
    def size_to_s(self, sizes) -> np.ndarray:
        """Encode sizes: ``s~ = (log2 s - log2 s_min) / (log2 s_max - log2 s_min)``.

        Parameters
        ----------
        sizes : array-like of int
            Sizes in ``[s_min, s_max]``.

        Returns
        -------
        ndarray of float in [0, 1]; 1 for every size when the space has a single size.
        """
        s = np.asarray(sizes, dtype=float)
        if not np.all(np.isfinite(s)) or np.any(s < self.min_size) or np.any(s > self.max_size):
            raise ValueError(
                f"sizes must lie in [{self.min_size}, {self.max_size}] (the smallest and largest size of the "
                f"data), got min {np.nanmin(s) if s.size else None}, max {np.nanmax(s) if s.size else None}"
            )
        if self.max_size == self.min_size:
            return np.ones_like(s)
        return (np.log2(s) - np.log2(self.min_size)) / (np.log2(self.max_size) - np.log2(self.min_size))

    def s_to_size(self, s) -> np.ndarray:
        """Inverse of :meth:`size_to_s` (float sizes; round to compare with :attr:`sizes`)."""
        s = np.asarray(s, dtype=float)
        if self.max_size == self.min_size:
            return np.full(s.shape, float(self.max_size))
        return 2.0 ** (np.log2(self.min_size) + s * (np.log2(self.max_size) - np.log2(self.min_size)))

    def rows_of(self, config_ids) -> np.ndarray:
        """Row positions (into :attr:`config_ids`) of configuration ids; unknown ids raise ValueError."""
        ids = np.asarray(config_ids).ravel()
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            if not np.all(np.asarray(ids, float) == np.round(np.asarray(ids, float))):
                raise ValueError("config_ids must be integers")
            ids = ids.astype(np.int64)
        rows = self._row_of.get_indexer(ids)
        if np.any(rows < 0):
            bad = ids[rows < 0][:5].tolist()
            raise ValueError(
                f"unknown config_id(s) {bad}; known ids are {self.config_ids.min()}..{self.config_ids.max()} "
                f"({self.n_configs} configurations)"
            )
        return rows

    def encode(self, config_ids, sizes) -> np.ndarray:
        """Encoded inputs of (configuration, size) pairs.

        Parameters
        ----------
        config_ids : array-like of int, shape (n,)
        sizes : array-like of int, shape (n,) or scalar
            Training-set sizes in ``[s_min, s_max]``.

        Returns
        -------
        X : ndarray of shape (n, d + 1)
            Columns ``0..d-1`` the encoded configuration, last column ``s~``.
        """
        rows = self.rows_of(config_ids)
        s = np.broadcast_to(np.asarray(sizes), rows.shape) if np.ndim(sizes) == 0 else np.asarray(sizes).ravel()
        if s.shape != rows.shape:
            raise ValueError(f"config_ids and sizes must have the same length, got {rows.shape[0]} and {s.shape[0]}")
        return np.column_stack([self._U[rows], self.size_to_s(s)])

    def encode_values(self, values: pd.DataFrame) -> np.ndarray:
        """Encode raw configuration values (a DataFrame with the configuration columns) to ``u(x)``."""
        missing = [c for c in self.config_columns if c not in values.columns]
        if missing:
            raise ValueError(f"values lack configuration column(s) {missing}")
        return np.column_stack([e.encode(values[e.name].to_numpy()) for e in self.encodings])

    def decode(self, X) -> pd.DataFrame:
        """Decode encoded inputs back to raw values (inverse of :meth:`encode`).

        Parameters
        ----------
        X : array-like of shape (n, d + 1)

        Returns
        -------
        pandas.DataFrame
            The configuration columns (categorical: nearest category; numeric: inverse scaling) and
            ``size`` (float, inverse of the size encoding).
        """
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim + 1:
            raise ValueError(f"X must have shape (n, {self.dim + 1}), got {X.shape}")
        out = {e.name: e.decode(X[:, j]) for j, e in enumerate(self.encodings)}
        out["size"] = self.s_to_size(X[:, -1])
        return pd.DataFrame(out)

    def nearest_config(self, U) -> np.ndarray:
        """Config ids whose encodings are nearest (Euclidean) to rows of ``U`` of shape (n, d)."""
        U = np.atleast_2d(np.asarray(U, dtype=float))
        d2 = ((U[:, None, :] - self._U[None, :, :]) ** 2).sum(-1)
        return self.config_ids[np.argmin(d2, axis=1)]

    # ------------------------------------------------------------------ sets of pairs
    def all_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """All measurable ``(config_ids, sizes)`` pairs, sorted by configuration then size."""
        return self._pairs[0].copy(), self._pairs[1].copy()

    def full_size_X(self) -> np.ndarray:
        """Encoded inputs of every configuration at the full size (``s~ = 1``), rows in ``config_ids`` order."""
        return np.column_stack([self._U, np.ones(self.n_configs)])

    def pool(self) -> "CandidatePool":
        """A fresh :class:`CandidatePool` over :meth:`all_pairs` (nothing tested yet)."""
        return CandidatePool(*self.all_pairs())


class CandidatePool:
    """The set T of untested (configuration, size) pairs (paper Alg. 1, lines 2, 9 and 17).

    Parameters
    ----------
    config_ids, sizes : array-like of int, shape (n,)
        All candidate pairs (each pair once).
    """

    def __init__(self, config_ids, sizes):
        ids = np.asarray(config_ids, dtype=np.int64).ravel()
        szs = np.asarray(sizes, dtype=np.int64).ravel()
        if ids.shape != szs.shape:
            raise ValueError(f"config_ids and sizes must have the same length, got {ids.size} and {szs.size}")
        self._ids, self._sizes = ids, szs
        self._index = {(int(c), int(s)): i for i, (c, s) in enumerate(zip(ids, szs))}
        if len(self._index) != ids.size:
            raise ValueError("the candidate pairs contain duplicates; list each (config_id, size) once")
        self._tested = np.zeros(ids.size, dtype=bool)
        self._order: list[int] = []

    def __len__(self) -> int:
        return int(self.n_untested)

    @property
    def n_untested(self) -> int:
        return int((~self._tested).sum())

    @property
    def n_tested(self) -> int:
        return len(self._order)

    def _position(self, config_id, size) -> int:
        key = (int(config_id), int(size))
        pos = self._index.get(key)
        if pos is None:
            raise ValueError(
                f"unknown candidate (config_id={key[0]}, size={key[1]}); it is not one of the "
                f"{self._ids.size} pairs of this pool"
            )
        return pos

    def is_tested(self, config_id, size) -> bool:
        return bool(self._tested[self._position(config_id, size)])

    def contains(self, config_id, size) -> bool:
        """Whether ``(config_id, size)`` is one of the pool's pairs (tested or not)."""
        return (int(config_id), int(size)) in self._index

    def position(self, config_id, size) -> int:
        """Index of a pair in the pool's original order (raises for an unknown pair)."""
        return self._position(config_id, size)

    @property
    def untested_mask(self) -> np.ndarray:
        """Boolean mask over the pool's pairs (original order): True where untested (a copy)."""
        return ~self._tested

    @property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """``(config_ids, sizes)`` of all pairs, in the pool's original order (copies)."""
        return self._ids.copy(), self._sizes.copy()

    def mark_tested(self, config_id, size) -> None:
        """Remove a pair from the untested set.

        Raises
        ------
        ValueError
            If the pair is unknown or was already tested.
        """
        pos = self._position(config_id, size)
        if self._tested[pos]:
            raise ValueError(
                f"candidate (config_id={int(config_id)}, size={int(size)}) was already tested; "
                f"each pair is tested at most once"
            )
        self._tested[pos] = True
        self._order.append(pos)

    def untested(self) -> tuple[np.ndarray, np.ndarray]:
        """``(config_ids, sizes)`` of the untested pairs, in the pool's original order."""
        keep = ~self._tested
        return self._ids[keep].copy(), self._sizes[keep].copy()

    def tested(self) -> tuple[np.ndarray, np.ndarray]:
        """``(config_ids, sizes)`` of the tested pairs, in the order they were tested."""
        order = np.asarray(self._order, dtype=np.int64)
        return self._ids[order].copy(), self._sizes[order].copy()
