"""SpotTune workloads: TrimTuner curves as job sets, the speed model, the scikit-learn curve generator."""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_spotsim import curves as C, workloads as W
from tt_spotsim.catalogue import SpotError


def test_speed_model_by_hand():
    m = W.SpeedModel(0.9)
    assert m.relative_time("r4.large") == 1.0
    # Amdahl (0.1 + 0.9/16) / (0.1 + 0.9/2) times ECU per vCPU 3.5 / (53.5/16)
    assert m.relative_time("m4.4xlarge") == pytest.approx((0.1 + 0.9 / 16) / 0.55 * 3.5 / (53.5 / 16))
    assert W.SpeedModel(1.0).relative_time("m4.2xlarge") == pytest.approx(2 / 8 * 3.5 / 3.25)
    assert W.SpeedModel(0.0).relative_time("r4.xlarge") == pytest.approx(3.5 / 3.375)
    with pytest.raises(SpotError, match=r"parallel_fraction must lie in \[0, 1\]"):
        W.SpeedModel(1.5)


def test_trimtuner_job_sets_are_the_measured_curves():
    sets = W.trimtuner_job_sets("cnn", reference_hours=4.0)
    assert len(sets) == 24 and all(len(s) == 12 for s in sets)
    js = next(s for s in sets if s.name == "cnn/t2.small-x8")
    full = load_benchmark("cnn").full_size()
    g = full[(full.vm_flavor == "t2.small") & (full.n_workers == 8)].sort_values(["learning_rate", "batch_size", "sync"])
    for job, (_, row) in zip(js.jobs, g.iterrows()):
        np.testing.assert_allclose(job.metric, 1 - np.asarray(row["curve"]))
        # the measured seconds per curve point, times one factor per job set
    ratio = [job.seconds_per_step["r4.large"] / (r.training_time / len(r.curve)) for job, r in zip(js.jobs, g.itertuples())]
    np.testing.assert_allclose(ratio, ratio[0])
    hours = [job.seconds_per_step["r4.large"] * job.max_steps / 3600 for job in js.jobs]
    assert np.median(hours) == pytest.approx(4.0)
    assert js.true_best() == int(np.argmax([c[-1] for c in g["curve"]]))
    with pytest.raises(SpotError, match=r"unknown job set\(s\) \['cnn/t2.nano-x1'\]"):
        W.trimtuner_job_sets("cnn", groups=["cnn/t2.nano-x1"])


def test_user_job_set_is_checked():
    js = W.job_set("mine", [[1.0, 0.5, 0.4], [0.9, 0.8]], {"r4.large": 10.0, "m4.4xlarge": 3.0})
    assert [j.max_steps for j in js.jobs] == [3, 2] and js.true_best() == 0
    with pytest.raises(SpotError, match="seconds per step must be positive"):
        W.job_set("mine", [[1.0]], {"r4.large": 0.0})
    with pytest.raises(SpotError, match="non-negative metric values"):
        W.job_set("mine", [[1.0, np.nan]], {"r4.large": 1.0})


def test_curve_generator_is_seeded_cached_and_atomic(tmp_path):
    a = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    files = [p for p in tmp_path.iterdir() if p.suffix == ".csv"]
    assert len(files) == 1 and files[0].name.startswith("lir-quick-seed3-") and not files[0].name.startswith(".")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files[0].name + end for end in ("", ".entry.json", ".lock"))
    assert sorted(a["setting"].unique()) == list(range(12)) and len(a) == 12 * C.SIZES["quick"]["epochs"]
    b = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False, force=True)["lir"]
    np.testing.assert_allclose(a["metric"], b["metric"])          # same seed, same curves
    np.testing.assert_array_equal(a["seconds"], b["seconds"])     # and the same step times (the shipped table's)
    mtime = files[0].stat().st_mtime_ns
    c = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    assert files[0].stat().st_mtime_ns == mtime                  # reused from the cache, not recomputed
    np.testing.assert_allclose(a["metric"], c["metric"])
    raw = bytearray(files[0].read_bytes())                        # a damaged cache: set aside, recomputed
    raw[-3] = ord("7") if raw[-3] != ord("7") else ord("8")
    files[0].write_bytes(bytes(raw))
    with pytest.warns(UserWarning, match="checksum.*moved to lir-quick-seed3-.*csv.corrupt and recomputed"):
        e = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    np.testing.assert_allclose(a["metric"], e["metric"])
    d = C.generate(["lir"], "quick", seed=4, root=tmp_path, progress=False)["lir"]
    assert not np.allclose(a["metric"], d["metric"])
    decayed = a[(a["schedule"] == "step-decay")]
    assert set(a["schedule"]) == {"constant", "step-decay"} and len(decayed) == 6 * C.SIZES["quick"]["epochs"]
    sets = C.job_sets(["lir"], "quick", seed=3, root=tmp_path, reference_hours=2.0)
    assert sets[0].name == "sklearn/lir" and len(sets[0]) == 12
    with pytest.raises(SpotError, match=r"unknown curve algorithm 'resnet'; known: \['lor'"):
        C.generate(["resnet"], root=tmp_path)


def test_speed_model_per_workload_ranks_the_types_differently():
    # hand-computed step times relative to r4.large (ECU per vCPU: r4 3.5 / 3.375, r3 and m4.2xlarge 3.25,
    # m4.4xlarge 53.5/16 = 3.34375; Amdahl with f = 0.9: 0.1 + 0.9/n)
    single = {"r4.large": 1.0, "r4.xlarge": 3.5 / 3.375, "r4.2xlarge": 3.5 / 3.375, "m4.4xlarge": 3.5 / 3.34375,
              "r3.xlarge": 3.5 / 3.25, "m4.2xlarge": 3.5 / 3.25}
    amdahl = {2: 0.55, 4: 0.325, 8: 0.2125, 16: 0.15625}
    vcpus = {"r4.large": 2, "r3.xlarge": 4, "r4.xlarge": 4, "m4.2xlarge": 8, "r4.2xlarge": 8, "m4.4xlarge": 16}
    parallel = {t: amdahl[vcpus[t]] / 0.55 * single[t] for t in single}
    one, many = W.speed_model_for("sklearn/svm"), W.speed_model_for("cnn/t2.small-x8")
    assert one.parallel_fraction == 0.0 and many.parallel_fraction == 0.9
    for t in single:
        assert one.relative_time(t) == pytest.approx(single[t])
        assert many.relative_time(t) == pytest.approx(parallel[t])
    def fastest_first(m):
        return sorted(single, key=lambda t: (round(m.relative_time(t), 12), t))
    assert fastest_first(one) == ["r4.large", "r4.2xlarge", "r4.xlarge", "m4.4xlarge", "m4.2xlarge", "r3.xlarge"]
    assert fastest_first(many) == ["m4.4xlarge", "r4.2xlarge", "m4.2xlarge", "r4.xlarge", "r3.xlarge", "r4.large"]
    # cost per step at on-demand prices: single-threaded, the cheapest type is also the fastest; parallel, not
    def cost(m):
        return {t: m.relative_time(t) * W.instance(t).on_demand for t in single}
    assert min(cost(one), key=cost(one).get) == "r4.large"
    assert W.speed_model_for("sklearn/mlp", 0.5).parallel_fraction == 0.5       # the swept fraction, threaded jobs only
    assert W.speed_model_for("sklearn/lor", 0.5).parallel_fraction == 0.0
    assert W.threads_of("my-own.csv")[0] == "multi-threaded"
    table = W.speed_models()
    assert set(table["workload"]) >= {"sklearn/lor", "staged/staged-digits", "cnn"}
    assert (table.loc[table["threads"] == "single-threaded", "time r4.large"] == 1.0).all()


def test_generated_job_sets_use_each_algorithms_speed_model(tmp_path):
    C.generate(["lir", "mlp"], "quick", seed=3, root=tmp_path, progress=False)
    lir, mlp = C.job_sets(["lir", "mlp"], "quick", seed=3, root=tmp_path, reference_hours=2.0)
    def r(js):
        return js.jobs[0].seconds_per_step["m4.4xlarge"] / js.jobs[0].seconds_per_step["r4.large"]
    assert r(lir) == pytest.approx(3.5 / 3.34375)
    assert r(mlp) == pytest.approx(0.15625 / 0.55 * 3.5 / 3.34375)
    same, _ = C.job_sets(["lir", "mlp"], "quick", seed=3, root=tmp_path, speed=W.SpeedModel(0.9))
    assert r(same) == pytest.approx(r(mlp))                       # an explicit speed model still applies to all
