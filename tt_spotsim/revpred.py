"""RevPred and Tributary's revocation predictor: LSTMs over the past hour of prices (SpotTune §III-B, Fig. 10).

Both answer the question of :mod:`tt_spotsim.revocation` (the probability that the price of type *i*
rises above the maximum price *b* within the hour after *t*) through the same interface, so they plug
into the provisioner (Eqs. 1-2) like the logistic regression. One network per instance type ("for each
individual spot market, an independent model is trained offline"). PyTorch (CPU build) does the work;
it is imported only when a network is trained or queried.

Data set (§III-B)
-----------------
For every minute *m* of the fit period with 59 minutes before it and the label's hour after it:

* **history**: the six engineered features (:func:`tt_spotsim.revocation.features`) of minutes
  ``m-59 .. m-1`` (59 records);
* **present**: the six features of minute *m* and the maximum price *b*;
* **label**: the price rises above *b* within the next hour, ``max(price[m+1 .. m+59]) > b``
  (:func:`tt_spotsim.revocation.forward_max`, the label of the whole package).

The maximum price in training (:func:`training_set`): RevPred uses Alg. 2 (the present price plus the
trimmed mean price variation of the previous hour, :func:`tt_spotsim.revocation.algorithm2_margins`);
Tributary draws present price + a delta uniform in ``[0.00001, 0.2]`` USD/h
(:func:`tt_spotsim.revocation.random_bids`; the range is :attr:`NetSettings.delta`). At inference both
take whatever maximum price they are asked about; the paper draws it at random, as Tributary does
(:func:`tt_spotsim.revocation.evaluate` with ``bids="random"``, the provisioner with ``bid="tributary"``).

Inputs, as fed to the networks (choices of this workbook; the paper gives none): prices (features 1-2)
in units of the type's mean price over the fit period; the minutes since the last change as
``log(1 + minutes)``; the six columns then standardised with the fit period's mean and standard
deviation. The maximum price enters as its margin over the present price in units of the type's mean
price, ``(b - price) / mean price``, not standardised (the same information as *b* itself, since the
present price is feature 1; left unscaled so that a margin far outside the training range, such as a
random delta of up to $0.2 on a $0.03 type, is not magnified by a small training spread).

Networks
--------
* **RevPred** (:func:`build_network` ``"revpred"``): a three-layer LSTM over the 59 history records (its
  last hidden state is the history embedding), three fully connected layers (ReLU) over the 7 present
  inputs (the present embedding); the two embeddings concatenated and one linear unit with a sigmoid
  give the "probability-like result" ``o``.
* **Tributary's predictor** (``"tributary"``, as re-implemented by the SpotTune authors, who describe it
  only as an LSTM over the engineered features with a random maximum price): one LSTM layer over all 60
  records (59 history + present); the maximum-price margin is appended to every record as a seventh
  column, so that the one sequence carries it; a linear unit and a sigmoid on the last hidden state.

Both are trained with the same loss, optimiser and class weights, so that the comparison isolates the
two differences the paper credits (the split input and the Alg. 2 maximum price): binary cross-entropy
with the positive samples weighted by the negative fraction ``N`` and the negatives by the positive
fraction ``P`` (§III-B), Adam, mini-batches in a seeded order. The output becomes a revocation
probability by **Eq. 3 (reconstructed, lost in extraction)**: ``p = o P / (o P + (1 - o) N)``
(:func:`tt_spotsim.revocation.calibrate`), which undoes the balanced weighting.

Reproducibility and cache
-------------------------
Training is seeded (``torch.manual_seed``, deterministic algorithms, the batch order from
the ``"lstm-batches"`` stream of :func:`tt_spotsim.streams.spot_rng`) and uses :attr:`NetSettings.threads` CPU threads (default 1): same seed,
same settings, same trace, same weights. Trained weights are cached under ``data/spot_revpred/``
(git-ignored), one file per (model, type), named by a hash of the seed, the settings, the PyTorch
version and the sha256 of the type's fit-period prices (:func:`trace_checksum`). Each file is an entry
of :mod:`tt_core.data.entries`: written atomically, a sidecar records those settings, the prices' sha256
and the file's own sha256; the file (a ``state_dict``, read with ``weights_only=True``) also stores that
description. A file computed from other settings or prices, or whose bytes no longer match its
checksum, is never used: it is set aside (renamed ``.mismatch``/``.corrupt``) and the model trained again,
with a warning.

Same weights on any CPU: training is seeded, but not the same on every CPU. PyTorch's kernels (AVX-512 or
AVX2, or the non-vectorised ones under ``ATEN_CPU_CAPABILITY=default``; oneDNN's ISA) round differently,
and training amplifies it: measured on Fig. 10's quick networks, every one of the 12 got other weights,
the final training losses moved by up to 12 %, an F1 of Fig. 10 (a, b) by up to 0.42 and notebook 13's
Tributary-in-the-loop cost ratio from 4.15 to 4.47. So Fig. 10's networks of the quick profile on the
synthetic market of seed 1 (what notebooks 13 and 15 and ``tt spot predictors`` fit) were trained once and
are shipped: ``revpred_weights.pt`` beside this module (one ``state_dict`` per network, read with
``weights_only=True``; 12 networks, 255 kB), its sha256 and the training's conditions in
``revpred_weights.json``, checked before use (:func:`shipped_weights`). :meth:`LSTMPredictor.fit` takes a
network from there when the file holds its description (:func:`shipped_key`: the cache's, without the
PyTorch version), before the cache. Re-training is explicit, ``tt spot train-weights --out FILE``
(:func:`tt_workbook.studies.spottune.revpred_study.train_weights`); ``TT_SPOT_REVPRED_WEIGHTS=FILE`` uses its weights. Other settings (the paper
profile, the smoke settings, ``tt spot simulate --predictor revpred``'s defaults) and markets are trained
at run time, as before, and depend on the CPU. Inference runs on a float64 copy of each network and is
rounded to float32 (:func:`_rounded`): in float32 the outputs of the same weights differed by up to 1e-9
between kernels.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from tt_core.data import entries
from tt_core.data.io import shown
from tt_spotsim.catalogue import SpotError
from tt_spotsim import revocation as R
from tt_spotsim.streams import spot_rng

#: Records of the history part (the minutes before the present one).
HISTORY = R.WINDOW - 1
#: Bump when the inputs or the networks change: cached weights of an older format are not reused.
FORMAT = 1
KINDS = ("revpred", "tributary")
TRAINING_MAX_PRICES = ("algorithm2", "random")


@dataclass(frozen=True)
class NetSettings:
    """Training settings of one LSTM predictor (per instance type).

    Attributes
    ----------
    hidden : int
        Units of every LSTM and fully connected layer.
    epochs : int
    batch_size : int
    lr : float
        Adam's learning rate.
    stride : int
        Every ``stride``-th minute of the fit period is a training sample (1: every minute, as the paper).
    max_price : {"algorithm2", "random", None}
        The training maximum price; None: the model's own (RevPred Alg. 2, Tributary random).
    delta : tuple of float
        Range of the random maximum-price delta (USD per hour), Tributary's ``[0.00001, 0.2]``.
    threads : int
        PyTorch CPU threads.
    seed : int
        Weights' initialisation, batch order and random maximum prices.
    """

    hidden: int = 16
    epochs: int = 3
    batch_size: int = 128
    lr: float = 3e-3
    stride: int = 5
    max_price: str | None = None
    delta: tuple = R.TRIBUTARY_DELTA
    threads: int = 1
    seed: int = 1

    def checked(self) -> "NetSettings":
        whole = {"hidden": 1, "epochs": 1, "batch_size": 1, "stride": 1, "threads": 1, "seed": 0}
        for key, low in whole.items():
            v = getattr(self, key)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < low:
                raise SpotError(f"{key} must be a whole number >= {low}, got {shown(v)}")
        if not (isinstance(self.lr, (int, float)) and 0 < self.lr < 1):
            raise SpotError(f"lr must lie in (0, 1), got {shown(self.lr)}")
        if self.max_price not in (None,) + TRAINING_MAX_PRICES:
            raise SpotError(f"max_price must be one of {list(TRAINING_MAX_PRICES)} (or None), got {shown(self.max_price)}")
        lo, hi = (float(x) for x in self.delta)
        if not (0 <= lo <= hi and math.isfinite(hi)):
            raise SpotError(f"delta must be a range 0 <= low <= high (USD per hour), got {shown(tuple(self.delta))}")
        return replace(self, delta=(lo, hi))


def settings_from(cfg: dict, **changes) -> NetSettings:
    """:class:`NetSettings` from a profile's ``revpred`` study (the keys it shares with the dataclass)."""
    keys = {k: cfg[k] for k in NetSettings.__dataclass_fields__ if k in cfg}
    if "delta" in keys:
        keys["delta"] = tuple(keys["delta"])
    return replace(NetSettings(**keys), **changes).checked()


# ------------------------------------------------------------------------------------------------
# PyTorch, imported on use
# ------------------------------------------------------------------------------------------------
def torch_module():
    """PyTorch (imported on use), or a SpotError saying how to install it."""
    return _torch()


def _torch():
    try:
        import torch
    except ImportError:
        raise SpotError("RevPred and Tributary's predictor need PyTorch: install it with "
                        "`pip install torch==2.13.0` (the CPU build; see the README's install section)") from None
    return torch


def _threads(torch, n: int) -> None:
    if torch.get_num_threads() != n:
        torch.set_num_threads(int(n))


@contextmanager
def _deterministic(torch):
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was)


def _float64(model):
    """A float64 copy of a trained network, for inference (:func:`_rounded`)."""
    import copy

    return copy.deepcopy(model).double().eval()


def _f64(torch, a: np.ndarray):
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def _rounded(out) -> np.ndarray:
    """The networks' outputs, computed in float64 and rounded to float32: the CPU's kernels (vectorised or
    not, ``ATEN_CPU_CAPABILITY``) change the float64 result in its last bits, which the rounding removes
    (unless a value lies within those bits of a float32 rounding boundary, about 1e-8 of the values);
    computed in float32, the outputs differed by up to 1e-9 between kernels."""
    return out.numpy().astype(np.float32).astype(float)


def build_network(kind: str, hidden: int):
    """The network of ``kind`` (module docstring), as a ``torch.nn.Module`` taking ``(history, present)``
    (RevPred: ``(n, 59, 6)`` and ``(n, 7)``; Tributary: ``(n, 60, 7)`` and None) and returning logits ``(n,)``."""
    torch = _torch()
    nn = torch.nn
    n_feat = len(R.FEATURES)

    class RevPredNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(n_feat, hidden, num_layers=3, batch_first=True)
            self.fc = nn.Sequential(nn.Linear(n_feat + 1, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU())
            self.out = nn.Linear(2 * hidden, 1)

        def forward(self, history, present):
            _, (h, _) = self.lstm(history)
            return self.out(torch.cat([h[-1], self.fc(present)], dim=1)).squeeze(-1)

    class TributaryNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(n_feat + 1, hidden, num_layers=1, batch_first=True)
            self.out = nn.Linear(hidden, 1)

        def forward(self, sequence, present=None):
            _, (h, _) = self.lstm(sequence)
            return self.out(h[-1]).squeeze(-1)

    if kind == "revpred":
        return RevPredNet()
    if kind == "tributary":
        return TributaryNet()
    raise SpotError(f"unknown network {shown(kind)}; known: {list(KINDS)}")


# ------------------------------------------------------------------------------------------------
# The data set
# ------------------------------------------------------------------------------------------------
def check_history(n_minutes: int, what: str = "the price trace") -> None:
    """A SpotError unless ``n_minutes`` hold one sample: 59 minutes of history, the present, and its hour."""
    need = HISTORY + R.WINDOW + 1
    if n_minutes < need:
        raise SpotError(f"{what} has {n_minutes} minutes; a revocation sample needs {HISTORY} minutes of history, "
                        f"the present minute and the {R.WINDOW} minutes of its label, so at least {need}: "
                        "use a longer trace (or a later end of the fit period)")


def fit_minutes(n_end: int, stride: int = 1) -> np.ndarray:
    """The sample minutes of a fit period of ``n_end`` minutes: ``59 <= m < n_end - 60``, every ``stride``-th."""
    check_history(n_end, "the fit period")
    return np.arange(HISTORY, n_end - R.WINDOW, int(stride))


def input_table(trace, name: str, end: int) -> tuple[np.ndarray, dict]:
    """The six features of every minute of one type, transformed as the networks see them (module
    docstring), and the statistics of the transformation (fit period ``[0, end)``)."""
    p = trace.series(name)
    scale = float(p[:end].mean())
    F = R.features(trace, name).to_numpy(float, copy=True)
    F[:, 0] /= scale
    F[:, 1] /= scale
    F[:, 3] = np.log1p(F[:, 3])
    mu, sd = F[:end].mean(axis=0), F[:end].std(axis=0)
    sd[sd == 0] = 1.0
    return ((F - mu) / sd).astype(np.float32), {"scale": scale, "mu": mu.tolist(), "sd": sd.tolist()}


def _padded(Z: np.ndarray) -> np.ndarray:
    """``Z`` with its first row repeated 59 times in front: row ``m + 59`` is minute ``m``, and the rows
    ``m .. m + 58`` its history (at the trace's first hour, the first minute stands for the missing ones)."""
    return np.concatenate([np.repeat(Z[:1], HISTORY, axis=0), Z])


def windows(kind: str, Zpad: np.ndarray, minutes: np.ndarray, margins: np.ndarray):
    """The network inputs of ``minutes`` with maximum-price ``margins`` (``(b - price) / mean price``):
    RevPred ``(history (n, 59, 6), present (n, 7))``; Tributary ``(sequence (n, 60, 7), None)``."""
    from numpy.lib.stride_tricks import sliding_window_view

    minutes = np.asarray(minutes, int)
    margins = np.asarray(margins, np.float32).reshape(-1, 1)
    view = sliding_window_view(Zpad, R.WINDOW, axis=0)        # view[m] = rows m .. m+59, shape (k, 6, 60)
    seq = np.ascontiguousarray(view[minutes].transpose(0, 2, 1))  # (n, 60, 6): 59 history + the present
    if kind == "revpred":
        return seq[:, :HISTORY], np.concatenate([seq[:, HISTORY], margins], axis=1)
    m = np.broadcast_to(margins[:, None, :], (len(minutes), R.WINDOW, 1))
    return np.concatenate([seq, m], axis=2), None


def training_set(trace, name: str, end: int, max_price: str, stride: int = 1, rng: np.random.Generator | None = None,
                 delta=R.TRIBUTARY_DELTA) -> dict:
    """One type's training samples of the fit period ``[0, end)`` minutes: ``minutes``, maximum prices
    ``bids`` (Alg. 2, or random with ``rng`` and ``delta``), ``labels`` (revoked within the hour) and the
    positive fraction ``P``."""
    p = trace.series(name)
    minutes = fit_minutes(min(end, len(p)), stride)
    if max_price == "algorithm2":
        bids = p[minutes] + R.algorithm2_margins(p, minutes)
    elif max_price == "random":
        if rng is None:
            raise SpotError("random maximum prices need a numpy Generator (rng)")
        bids = R.random_bids(p[minutes], rng, delta)
    else:
        raise SpotError(f"unknown training maximum price {shown(max_price)}; known: {list(TRAINING_MAX_PRICES)}")
    labels = (R.forward_max(p)[minutes] > bids).astype(np.float32)
    return {"minutes": minutes, "bids": bids, "labels": labels, "P": float(labels.mean())}


def trace_checksum(trace, name: str, end: int) -> str:
    """sha256 of what a type's model learns from: the start time, the type and its prices of ``[0, end)``."""
    h = hashlib.sha256(f"{trace.start.isoformat()}|{name}|{int(end)}|".encode())
    h.update(np.ascontiguousarray(trace.series(name)[:end], dtype="<f8").tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------
# Training
# ------------------------------------------------------------------------------------------------
def class_weights(labels) -> np.ndarray:
    """Per-sample loss weights (§III-B): a positive sample weighs the negative fraction ``N``, a negative one
    the positive fraction ``P``, so that both classes carry half of the loss."""
    y = np.asarray(labels, np.float32)
    P = float(y.mean())
    return np.where(y > 0.5, 1.0 - P, P).astype(np.float32)


def train_network(kind: str, inputs, labels: np.ndarray, settings: NetSettings):
    """Train a :func:`build_network` on ``inputs`` (from :func:`windows`) with class weights ``N`` for
    positives and ``P`` for negatives (:func:`class_weights`); returns ``(model, info)`` with the CPU
    seconds, the last loss and the two weights the loss used (``weight_positive``, ``weight_negative``)."""
    torch = _torch()
    st = settings.checked()
    _threads(torch, st.threads)
    y = np.asarray(labels, np.float32)
    P = float(y.mean())
    w = class_weights(y)
    c0 = time.process_time()
    with _deterministic(torch):
        torch.manual_seed(st.seed)
        model = build_network(kind, st.hidden)
        opt = torch.optim.Adam(model.parameters(), lr=st.lr)
        X1 = torch.from_numpy(inputs[0])
        X2 = None if inputs[1] is None else torch.from_numpy(inputs[1])
        Y, W = torch.from_numpy(y), torch.from_numpy(w)
        order_rng = spot_rng(st.seed, "lstm-batches")
        loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
        last = float("nan")
        model.train()
        for _ in range(st.epochs):
            total, count = 0.0, 0
            for idx in np.array_split(order_rng.permutation(len(y)), max(1, math.ceil(len(y) / st.batch_size))):
                ix = torch.from_numpy(idx)
                logits = model(X1[ix], None if X2 is None else X2[ix])
                loss = (loss_fn(logits, Y[ix]) * W[ix]).sum() / W[ix].sum().clamp_min(1e-12)
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * len(idx)
                count += len(idx)
            last = total / max(1, count)
    model.eval()
    used = W.numpy()
    return model, {"cpu_s": time.process_time() - c0, "loss": last, "samples": int(len(y)), "P": P,
                   **{f"weight_{c}": float(used[m][0]) if m.any() else float("nan")
                      for c, m in (("positive", y > 0.5), ("negative", y <= 0.5))}}


def cache_root() -> Path:
    from tt_core.data.benchmarks import cache_dir

    return cache_dir() / "spot_revpred"


# ------------------------------------------------------------------------------------------------
# Shipped weights (trained once; re-trained only by `tt spot train-weights`)
# ------------------------------------------------------------------------------------------------
#: The shipped weights: Fig. 10's networks of the quick profile on the synthetic market of seed 1 (notebooks
#: 13 and 15, ``tt spot predictors``), one ``state_dict`` per (model, type), read with ``weights_only=True``.
WEIGHTS = Path(__file__).with_name("revpred_weights.pt")
#: Environment variable naming re-trained weights (a ``.pt`` written by ``tt spot train-weights``).
WEIGHTS_ENV = "TT_SPOT_REVPRED_WEIGHTS"
_SHIPPED: dict = {}


def weights_path() -> Path:
    """The weights in use: ``$TT_SPOT_REVPRED_WEIGHTS`` if set, else the shipped ``revpred_weights.pt``."""
    from tt_spotsim.shipped import file_in_use

    return file_in_use(WEIGHTS_ENV, WEIGHTS, "weights written by `tt spot train-weights --out FILE`")


def manifest_path(path: Path) -> Path:
    """The JSON beside a weights file: its sha256 and the conditions of its training."""
    return Path(path).with_suffix(".json")


def shipped_key(meta: dict) -> str:
    """A network's key in the weights file: the hash of its description (:meth:`LSTMPredictor.meta`) without
    the PyTorch version (a ``state_dict`` loads in any version)."""
    return hashlib.sha256(json.dumps({k: v for k, v in meta.items() if k != "torch"}, sort_keys=True)
                          .encode()).hexdigest()[:16]


def shipped_weights() -> dict:
    """``{key: {"meta", "info", "state"}}`` of the weights in use (:func:`weights_path`), after checking the
    file's sha256 against its manifest; empty if there is no such file."""
    path = weights_path()
    if not path.is_file():
        return {}
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHIPPED:
        man = manifest_path(path)
        try:
            manifest = json.loads(man.read_text(encoding="utf-8"))
            want = manifest["sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            raise SpotError(f"{path}: its manifest {man.name} is missing or unreadable; write both with "
                            "`tt spot train-weights --out FILE`") from None
        got = entries.file_sha256(path)
        if got != want:
            raise SpotError(f"{path}: sha256 {got[:12]}... does not match its manifest's {str(want)[:12]}...; "
                            "restore the file or write new weights with `tt spot train-weights --out FILE`")
        try:
            blob = _torch().load(path, map_location="cpu", weights_only=True)
            nets = blob["networks"]
        except Exception as exc:
            raise SpotError(f"{path}: not a weights file ({type(exc).__name__}); write one with "
                            "`tt spot train-weights --out FILE`") from None
        _SHIPPED.clear()
        _SHIPPED[key] = nets
    return _SHIPPED[key]


class LSTMPredictor:
    """A revocation predictor with one LSTM network per instance type (module docstring).

    Parameters
    ----------
    kind : {"revpred", "tributary"}
    settings : NetSettings, optional
    cache : bool
        Read and write trained weights under ``cache_dir`` (default :func:`cache_root`).
    cache_dir : path, optional
    """

    def __init__(self, kind: str, settings: NetSettings | None = None, cache: bool = True, cache_dir=None):
        if kind not in KINDS:
            raise SpotError(f"unknown LSTM predictor {shown(kind)}; known: {list(KINDS)}")
        self.kind = kind
        self.name = kind
        self.settings = (settings or NetSettings()).checked()
        self.max_price = self.settings.max_price or ("algorithm2" if kind == "revpred" else "random")
        self.cache = bool(cache)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        #: take a network from the shipped weights (:func:`shipped_weights`) when they hold its description
        self.use_shipped = True
        self.trace = None
        self._fitted_key = None
        self._models: dict[str, dict] = {}
        #: single queries already answered, (type, minute, maximum price) -> probability (see :meth:`probability`)
        self._answers: dict[tuple, float] = {}
        #: RevPred's LSTM encoding of a minute's history, (type, minute) -> tensor (see :meth:`probability`)
        self._encoded: dict[tuple, object] = {}
        #: per type: training samples, positive fraction, CPU seconds, whether it came from the cache
        self.fit_info: dict[str, dict] = {}

    # -- fitting -----------------------------------------------------------------------------------
    def meta(self, trace, name: str, end: int) -> dict:
        """What identifies the network of type ``name`` fitted on ``trace`` up to minute ``end``."""
        torch = _torch()
        meta = {"format": FORMAT, "kind": self.kind, "type": name, "max_price": self.max_price,
                "settings": asdict(self.settings), "trace_sha256": trace_checksum(trace, name, end), "end_minute": int(end),
                "torch": torch.__version__}
        return json.loads(json.dumps(meta))

    def cache_path(self, meta: dict) -> Path:
        key = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()[:16]
        root = self.cache_dir or cache_root()
        return root / f"{meta['kind']}-{meta['type']}-seed{meta['settings']['seed']}-{key}.pt"

    @staticmethod
    def cache_entry(path: Path, meta: dict) -> entries.Entry:
        """The stored weights at ``path`` as an entry: settings = ``meta`` but the prices' checksum, which is
        the identity of the data read."""
        settings = {k: v for k, v in meta.items() if k != "trace_sha256"}
        return entries.Entry(path, settings, {"trace_sha256": meta["trace_sha256"]})

    @staticmethod
    def _read(path: Path, meta: dict) -> dict:
        """A stored blob (weights only; its own description must be ``meta``), or ValueError."""
        try:
            blob = _torch().load(path, map_location="cpu", weights_only=True)
            stored = blob["meta"]
        except Exception as exc:  # a truncated or foreign file whose sidecar was forged along: train again
            raise ValueError(f"unreadable cached weights ({type(exc).__name__})") from None
        if stored != meta:
            raise ValueError("cached weights describing other settings")
        return blob

    def _train(self, trace, name: str, i: int, end: int, Z, stats) -> tuple:
        rng = spot_rng(self.settings.seed, "lstm-training-bids", i)
        data = training_set(trace, name, end, self.max_price, self.settings.stride, rng, self.settings.delta)
        if data["P"] in (0.0, 1.0):    # one class only: the base rate is the answer
            return None, {"cpu_s": 0.0, "loss": float("nan"), "samples": len(data["labels"]), "P": data["P"]}
        X = windows(self.kind, _padded(Z), data["minutes"], (data["bids"] - trace.series(name)[data["minutes"]])
                    / stats["scale"])
        return train_network(self.kind, X, data["labels"], self.settings)

    def fit(self, trace, until: float | None = None) -> "LSTMPredictor":
        """Train (or load from the cache) one network per type on the minutes before ``until``."""
        end = trace.n_minutes if until is None else min(trace.n_minutes, int(until // 60))
        check_history(end, "the fit period" if until is not None else "the price trace")
        key = (tuple(trace_checksum(trace, n, end) for n in trace.types), end)
        if key == self._fitted_key and self.trace is not None:
            self.trace = trace
            return self
        torch = _torch()
        _threads(torch, self.settings.threads)
        self._models, self.fit_info = {}, {}
        for i, name in enumerate(trace.types):
            Z, stats = input_table(trace, name, end)
            meta = self.meta(trace, name, end)
            path = self.cache_path(meta)
            shipped = shipped_weights().get(shipped_key(meta)) if self.use_shipped else None
            if shipped is not None:                 # trained once, shipped: the same weights on any CPU
                model = build_network(self.kind, self.settings.hidden) if shipped["state"] is not None else None
                if model is not None:
                    model.load_state_dict(shipped["state"])
                    model.eval()
                info = dict(shipped["info"], cpu_s=0.0, cached=True, source="shipped")
                path = weights_path()
            elif not self.cache:
                model, info = self._train(trace, name, i, end, Z, stats)
                info = dict(info, cached=False)
            else:
                def write(value, tmp, meta=meta):
                    model, info = value
                    torch.save({"meta": meta, "info": info, "state": None if model is None else model.state_dict()},
                               tmp)

                value, how = self.cache_entry(path, meta).ensure(
                    lambda i=i, name=name, Z=Z, stats=stats: self._train(trace, name, i, end, Z, stats), write,
                    lambda p, meta=meta: self._read(p, meta), stacklevel=2)
                if how == "reused":
                    blob = value
                    model = build_network(self.kind, self.settings.hidden) if blob["state"] is not None else None
                    if model is not None:
                        model.load_state_dict(blob["state"])
                        model.eval()
                    info = dict(blob["info"], cached=True)
                else:
                    model, info = value
                    info = dict(info, cached=False)
            self._models[name] = {"model": model, "P": info["P"], "Zpad": _padded(Z), "scale": stats["scale"],
                                  "model64": None if model is None else _float64(model)}
            info.setdefault("source", "cache" if info["cached"] else "trained")
            self.fit_info[name] = dict(info, path=str(path) if self.cache or shipped is not None else "")
        self.trace, self._fitted_key = trace, key
        self._answers, self._encoded = {}, {}
        return self

    # -- inference ---------------------------------------------------------------------------------
    def network(self, name: str):
        """The fitted network of type ``name`` (None where the type had no positive example to learn)."""
        return self._entry(name)["model"]

    def _entry(self, name: str) -> dict:
        if self.trace is None:
            raise SpotError("fit the predictor on a price trace first (predictor.fit(trace))")
        if name not in self._models:
            raise SpotError(f"the predictor was fitted without type {shown(name)}; fitted: {list(self._models)}")
        return self._models[name]

    def raw_outputs(self, name: str, bids, minutes) -> np.ndarray:
        """The networks' outputs ``o`` (before Eq. 3) at ``minutes`` for maximum prices ``bids``."""
        e = self._entry(name)
        minutes = np.asarray(minutes, int).ravel()
        bids = np.broadcast_to(np.asarray(bids, float), minutes.shape)
        if len(minutes) and (minutes.min() < 0 or minutes.max() >= self.trace.n_minutes):
            raise SpotError(f"minute outside the price trace (0 to {self.trace.n_minutes - 1})")
        if e["model"] is None:
            return np.full(len(minutes), 0.5)
        torch = _torch()
        _threads(torch, self.settings.threads)
        price = self.trace.series(name)[minutes]
        out = []
        net = e["model64"]
        with torch.no_grad():
            for lo in range(0, len(minutes), 4096):
                sl = slice(lo, lo + 4096)
                a, b = windows(self.kind, e["Zpad"], minutes[sl], (bids[sl] - price[sl]) / e["scale"])
                out.append(_rounded(torch.sigmoid(net(_f64(torch, a), None if b is None else _f64(torch, b)))))
        return np.concatenate(out) if out else np.zeros(0)

    def probabilities(self, name: str, bids, minutes) -> np.ndarray:
        """Eq. 3 (reconstructed, :func:`tt_spotsim.revocation.calibrate`) on :meth:`raw_outputs`: the
        probability of a revocation within the hour after each of ``minutes``."""
        e = self._entry(name)
        if e["model"] is None:
            return np.full(len(np.atleast_1d(minutes)), e["P"])
        return np.asarray(R.calibrate(self.raw_outputs(name, bids, minutes), e["P"]), float)

    def probability(self, name: str, bid: float, t: float) -> float:
        """The provisioner's single query. A query already answered since the last :meth:`fit` (same type,
        minute and maximum price) is answered again without the network: SpotTune's two θ runs of a seed draw
        the same maximum prices at the same minutes until their jobs diverge, and the inputs, hence the
        output, are the same (same result, about a third of the network calls in notebook 13's grid)."""
        self._entry(name)
        m = R.minute_of(self.trace, t)
        key = (name, int(m), float(bid))
        if key not in self._answers:
            if len(self._answers) >= 200_000:
                self._answers.clear()
                self._encoded.clear()
            e = self._models[name]
            if self.kind == "revpred" and e["model"] is not None:
                o = self._revpred_single(e, name, float(bid), int(m))
                self._answers[key] = float(np.asarray(R.calibrate(o, e["P"]), float)[0])
            else:
                self._answers[key] = float(self.probabilities(name, np.array([bid]), np.array([m]))[0])
        return self._answers[key]

    def _revpred_single(self, e: dict, name: str, bid: float, m: int) -> np.ndarray:
        """RevPred's output for one query, the network's own forward pass in two steps: the LSTM's encoding of
        the minute's history (the maximum price does not enter it) is kept per (type, minute), the fully
        connected part over the present and the maximum price is run for each query (same operations, same
        result as :meth:`raw_outputs`)."""
        torch = _torch()
        _threads(torch, self.settings.threads)
        price = self.trace.series(name)[[m]]
        a, b = windows(self.kind, e["Zpad"], np.array([m]), (np.array([bid]) - price) / e["scale"])
        net = e["model64"]
        with torch.no_grad():
            h = self._encoded.get((name, m))
            if h is None:
                _, (hh, _) = net.lstm(_f64(torch, a))
                h = self._encoded[(name, m)] = hh[-1]
            logit = net.out(torch.cat([h, net.fc(_f64(torch, b))], dim=1)).squeeze(-1)
            return _rounded(torch.sigmoid(logit))


class RevPredPredictor(LSTMPredictor):
    """RevPred (§III-B): split history/present network, Alg. 2 maximum prices in training."""

    def __init__(self, settings: NetSettings | None = None, cache: bool = True, cache_dir=None):
        super().__init__("revpred", settings, cache, cache_dir)


class TributaryPredictor(LSTMPredictor):
    """Tributary's predictor as the SpotTune authors re-implemented it: one LSTM, random maximum prices."""

    def __init__(self, settings: NetSettings | None = None, cache: bool = True, cache_dir=None):
        super().__init__("tributary", settings, cache, cache_dir)


#: Every predictor by name: the models of :mod:`tt_spotsim.revocation` and the two LSTMs.
PREDICTORS = {**R.PREDICTORS, "revpred": RevPredPredictor, "tributary": TributaryPredictor}


def make_predictor(name: str, settings: NetSettings | None = None):
    """A fresh predictor by name (``empirical``, ``logistic``, ``revpred``, ``tributary``); ``settings``
    for the LSTMs."""
    if name not in PREDICTORS:
        raise SpotError(f"unknown revocation predictor {shown(name)}; known: {list(PREDICTORS)}")
    if name in KINDS:
        return PREDICTORS[name](settings)
    return PREDICTORS[name]()
