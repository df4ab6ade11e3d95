"""RevPred's and Tributary's LSTM weights (tt_spotsim.revpred): Fig. 10's quick-profile networks are
trained once and shipped (revpred_weights.pt, its sha256 in revpred_weights.json), so notebooks 13 and 15
and `tt spot predictors` give the same numbers with PyTorch's non-vectorised kernels
(ATEN_CPU_CAPABILITY=default, oneDNN at SSE4.1, OpenBLAS' Prescott kernels) as with the machine's default
ones, SpotTune with each LSTM in the loop too, where training them again does not;
re-training is an explicit command whose weights are used only when named; inference runs in float64
and is rounded to float32."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import assert_one_line_error, tt_cli

pytest.importorskip("torch")

from tt_workbook.runs import profiles  # noqa: E402
from tt_spotsim import revpred as RP
from tt_workbook.studies.spottune import revpred_study as RS  # noqa: E402

#: What a subprocess runs, with a fresh weight cache: `tt spot predictors` on two types (Fig. 10 (a, b) from
#: the shipped weights), RevPred's outputs through both inference paths, and one small network trained
#: here; prints the scores, where the weights came from, the outputs, that network's weights and the
#: CPU capability PyTorch uses.
SCRIPT = textwrap.dedent("""
    import contextlib, hashlib, io, json, sys
    from pathlib import Path
    import numpy as np
    import torch
    import tt_spotsim.revpred as RP
    from tt_workbook.runs import profiles
    from tt_workbook.studies.spottune import revpred_study as RS
    from tt_workbook.cli import main
    root = Path(sys.argv[1])
    RP.cache_root = lambda: root
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["spot", "predictors", "--prices", "synthetic", "--seed", "1", "--types", "r4.large",
                     "r3.xlarge", "--json"]) == 0
    r = json.loads(buf.getvalue())
    cfg = profiles.settings("quick", "revpred")
    trace = RS.revpred_market(cfg, "synthetic", 1).subset(["r4.large"])
    until = RS.fig10_split(trace, cfg)[0]
    pred = RP.make_predictor("revpred", RP.settings_from(cfg)).fit(trace, until=until)
    m = np.arange(int(until // 60), trace.n_minutes, 7)
    bids = trace.series("r4.large")[m] * 1.1
    raw = pred.raw_outputs("r4.large", bids, m)
    single = [pred.probability("r4.large", float(b), float(t) * 60) for b, t in zip(bids[:200], m[:200])]
    # SpotTune with each predictor in the loop (notebook 13's main reading, notebook 15's Fig. 10 (c)) on the
    # LoR and staged workloads (curves from the shipped loss table), one submission seed
    from tt_workbook.studies.spottune import grids as G
    full = RS.revpred_market(cfg, "synthetic", 1)
    fitted = RS.fig10_predictors(full, cfg, names=("revpred", "tributary"))
    spot_cfg = profiles.settings("quick", "spottune")
    sets = [G.resolve_job_set("sklearn/lor"), G.resolve_job_set("staged/staged-digits")]
    loop = RS.fig10c_grid(sets, full, fitted, [1], cfg, spot_cfg, approaches=["spottune-1", "spottune-0.7"])
    loop = loop[["predictor", "approach", "job_set", "cost", "jct_s", "steps_free", "revocations"]].values.tolist()
    tiny = RP.NetSettings(hidden=4, epochs=1, batch_size=64, stride=10, seed=3)
    own = RP.LSTMPredictor("tributary", tiny, cache=False).fit(trace, until=until)
    state = own._models["r4.large"]["model"].state_dict()
    print(json.dumps({"scores": r["scores"], "fits": r["fits"], "raw": raw.tolist(), "single": single, "loop": loop,
                      "trained": hashlib.sha256(b"".join(v.numpy().tobytes() for v in state.values())).hexdigest(),
                      "capability": torch.backends.cpu.get_cpu_capability()}))
""")


#: Another CPU, emulated: PyTorch's non-vectorised kernels, oneDNN limited to SSE4.1, OpenBLAS' Prescott kernels.
OTHER_CPU = {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41", "OPENBLAS_CORETYPE": "Prescott"}


def run(root: Path, other: dict) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    for k in (RP.WEIGHTS_ENV, "TT_SPOT_CURVE_LOSSES", "TT_SPOT_STEP_TIMES", *OTHER_CPU):
        env.pop(k, None)
    env.update(other)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def two_cpus(tmp_path_factory):
    """The same seed twice, in fresh weight caches: on this machine's kernels and on another CPU's (emulated)."""
    return {k: run(tmp_path_factory.mktemp(k), env) for k, env in (("default", {}), ("plain", OTHER_CPU))}


def test_fig10_from_the_shipped_weights_is_the_same_with_other_kernels(two_cpus):
    a, b = two_cpus["default"], two_cpus["plain"]
    assert b["scores"] == a["scores"]                                # accuracy, F1, mean probability: identical
    assert b["raw"] == a["raw"] and b["single"] == a["single"]
    assert b["loop"] == a["loop"]                                    # cost, JCT, free steps, revocations
    assert len(a["loop"]) == 2 * 2 * 2 and all(cost > 0 and jct > 0 for _, _, _, cost, jct, _, _ in a["loop"])
    assert [(f["predictor"], f["type"]) for f in a["fits"]] == [("revpred", "r4.large"), ("revpred", "r3.xlarge"),
                                                               ("tributary", "r4.large"), ("tributary", "r3.xlarge")]
    assert all(f["source"] == "shipped" and f["cpu_s"] == 0 for f in a["fits"] + b["fits"])   # none trained here
    assert {r["predictor"] for r in a["scores"]} == {"revpred", "tributary", "logistic"}
    assert all(0 <= x <= 1 for x in a["raw"]) and len(a["raw"]) > 100 and len(set(a["raw"])) > 50
    # why the shipped weights: where the kernels really differ, a network trained here differs
    if a["capability"] != b["capability"]:
        assert a["trained"] != b["trained"]


def test_shipped_weights_match_their_manifest_and_load_as_weights_only():
    import torch

    manifest = json.loads(RP.manifest_path(RP.WEIGHTS).read_text())
    assert manifest["sha256"] == hashlib.sha256(RP.WEIGHTS.read_bytes()).hexdigest()
    assert manifest["bytes"] == RP.WEIGHTS.stat().st_size < 400_000
    blob = torch.load(RP.WEIGHTS, map_location="cpu", weights_only=True)
    nets = blob["networks"]
    assert len(nets) == manifest["networks"] == 12
    # every network notebooks 13 and 15 fit: both kinds, every type of Fig. 10's quick trace
    cfg = profiles.settings("quick", "revpred")
    trace = RS.revpred_market(cfg, "synthetic", 1)
    assert sorted((n["meta"]["kind"], n["meta"]["type"]) for n in nets.values()) == sorted(
        (k, t) for k in RP.KINDS for t in trace.types)
    assert all(n["meta"]["settings"]["hidden"] == cfg["hidden"] and n["meta"]["settings"]["seed"] == 1
               for n in nets.values())
    assert {"cpu", "torch", "trained", "environment"} <= set(manifest)


def test_train_weights_are_used_only_when_named(tmp_path, monkeypatch):
    monkeypatch.setattr(RP, "cache_root", lambda: tmp_path / "cache")
    out = tmp_path / "mine.pt"
    manifest = RS.train_weights(out, "quick", seed=1, smoke=True)
    assert manifest["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest() and manifest["smoke"] is True
    cfg = profiles.settings("quick", "revpred", True)
    trace = RS.revpred_market(cfg, "synthetic", 1)
    before = RS.fig10_predictors(trace, cfg, names=("tributary",))["tributary"].fit_info
    assert {i["source"] for i in before.values()} == {"trained"}       # the smoke networks are not shipped
    monkeypatch.setenv(RP.WEIGHTS_ENV, str(out))
    named = RS.fig10_predictors(trace, cfg, names=("tributary",))["tributary"]
    assert {i["source"] for i in named.fit_info.values()} == {"shipped"}
    blob = __import__("torch").load(out, weights_only=True)["networks"]
    want = {n["meta"]["type"]: n["state"] for n in blob.values() if n["meta"]["kind"] == "tributary"}
    for t, e in named._models.items():
        got = e["model"].state_dict()
        assert all(bool((got[k] == want[t][k]).all()) for k in got)


def test_bad_weights_input_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "folder").mkdir()
    code, err = tt_cli(capsys, "spot", "train-weights", "--out", str(tmp_path / "folder"))
    assert_one_line_error(code, err, "--out", "is a folder", "revpred_weights.pt")
    code, err = tt_cli(capsys, "spot", "train-weights", "--out", str(tmp_path / "w.csv"))
    assert_one_line_error(code, err, "--out", "ending in .pt")
    argv = ("spot", "predictors", "--types", "r4.large", "--predictors", "revpred")
    monkeypatch.setenv(RP.WEIGHTS_ENV, str(tmp_path / "missing.pt"))
    code, err = tt_cli(capsys, *argv)
    assert_one_line_error(code, err, f"{RP.WEIGHTS_ENV}=", "does not exist", "train-weights")
    bad = tmp_path / "bad.pt"                                          # a byte changed: its manifest says otherwise
    data = bytearray(RP.WEIGHTS.read_bytes())
    data[len(data) // 2] ^= 1
    bad.write_bytes(bytes(data))
    RP.manifest_path(bad).write_text(RP.manifest_path(RP.WEIGHTS).read_text())
    monkeypatch.setenv(RP.WEIGHTS_ENV, str(bad))
    code, err = tt_cli(capsys, *argv)
    assert_one_line_error(code, err, "bad.pt", "does not match its manifest", "train-weights")
    RP.manifest_path(bad).unlink()
    code, err = tt_cli(capsys, *argv)
    assert_one_line_error(code, err, "bad.pt", "manifest bad.json is missing", "train-weights")


def test_logistic_fit_is_rounded_to_float32_and_its_output_summed_exactly():
    import math
    from fractions import Fraction

    import numpy as np

    from tt_spotsim import market as M, revocation as R

    trace = M.market("synthetic", seed=2, days=3.0)
    pred = R.LogisticPredictor(stride=10).fit(trace, until=2 * 86400)
    name = next(n for n, m in pred._models.items() if m[0] == "logistic")
    _, P, mu, sd, coef, b0, scale = pred._models[name]
    assert all(float(np.float32(c)) == c for c in coef) and float(np.float32(b0)) == b0
    t = 2.5 * 86400
    f = pred._feats[name][R.minute_of(trace, t)]
    bid = 1.2 * trace.series(name)[R.minute_of(trace, t)]
    x = np.append(f, bid / scale / f[0] - 1.0)
    z = float(sum(Fraction(float(v)) for v in ((x - mu) / sd) * coef)) + b0      # the exact sum, rounded once
    assert pred.raw_output(name, bid, t) == 1.0 / (1.0 + math.exp(-z))
