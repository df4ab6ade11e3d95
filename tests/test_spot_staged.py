"""The staged workload (tt_spotsim.staged): real step-decay training whose stages Eq. 7 must find."""

from __future__ import annotations

import numpy as np
import pytest

from tt_spotsim import earlycurve as ec, staged as ST
from tt_workbook.studies.spottune import earlycurve_study as ECS
from tt_spotsim.catalogue import SpotError


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("staged")
    return root, ST.generate(seed=1, root=root)


def test_learning_rate_schedule_by_hand():
    hp = {"eta0": 0.3, "decay_epoch": 8, "decay_factor": 0.02}
    assert [ST.learning_rate(hp, e) for e in (0, 7, 8, 23)] == pytest.approx([0.3, 0.3, 0.006, 0.006])
    assert len(ST.grid()) == 12 and {h["decay_epoch"] for h in ST.grid()} == {8, 12}


def test_objective_is_the_sum_of_the_ten_binary_log_losses_plus_l2():
    from sklearn.linear_model import SGDClassifier
    from sklearn.metrics import log_loss

    X, y = ST.training_data(1)
    m = SGDClassifier(loss="log_loss", alpha=ST.ALPHA_L2, random_state=0).fit(X[:300], y[:300])
    z = m.decision_function(X)
    # a second formula: scikit-learn's binary log loss of each one-vs-rest model, summed over the classes
    by_class = sum(log_loss(y == k, 1 / (1 + np.exp(-z[:, k])), labels=[False, True]) for k in range(10))
    assert ST.objective(m, X, y) == pytest.approx(by_class + 0.5 * ST.ALPHA_L2 * float((m.coef_ ** 2).sum()), rel=1e-9)


def test_eq7_finds_the_decay_epoch_where_it_splits(trained):
    _, df = trained
    assert sorted(df["setting"].unique()) == list(range(12)) and len(df) == 12 * ST.EPOCHS
    split = 0
    for _, g in df.groupby("setting"):
        m = g.sort_values("step")["metric"].to_numpy()
        starts = ec.stage_starts(m)[1:]
        true = int(g["decay_epoch"].iloc[0])            # 0-based epoch whose step first uses the cut rate
        assert len(starts) <= 1
        if starts:
            split += 1
            assert abs(starts[0] - true) <= 2
        # the loss is flat before the cut (the calm steps Eq. 7 needs) and lower after it
        assert np.all(ec.change_rates(m)[true - 5:true] < ec.EPSILON)
        assert m[-1] < m[true - 1]
    assert split >= 8                                     # measured: 8 of 12 (the 0.02 cuts of small rates stay one stage)


def test_staged_fit_beats_the_single_stage_fit_on_the_split_curves(trained):
    _, df = trained
    t = ECS.staged_boundaries(df, theta=0.7)
    s = t[t["stage_starts"].apply(len) > 0]
    assert len(s) >= 8
    # the staged fit extrapolates the second stage only; the one-stage fit bends through the drop
    assert s["earlycurve_error"].mean() < 0.5 * s["single-stage_error"].mean()
    one = t[t["stage_starts"].apply(len) == 0]
    np.testing.assert_allclose(one["earlycurve_error"], one["single-stage_error"])   # one stage: the same fit


def test_cache_is_a_csv_keyed_by_the_settings_and_training_is_seeded(trained):
    root, df = trained
    files = [p for p in root.iterdir() if p.suffix == ".csv"]
    assert len(files) == 1 and files[0].name.startswith("staged-digits-seed1-")
    assert files[0].with_name(files[0].name + ".entry.json").is_file()   # an entry of tt_core.data.entries
    mtime = files[0].stat().st_mtime_ns
    again = ST.generate(seed=1, root=root)
    assert files[0].stat().st_mtime_ns == mtime
    np.testing.assert_allclose(again["metric"], df["metric"])
    assert ST.cache_path(1, 30, root) != files[0] and ST.cache_path(2, ST.EPOCHS, root) != files[0]
    hp = ST.grid()[4]
    m1, _ = ST.train_curve(hp, seed=1)
    np.testing.assert_allclose(m1, df[df["setting"] == 4]["metric"].to_numpy(), rtol=1e-12)
    m2, _ = ST.train_curve(hp, seed=2)
    assert not np.allclose(m1, m2)
    with pytest.raises(SpotError, match="epochs must be an integer above the last decay epoch"):
        ST.generate(seed=1, epochs=10, root=root)


def test_job_set_is_single_threaded(trained):
    root, _ = trained
    js = ST.job_set(seed=1, root=root, reference_hours=2.0)
    assert js.name == "staged/staged-digits" and len(js) == 12
    # f = 0: only ECU per vCPU matters, so r4.large (3.5 ECU per vCPU) is the fastest type
    t = js.jobs[0].seconds_per_step
    assert min(t, key=t.get) == "r4.large"
    assert t["m4.4xlarge"] / t["r4.large"] == pytest.approx(3.5 / (53.5 / 16))
    hours = [j.seconds_per_step["r4.large"] * j.max_steps / 3600 for j in js.jobs]
    assert np.median(hours) == pytest.approx(2.0)


def test_profiles_add_the_staged_workload_with_its_own_speed_model(trained, monkeypatch):
    from tt_workbook.runs import profiles
    from tt_spotsim import curves as C
    from tt_workbook.studies.spottune import grids as G

    root, _ = trained
    monkeypatch.setattr(C, "cache_root", lambda: root)          # the module's trained cache, no retraining
    assert profiles.settings("quick", "spottune")["staged"] and not profiles.settings("quick", "spottune", True)["staged"]
    cfg = {**profiles.settings("quick", "spottune"), "trimtuner": ["rnn/t2.xlarge-x4"], "sklearn": [],
           "parallel_fraction": 0.5}
    rnn, staged = G.study_job_sets(cfg)
    def ratio(js):
        return js.jobs[0].seconds_per_step["m4.4xlarge"] / js.jobs[0].seconds_per_step["r4.large"]
    assert staged.name == "staged/staged-digits" and ratio(staged) == pytest.approx(3.5 / 3.34375)
    assert ratio(rnn) == pytest.approx((0.5 + 0.5 / 16) / (0.5 + 0.5 / 2) * 3.5 / 3.34375)   # the swept f applies
    assert G.resolve_job_set("staged/staged-digits").name == staged.name
    assert "staged/staged-digits" in G.workload_names()
