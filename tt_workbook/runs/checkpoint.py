"""Data-only checkpoints of a running replay: nothing read back can execute code.

A checkpoint is one ``.npz`` file (numpy's zip of ``.npy`` arrays, read with ``allow_pickle=False``)
holding a JSON description of the replay's state and the numeric arrays it refers to. Loading one
never unpickles, never imports a module and never calls a function named by the file: the file can
only choose among the classes a fresh replay of the same run holds (its root exactly the replay's
class, :func:`allowed_types`), bind only the methods such a replay binds, and fill their fields with
numbers, strings, arrays and containers. Before anything is loaded the file is bounded: a regular file,
members expanding to at most :data:`MAX_EXPANSION` times its size (zip directory, ``.npy`` shapes and
dtype item sizes), JSON nested at most :data:`MAX_DEPTH` levels, a finite plausible wall time.

How a replay is saved (:func:`encode`) and restored (:func:`decode`):

- numbers, strings, ``None``, lists, tuples, dicts, sets, numpy scalars and numeric/str arrays are
  written as they are; numpy's ``Generator``, ``RandomState`` and ``SeedSequence`` as their state
  (plain numbers), so a resumed run draws the very same random numbers;
- objects of ``tt_core`` classes as their class name and fields (``__getstate__`` where the class
  defines one); shared references stay shared;
- everything else is *not* written: the same object is taken from a fresh replay built from the
  run's spec (:meth:`tt_workbook.runs.store.RunSpec.replay`) at the same place in the object graph.
  These are the run's fixed inputs (the benchmark's tables, the model factory, bound methods), checked
  by a fingerprint (a data frame's content hash, a function's qualified name); a difference means the
  checkpoint belongs to other inputs and it is not used;
- fitted scikit-learn estimators (the trees of :class:`tt_core.models.trees.ExtraTreesEnsemble`, the
  GP of :class:`tt_core.models.matern_gp.MaternGP`) are not written either: their owner is refitted on
  its stored training data (``X_``, ``y_``), which gives the same fit (both fit deterministically
  from their seed).

A replay resumed from a checkpoint continues with the identical trajectory
(``tests/test_checkpoint.py`` checks every registered optimiser).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import types
import zipfile
from pathlib import Path

import numpy as np

FORMAT = 1
_STATE_KEY = "__state__"
_MODULE_RE = re.compile(r"^tt_core(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_QUALNAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_ARRAY_KINDS = "biufcUS"  # numeric, bool and fixed-width string arrays (never object arrays)
#: Deepest nesting of the JSON state accepted (a checkpoint's is about 20 levels deep).
MAX_DEPTH = 100
#: The arrays and state of a checkpoint may expand to at most this many times the file's size (at least
#: :data:`MIN_EXPANSION_BYTES`): np.savez stores them uncompressed, so a real checkpoint expands about 1x.
MAX_EXPANSION = 10
MIN_EXPANSION_BYTES = 1 << 20
#: Most members (arrays) a checkpoint may hold: one per array of the replay's state (a TrimTuner run's has 16);
#: an archive of 100,000 empty members took 7 s of CPU to check and load, refused at this bound it takes
#: the reading of its zip directory.
MAX_MEMBERS = 10_000
#: Largest wall time a checkpoint's header may carry (a year of computing, in seconds).
MAX_WALL_S = 366 * 86400.0
#: Most training rows a refitted model of a checkpoint may hold (a run tests at most a few hundred points).
MAX_REFIT_ROWS = 2000


class CheckpointError(ValueError):
    """A checkpoint cannot be written or used (the message says why)."""


# ------------------------------------------------------------------------------------------ fingerprints
_FINGERPRINTS: dict[int, tuple[object, str | None]] = {}


def _fingerprint(obj) -> str | None:
    """A content hash of an object that is taken from the fresh replay, or None if it has none.

    Data frames are hashed column by column (cells holding arrays, e.g. learning curves, by their
    bytes); the hash of one object is computed once per process (these are a run's fixed inputs).
    """
    cached = _FINGERPRINTS.get(id(obj))
    if cached is not None and cached[0] is obj:
        return cached[1]
    fp = _compute_fingerprint(obj)
    if len(_FINGERPRINTS) > 256:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(obj)] = (obj, fp)  # keeps obj alive, so its id is not reused meanwhile
    return fp


def _compute_fingerprint(obj) -> str | None:
    import pandas as pd

    if isinstance(obj, (pd.DataFrame, pd.Series, pd.Index)):
        h = hashlib.sha256()
        frame = obj.to_frame() if isinstance(obj, (pd.Series, pd.Index)) else obj
        h.update(json.dumps([type(obj).__name__, [str(c) for c in frame.columns], [str(t) for t in frame.dtypes],
                             len(frame)]).encode())
        h.update(pd.util.hash_pandas_object(frame.index, index=False).to_numpy().tobytes())
        for _, col in frame.items():
            try:
                h.update(pd.util.hash_pandas_object(col, index=False).to_numpy().tobytes())
            except TypeError:  # cells holding arrays (learning curves): their bytes
                for cell in col:
                    a = np.asarray(cell)
                    h.update(f"{a.dtype.str}{a.shape}".encode())
                    h.update(a.tobytes() if a.dtype != object else repr(cell).encode())
        return "pandas:" + h.hexdigest()
    if callable(obj):
        fn = getattr(obj, "__func__", obj)
        return "callable:" + f"{getattr(fn, '__module__', '')}:{getattr(fn, '__qualname__', type(fn).__name__)}"
    return None


def _is_sklearn(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "sklearn"


def _is_tt_object(obj) -> bool:
    t = type(obj)
    return t.__module__.split(".")[0] == "tt_core" and (hasattr(obj, "__dict__") or hasattr(t, "__slots__"))


def _fields(obj) -> dict:
    getstate = getattr(type(obj), "__getstate__", None)
    if getstate is not None and getstate is not getattr(object, "__getstate__", None):
        state = obj.__getstate__()
        if isinstance(state, dict):
            return state
    out = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out[name] = getattr(obj, name)
    return out


# ------------------------------------------------------------------------------------------ encoding
class _Encoder:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.memo: dict[int, int] = {}
        self.keep: list = []  # keeps encoded objects alive so that their ids stay unique

    def _remember(self, obj) -> int:
        self.memo[id(obj)] = len(self.memo)
        self.keep.append(obj)
        return self.memo[id(obj)]

    def enc(self, obj, in_sklearn_owner: bool = False):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.generic):
            if obj.dtype.kind not in _ARRAY_KINDS:
                raise CheckpointError(f"cannot store a numpy scalar of dtype {obj.dtype}")
            return {"t": "npscalar", "dtype": obj.dtype.str, "v": self.enc(obj.item())}
        if isinstance(obj, int):
            return obj if type(obj) is int else int(obj)
        if isinstance(obj, float):
            return obj if np.isfinite(obj) else {"t": "float", "v": repr(float(obj))}
        if id(obj) in self.memo:
            return {"t": "ref", "i": self.memo[id(obj)]}
        if isinstance(obj, np.ndarray):
            if obj.dtype.kind not in _ARRAY_KINDS:
                raise CheckpointError(f"cannot store an array of dtype {obj.dtype}")
            i = self._remember(obj)
            key = f"a{len(self.arrays)}"
            self.arrays[key] = obj
            return {"t": "array", "i": i, "k": key}
        if isinstance(obj, np.random.Generator):
            i = self._remember(obj)
            name = type(obj.bit_generator).__name__
            if name not in _BIT_GENERATORS:
                raise CheckpointError(f"cannot store a Generator on bit generator {name}")
            ss = getattr(obj.bit_generator, "seed_seq", getattr(obj.bit_generator, "_seed_seq", None))
            # the seed sequence too: spawning children (e.g. scipy's QMC engines) reads it, not the state
            return {"t": "generator", "i": i, "bg": name, "state": self.enc(obj.bit_generator.state),
                    "seed_seq": self.enc(ss) if isinstance(ss, np.random.SeedSequence) else None}
        if isinstance(obj, np.random.RandomState):
            i = self._remember(obj)
            return {"t": "randomstate", "i": i, "state": self.enc(obj.get_state(legacy=False))}
        if isinstance(obj, np.random.SeedSequence):
            i = self._remember(obj)
            return {"t": "seedseq", "i": i, "entropy": self.enc(obj.entropy), "spawn_key": self.enc(obj.spawn_key),
                    "pool_size": obj.pool_size, "children": obj.n_children_spawned}
        if type(obj) in (list, tuple, set, frozenset, dict):
            i = self._remember(obj)
            if isinstance(obj, dict):
                return {"t": "dict", "i": i, "v": [[self.enc(k), self.enc(v, in_sklearn_owner)] for k, v in obj.items()]}
            return {"t": type(obj).__name__, "i": i, "v": [self.enc(v, in_sklearn_owner) for v in obj]}
        if _is_tt_object(obj):
            i = self._remember(obj)
            t = type(obj)
            fields = _fields(obj)
            return {"t": "object", "i": i, "module": t.__module__, "class": t.__qualname__,
                    "fields": [[k, self.enc(v)] for k, v in fields.items()]}
        if isinstance(obj, types.MethodType) and _is_tt_object(obj.__self__):
            i = self._remember(obj)  # a method bound to one of the run's own objects: bound again on restore
            return {"t": "method", "i": i, "self": self.enc(obj.__self__), "name": obj.__func__.__name__}
        i = self._remember(obj)
        if _is_sklearn(obj):
            return {"t": "refit", "i": i}  # the owning tt_core model is refitted on restore
        return {"t": "fresh", "i": i, "fp": _fingerprint(obj)}


def encode(obj) -> tuple[str, dict[str, np.ndarray]]:
    """The JSON text and the arrays that describe ``obj`` (see the module docstring)."""
    e = _Encoder()
    tree = e.enc(obj)
    return json.dumps({"format": FORMAT, "root": tree}, allow_nan=False), e.arrays


# ------------------------------------------------------------------------------------------ decoding
def _reachable(root, keep: list) -> tuple[list, list]:
    """The ``tt_core`` objects and the methods bound to them reachable from ``root`` (through fields,
    containers and bound methods), without calling anything but ``__getstate__``."""
    seen: set[int] = set()
    objects, methods, stack = [], [], [root]
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        keep.append(o)  # ids stay unique while the walk runs
        if type(o) in (list, tuple, set, frozenset):
            stack.extend(o)
        elif type(o) is dict:
            stack.extend(o.keys())
            stack.extend(o.values())
        elif isinstance(o, types.MethodType) and _is_tt_object(o.__self__):
            methods.append(o)
            stack.append(o.__self__)
        elif _is_tt_object(o):
            objects.append(o)
            stack.extend(_fields(o).values())
    return objects, methods


def allowed_types(fresh) -> tuple[dict, set]:
    """What a checkpoint of the run whose fresh replay is ``fresh`` may build: ``({(module, qualname): class},
    {(class, method name)})``.

    The classes and bound methods reachable from the fresh replay, plus those of the models its surrogate
    builds (the models a model-based optimiser creates at its first fit: for each kind it models, one call of
    ``parts.surrogate(kind, seed, space)``, as :meth:`tt_core.optimizers.model_based.ModelBasedOptimizer._update`
    makes). Nothing else: a checkpoint naming any other class or method is not used."""
    classes, methods, _ = _allowed(fresh)
    return classes, methods


def _allowed(fresh) -> tuple[dict, set, dict]:
    """:func:`allowed_types` and, per class, the fields every object of it in the fresh replay has, each with
    the one type all of them hold there (None when it varies, is None or is a number: not checked)."""
    keep: list = []
    objects, methods = _reachable(fresh, keep)
    for o in list(objects):
        f = _fields(o)
        surrogate = getattr(f.get("parts"), "surrogate", None)
        kinds, space = f.get("model_kinds"), f.get("space")
        if callable(surrogate) and isinstance(kinds, tuple) and space is not None:
            for kind in kinds:
                more_objects, more_methods = _reachable(surrogate(kind, 0, space), keep)
                objects += more_objects
                methods += more_methods
    classes = {(t.__module__, t.__qualname__): t for t in {type(o) for o in objects}}
    rules: dict[type, dict] = {}
    for o in objects:
        fields = {k: (None if v is None or isinstance(v, (int, float, np.number)) else type(v))
                  for k, v in _fields(o).items()}
        seen = rules.get(type(o))
        rules[type(o)] = fields if seen is None else {k: (t if fields[k] is t else None)
                                                     for k, t in seen.items() if k in fields}
    return classes, {(type(m.__self__), m.__func__.__name__) for m in methods}, rules


def _class(module, qualname, allowed: dict) -> type:
    if not (isinstance(module, str) and isinstance(qualname, str)):
        raise CheckpointError("its state names a class malformed")
    cls = allowed.get((module, qualname))
    if cls is None:
        if not (_MODULE_RE.match(module) and _QUALNAME_RE.match(qualname)):
            raise CheckpointError(f"names a class outside tt_core ({module!r}, {qualname!r})")
        raise CheckpointError(f"it names the class {module}.{qualname}, which a replay of this run does not hold")
    return cls


class _Decoder:
    def __init__(self, arrays, fresh):
        self.arrays = arrays
        self.fresh = fresh
        self.memo: dict[int, object] = {}
        self.refit: list = []
        self.used_arrays: set = set()
        self.classes, self.methods, self.rules = _allowed(fresh)

    def _at(self, path):
        """The object at ``path`` of the fresh replay (a sequence of ('attr'|'item', key))."""
        obj = self.fresh
        for kind, key in path:
            try:
                if kind == "attr":
                    obj = _fields(obj)[key] if _is_tt_object(obj) else getattr(obj, key)
                else:
                    obj = obj[key]
            except (KeyError, IndexError, AttributeError, TypeError):
                raise CheckpointError("its state does not match a fresh replay of the run "
                                      f"(no {'.'.join(str(k) for _, k in path)})") from None
        return obj

    def _register(self, node, obj):
        if isinstance(node.get("i"), int):
            self.memo[node["i"]] = obj
        return obj

    def dec(self, node, path=(), owner=None):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list) or not isinstance(node, dict) or "t" not in node:
            raise CheckpointError("its state is not in the checkpoint format")
        t = node["t"]
        if t == "ref":
            if node.get("i") not in self.memo:
                raise CheckpointError("its state refers to an object it does not define")
            return self.memo[node["i"]]
        if t == "float":
            if node.get("v") not in ("nan", "inf", "-inf"):
                raise CheckpointError("its state holds a malformed number")
            return float(node["v"])
        if t == "npscalar":
            spelled = node.get("dtype")
            if not (isinstance(spelled, str) and len(spelled) <= 16):
                raise CheckpointError("its state holds a scalar of a malformed dtype")
            dtype = np.dtype(spelled)
            if dtype.kind not in _ARRAY_KINDS:
                raise CheckpointError(f"its state holds a scalar of dtype {dtype}")
            v = self.dec(node.get("v"))
            # the item size the value needs (a str of n characters: 4n bytes), never what the file declares
            need = 16 if dtype.kind not in "US" else max(1, len(v) if isinstance(v, (str, bytes)) else 1) * (
                4 if dtype.kind == "U" else 1)
            if dtype.itemsize > need:
                raise CheckpointError(f"its state declares a scalar of dtype {spelled} ({dtype.itemsize} bytes) for a "
                                      f"value of at most {need} bytes")
            return np.array(v, dtype=dtype)[()]
        if t == "array":
            key = node.get("k")
            arr = self.arrays.get(key) if isinstance(key, str) else None
            if arr is None:
                raise CheckpointError("its state refers to an array the file does not hold")
            if key in self.used_arrays:  # the encoder writes each array once (shared ones as references)
                raise CheckpointError(f"its state uses the array {key} twice")
            self.used_arrays.add(key)
            return self._register(node, arr.copy())
        if t == "generator":
            if node.get("bg") not in _BIT_GENERATORS:
                raise CheckpointError(f"its state names an unknown bit generator {node.get('bg')!r}")
            ss = self.dec(node["seed_seq"]) if node.get("seed_seq") is not None else None
            if ss is not None and not isinstance(ss, np.random.SeedSequence):
                raise CheckpointError("its state holds a malformed generator")
            bg = getattr(np.random, node["bg"])(ss)
            bg.state = self.dec(node["state"])
            return self._register(node, np.random.Generator(bg))
        if t == "randomstate":
            rs = np.random.RandomState()
            rs.set_state(self.dec(node["state"]))
            return self._register(node, rs)
        if t == "seedseq":
            pool = node.get("pool_size")
            if isinstance(pool, bool) or not isinstance(pool, int) or not 1 <= pool <= 64:
                raise CheckpointError("its state holds a seed sequence of a malformed pool size")
            spawn_key = self.dec(node["spawn_key"])
            ss = np.random.SeedSequence(self.dec(node["entropy"]), spawn_key=tuple(spawn_key),
                                        pool_size=int(node["pool_size"]), n_children_spawned=int(node["children"]))
            return self._register(node, ss)
        if t in ("list", "dict", "set", "frozenset", "tuple"):
            items = node.get("v")
            if not isinstance(items, list):
                raise CheckpointError("its state holds a malformed container")
            if t == "list":
                out = self._register(node, [])
                out.extend(self.dec(v, (*path, ("item", k)), owner) for k, v in enumerate(items))
                return out
            if t == "dict":
                out = self._register(node, {})
                for pair in items:
                    if not (isinstance(pair, list) and len(pair) == 2):
                        raise CheckpointError("its state holds a malformed mapping")
                    k = self.dec(pair[0])
                    out[k] = self.dec(pair[1], (*path, ("item", k)), owner)
                return out
            values = [self.dec(v, (*path, ("item", k)), owner) for k, v in enumerate(items)]
            return self._register(node, {"set": set, "frozenset": frozenset, "tuple": tuple}[t](values))
        if t == "object":
            cls = _class(node.get("module"), node.get("class"), self.classes)
            obj = self._register(node, object.__new__(cls))
            fields = {}
            for pair in node.get("fields", []):
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)) \
                        or pair[0].startswith("__"):
                    raise CheckpointError("its state holds a malformed field")
                fields[pair[0]] = self.dec(pair[1], (*path, ("attr", pair[0])), obj)
            for k, want in self.rules.get(cls, {}).items():  # the fields a replay's code reads, of their types
                if k not in fields:
                    raise CheckpointError(f"its {cls.__qualname__} lacks the field {k!r} a replay of this run has")
                if want is not None and fields[k] is not None and type(fields[k]) is not want:
                    raise CheckpointError(f"its {cls.__qualname__}.{k} is a {type(fields[k]).__name__}, where a "
                                          f"replay of this run holds a {want.__name__}")
            if hasattr(obj, "__dict__"):
                obj.__dict__.update(fields)
            else:
                for k, v in fields.items():
                    object.__setattr__(obj, k, v)
            return obj
        if t == "method":
            owner_obj = self.dec(node.get("self"), path, owner)
            name = node.get("name")
            if not (_is_tt_object(owner_obj) and isinstance(name, str) and _QUALNAME_RE.match(name)
                    and "." not in name and not name.startswith("__")
                    and isinstance(getattr(type(owner_obj), name, None), types.FunctionType)):
                raise CheckpointError("its state names a method tt_core does not have")
            if (type(owner_obj), name) not in self.methods:
                raise CheckpointError(f"its state binds the method {type(owner_obj).__name__}.{name}, which a replay "
                                      "of this run does not hold")
            return self._register(node, getattr(owner_obj, name))
        if t == "refit":
            if owner is None or not (hasattr(type(owner), "fit")):
                raise CheckpointError("its state has a fitted model without a tt_core owner")
            if not any(o is owner for o in self.refit):
                self.refit.append(owner)
            return self._register(node, None)
        if t == "fresh":
            obj = self._at(path)
            if _fingerprint(obj) != node.get("fp"):
                raise CheckpointError("it was made from other inputs (data or code) than this run's "
                                      f"({'.'.join(str(k) for _, k in path)} differs)")
            return self._register(node, obj)
        raise CheckpointError(f"its state holds an unknown kind {t!r}")


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _json_depth(text: str) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    bare = _JSON_STRING.sub("", text).encode("ascii", "replace")
    codes = np.frombuffer(bare, dtype=np.uint8)
    steps = np.zeros(len(codes), dtype=np.int32)
    steps[(codes == ord("[")) | (codes == ord("{"))] = 1
    steps[(codes == ord("]")) | (codes == ord("}"))] = -1
    return int(np.cumsum(steps).max(initial=0))


def _loads(text: str, what: str):
    """``json.loads`` of a checkpoint's text, refused (:class:`CheckpointError`) when it nests more than
    :data:`MAX_DEPTH` levels (checked before parsing, so the parser never recurses that deep)."""
    depth = _json_depth(text)
    if depth > MAX_DEPTH:
        raise CheckpointError(f"its {what} nests {depth} levels deep (at most {MAX_DEPTH})")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise CheckpointError(f"its {what} is not valid JSON") from None


def decode(text: str, arrays: dict[str, np.ndarray], fresh):
    """Rebuild the object described by :func:`encode`; ``fresh`` supplies what was not written.

    The root must be an object of exactly ``fresh``'s class, and the state may build only the classes and
    bind only the methods :func:`allowed_types` finds in ``fresh``; anything else is a :class:`CheckpointError`
    (without a ``fresh`` replay, no object of any class can be built: plain data only).
    """
    doc = _loads(text, "state")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CheckpointError(f"it is not a checkpoint of format {FORMAT}")
    root, want = doc.get("root"), type(fresh)
    if fresh is not None and not (isinstance(root, dict) and root.get("t") == "object"
            and (root.get("module"), root.get("class")) == (want.__module__, want.__qualname__)):
        named = (f"{root.get('module')}.{root.get('class')}" if isinstance(root, dict) and root.get("t") == "object"
                 else f"a {root.get('t') if isinstance(root, dict) else type(root).__name__}")
        raise CheckpointError(f"its root is {shown_name(named)}, not the run's replay ({want.__module__}.{want.__qualname__})")
    try:
        d = _Decoder(arrays, fresh)
        obj = d.dec(root)
        if fresh is not None and type(obj) is not want:
            raise CheckpointError(f"its root is not the run's replay ({want.__qualname__})")
        for owner in d.refit:
            X, y = getattr(owner, "X_", None), getattr(owner, "y_", None)
            if not (isinstance(X, np.ndarray) and isinstance(y, np.ndarray) and X.ndim == 2 and y.ndim == 1
                    and len(X) == len(y) and len(X) <= MAX_REFIT_ROWS and X.dtype.kind in "biuf"
                    and y.dtype.kind in "biuf"):
                raise CheckpointError(f"a fitted {type(owner).__name__} has no training data to refit on (at most "
                                      f"{MAX_REFIT_ROWS} rows)")
            owner.fit(X, y)
    except CheckpointError:
        raise
    except RecursionError:
        raise CheckpointError("its state is nested too deeply") from None
    except MemoryError:
        raise CheckpointError("its state needs more memory than this machine has") from None
    except Exception as exc:  # a crafted state: any failure to rebuild it means it is not used
        raise CheckpointError(f"its state is malformed ({type(exc).__name__}: {_one_line(exc)})") from None
    return obj


def shown_name(text: str) -> str:
    return text if len(text) <= 120 else text[:117] + "..."


def _one_line(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return shown_name(first)


# ------------------------------------------------------------------------------------------ files
def save(path: str | Path, header: dict, obj) -> None:
    """Write ``obj`` (and a JSON ``header``) to ``path`` as a data-only ``.npz`` (not atomically:
    the caller writes to a temporary path and renames)."""
    text, arrays = encode(obj)
    blob = json.dumps({"header": header, "state": text}, allow_nan=False).encode()
    with open(path, "wb") as fh:
        np.savez(fh, **{_STATE_KEY: np.frombuffer(blob, dtype=np.uint8)}, **arrays)


def _bounded_members(fh, size: int) -> None:
    """Refuse (:class:`CheckpointError`) a checkpoint whose members would take more memory to load than
    :data:`MAX_EXPANSION` times its ``size`` (at least :data:`MIN_EXPANSION_BYTES`), judged from the zip
    directory's sizes and each ``.npy`` header's shape and dtype item size, before anything is loaded."""
    limit = max(MAX_EXPANSION * size, MIN_EXPANSION_BYTES)
    with zipfile.ZipFile(fh) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise CheckpointError(f"it holds {len(infos)} members, more than the {MAX_MEMBERS} arrays a checkpoint may "
                                  "hold (MAX_MEMBERS); not a checkpoint tt wrote")
        total = sum(i.file_size for i in infos)
        if total > limit:
            raise CheckpointError(f"its members would expand to {total} bytes, more than {MAX_EXPANSION} times its "
                                  f"size of {size} bytes (a zip bomb?)")
        for info in infos:
            with zf.open(info) as member:
                try:
                    version = np.lib.format.read_magic(member)
                    if version == (1, 0):
                        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
                    elif version in ((2, 0), (3, 0)):
                        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
                    else:
                        raise ValueError(f"npy version {version}")
                except (ValueError, SyntaxError, TypeError, EOFError) as exc:
                    raise CheckpointError(f"it is not a readable checkpoint (its member {shown_name(info.filename)!r} "
                                          f"is not a numpy array: {_one_line(exc)})") from None
                if dtype.hasobject or dtype.kind not in _ARRAY_KINDS:
                    raise CheckpointError(f"it is not a readable checkpoint (its member {shown_name(info.filename)!r} is "
                                          f"an array of dtype {dtype}, which tt never writes)")
                need = dtype.itemsize
                for n in shape:
                    need *= int(n)
                if need > info.file_size:
                    raise CheckpointError(f"its member {shown_name(info.filename)!r} declares shape {shape} of "
                                          f"{dtype} ({need} bytes) but holds {info.file_size} bytes")


def _check_header(header: dict) -> None:
    """The header's parts other code reads have their types, and its wall time is a plausible finite number."""
    for key in ("spec", "data"):
        if key in header and not isinstance(header[key], dict):
            raise CheckpointError(f"its header's {key} is not a mapping")
    if "wall_s" in header:
        w = header["wall_s"]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w <= MAX_WALL_S:
            raise CheckpointError(f"its wall time {shown_name(repr(w))} is not a number of seconds in [0, "
                                  f"{MAX_WALL_S:.0f}] (a year)")


def read(path: str | Path) -> tuple[dict, str, dict[str, np.ndarray]]:
    """``(header, state text, arrays)`` of a checkpoint file; raises :class:`CheckpointError`.

    Bounded before loading: the file must be a regular file (a FIFO or device is never opened for a blocking
    read), its arrays and state may expand to at most :data:`MAX_EXPANSION` times its size (from the zip
    directory and the arrays' declared shapes and dtype item sizes) and its JSON may nest at most
    :data:`MAX_DEPTH` levels; it may hold at most :data:`MAX_MEMBERS` members.
    """
    from tt_core.data.io import NotAFileError, open_regular, why_not_a_file

    try:
        fh = open_regular(path, "checkpoint")
    except NotAFileError:
        raise CheckpointError(f"it {why_not_a_file(path)}") from None
    try:
        with fh:
            size = os.fstat(fh.fileno()).st_size
            _bounded_members(fh, size)
            fh.seek(0)
            with np.load(fh, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
    except CheckpointError:
        raise
    except MemoryError:
        raise CheckpointError("it would need more memory than this machine has") from None
    except (OSError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, KeyError, NotImplementedError,
            RuntimeError, TypeError) as exc:
        raise CheckpointError(f"it is not a readable checkpoint ({type(exc).__name__})") from None
    blob = arrays.pop(_STATE_KEY, None)
    if blob is None or blob.dtype != np.uint8 or blob.ndim != 1:
        raise CheckpointError("it holds no checkpoint state")
    try:
        text = blob.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise CheckpointError("its state is not valid JSON") from None
    doc = _loads(text, "header")
    try:
        header, text = doc["header"], doc["state"]
    except (KeyError, TypeError):
        raise CheckpointError("its state is not valid JSON") from None
    if not isinstance(header, dict) or not isinstance(text, str):
        raise CheckpointError("it is not in the checkpoint format")
    _check_header(header)
    return header, text, arrays


def roundtrip(obj, fresh):
    """``obj`` encoded and decoded in memory (what a save and a load give; used by the tests)."""
    buf = io.BytesIO()
    text, arrays = encode(obj)
    np.savez(buf, **arrays)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as z:
        loaded = {k: z[k] for k in z.files}
    return decode(text, loaded, fresh)
