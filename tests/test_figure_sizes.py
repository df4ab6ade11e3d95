"""Every notebook figure fits a laptop (issue 35): built from small hand-made data, each figure as shown inline
(JupyterLab's inline backend saves it with ``bbox_inches="tight"`` at ``figure.dpi`` = 100) is at most
1280 x 650 px, and no legend lies over a plotting area (so never over the curves, bars or error bars).

The pixel size is the figure's tight bounding box (what the notebook shows, legends outside the axes included)
plus matplotlib's 0.1-inch padding, times the dpi; the legend test compares display-coordinate boxes
(``get_window_extent`` after a draw) of every legend with every axes."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from tt_workbook.apps import own_job, tour  # noqa: E402
from tt_workbook.plotting import authors_code, figures, seed_bands
from tt_workbook.studies.outside_data import figures as claims
from tt_workbook.studies.fabulinus import figures as fabulinus
from tt_workbook.studies.nephele import figures as nephele
from tt_workbook.studies.fig1_fig2 import paper_curves as paper
from tt_workbook.studies.filters_beta import figures as studies  # noqa: E402
from tt_workbook.plotting.style import use_style  # noqa: E402
from tt_workbook.studies.spottune import figures as spot  # noqa: E402
from tt_spotsim.traces import PriceTrace  # noqa: E402

#: A 1280 x 720 laptop screen less JupyterLab's menu, tab and status bars (~70 px): the largest image, in px.
SCREEN = (1280, 650)
PAD_INCHES = 0.1          # savefig.pad_inches: the tight box is padded by this much on each side
RNG = np.random.default_rng(0)
BENCHES = ("cnn", "rnn")
SETS = ["cnn/t2.2xlarge-x4", "cnn/t2.small-x8", "rnn/t2.medium-x8", "rnn/t2.xlarge-x4", "sklearn/lor", "sklearn/svm",
        "sklearn/gbtr", "sklearn/lir", "sklearn/mlp", "staged/staged-digits"]
TYPES = ["r4.large", "r3.xlarge", "r4.xlarge", "m4.2xlarge", "r4.2xlarge", "m4.4xlarge"]


# ------------------------------------------------------------------------------------------------
# hand-made inputs, shaped as the notebooks' (column names of the analysis functions)
# ------------------------------------------------------------------------------------------------
def _curves(key="variant", levels=("trimtuner-dt", "trimtuner-gp", "fabolas", "eic", "eic-usd", "random"), x="cumulative_cost"):
    xs = np.geomspace(0.01, 10, 30)
    rows = []
    for b in BENCHES:
        for i, v in enumerate(levels):
            mean = 1 - 0.6 * np.exp(-xs * (i + 1))
            rows += [{"benchmark": b, key: v, x: xi, "mean": m, "lo": m - 0.05, "hi": min(m + 0.05, 1)}
                     for xi, m in zip(xs, mean)]
    return pd.DataFrame(rows)


def _sizes_table(n=200):
    sizes = np.repeat([600, 1200, 3000, 6000, 60000], n // 5)
    return pd.DataFrame({"size": sizes, "accuracy": RNG.uniform(0.1, 0.99, sizes.size),
                         "training_time": RNG.uniform(10, 3000, sizes.size), "cost": RNG.uniform(0.001, 2, sizes.size)})


def _factor_table(n=288):
    return pd.DataFrame({"vm_flavor": RNG.choice(["t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge"], n),
                         "n_cores": RNG.choice([8, 16, 32, 48, 64, 80, 96, 112], n),
                         "learning_rate": RNG.choice([1e-3, 1e-4, 1e-5], n), "batch_size": RNG.choice([16, 256], n),
                         "sync": RNG.choice(["sync", "async"], n), "accuracy": RNG.uniform(0.1, 0.99, n),
                         "training_time": RNG.uniform(10, 3000, n), "cost": RNG.uniform(0.001, 2, n)})


def _learning(n_configs=6):
    rows = []
    for c in range(n_configs):
        for s in range(1, 60):
            rows.append({"config_id": c, "step": s, "accuracy": 1 - np.exp(-s / (5 + c)), "vm_flavor": "t2.2xlarge",
                         "n_workers": 8, "learning_rate": 1e-4, "batch_size": 256, "sync": "async"})
    return pd.DataFrame(rows)


def _agreement():
    sizes = [600, 1200, 3000, 6000, 30000]
    return pd.DataFrame([{"metric": m, "size": s, "spearman": 0.5 + 0.08 * i, "kendall": 0.4 + 0.1 * i,
                          "top_overlap": 0.3} for m in ("accuracy", "training_time", "cost") for i, s in enumerate(sizes)])


def _status_grid():
    acc = np.linspace(0.5, 0.95, 10)
    tim = np.geomspace(60, 6000, 12)
    red = pd.DataFrame(RNG.uniform(0, 1, (10, 12)), index=acc, columns=tim)
    return red, pd.DataFrame(RNG.integers(0, 3, (10, 12)), index=acc, columns=tim)


def _crosstab():
    labels = ["feasible", "time ok", "accuracy ok", "neither"]
    return pd.DataFrame(RNG.integers(0, 60, (4, 4)), index=labels, columns=labels)


def _per_size():
    return pd.DataFrame({"size": [600, 1200, 3000, 6000, 60000], "feasible": [3, 9, 20, 33, 40],
                         "time_ok": [200, 180, 150, 120, 90], "accuracy_ok": [10, 30, 60, 90, 120], "n_configs": 288})


def _cno():
    rows = []
    for b in BENCHES:
        for h in (0, 1, 2):
            for k, opt in enumerate(("nephele", "lynceus", "cherrypick", "random")):
                for it in range(1, 40):
                    rows.append({"benchmark": b, "horizon": h, "optimizer": opt, "iteration": it, "cost": 0.1 * it,
                                 "time": 30.0 * it, "cno": 1 + 20 / (it + k + h)})
    return pd.DataFrame(rows)


def _fabulinus():
    rows = []
    for panel, lo in (("a", 0.01), ("b", 10), ("c", 1), ("d", 10)):
        for k, opt in enumerate(("fabulinus", "fabolas", "eic", "ei")):
            for x in np.geomspace(lo, lo * 1000, 25):
                m = 1 - 0.7 * np.exp(-x / lo / (k + 2))
                rows.append({"panel": panel, "benchmark": "cnn", "optimizer": opt, "x": x, "mean": m, "lo": m - 0.1,
                             "hi": min(1, m + 0.1)})
    return pd.DataFrame(rows)


def _trace(days=2):
    n = int(days * 1440)
    prices = {t: 0.1 * (i + 1) * (1 + 0.3 * np.sin(np.arange(n) / 200 + i)) for i, t in enumerate(TYPES)}
    return PriceTrace(start=pd.Timestamp("2017-04-26"), prices=prices, synthetic=True)


def _per_approach(sets):
    rows = [{"job_set": js, "approach": ap, "cost_norm": 1 + 0.3 * i, "jct_h_norm": 1.5 - 0.2 * i,
             "pcr_norm": 0.5 + 0.2 * i, "free_step_share": 0.1 * i, "refunded_share": 0.05 * i}
            for js in sets for i, ap in enumerate(spot.ORDER)]
    return pd.DataFrame(rows)


def _theta():
    thetas = np.round(np.arange(0.1, 1.01, 0.1), 1)
    rows = [{"job_set": js, "theta": t, "seed": s, "jct_s": 3600 * (1 + t), "cost": 1 + t + 0.1 * j,
             "top1": min(1, t + 0.3), "top3": min(1, t + 0.5)} for j, js in enumerate(SETS) for t in thetas for s in (1, 2)]
    iv = pd.DataFrame({"theta": thetas, "cost_vs_max_theta": (1 + thetas) / 2, "jct_vs_max_theta": (1 + thetas) / 2})
    for q in ("cost_vs_max_theta", "jct_vs_max_theta"):
        iv[q + "_lo"], iv[q + "_hi"] = iv[q] - 0.05, iv[q] + 0.05
    return pd.DataFrame(rows), iv


def _job(steps=300):
    s = np.arange(1, steps + 1)
    metric = 2.0 * np.exp(-s / 40) + 0.3 + 0.5 * (s > 150) * np.exp(-(s - 150) / 30)
    return SimpleNamespace(name="cnn/setting 3", max_steps=steps, metric=metric,
                           seconds_per_step={t: 2.0 / (i + 1) for i, t in enumerate(TYPES)})


def _sensitivity():
    settings = [("bid", "+0%"), ("bid", "+5%"), ("bid", "Alg. 2 margin"), ("bid", "+25%"), ("bid", "random (Tributary)"),
                ("parallel fraction", "f = 0.5"), ("parallel fraction", "f = 0.7"), ("parallel fraction", "f = 0.9"),
                ("parallel fraction", "f = 0.95"), ("start-up", "0 s"), ("start-up", "60 s"), ("start-up", "300 s"),
                ("model size", "100 MB"), ("model size", "1024 MB"), ("model size", "5120 MB")]
    qs = ("cost_vs_cheapest", "cost_vs_fastest", "jct_vs_cheapest", "pcr_vs_cheapest", "pcr_vs_fastest", "steps_free")
    rows = []
    for a, s in settings:
        for ap in ("spottune-1", "spottune-0.7"):
            r = {"axis": a, "setting": s, "approach": ap}
            for q in qs:
                r[q], r[q + "_lo"], r[q + "_hi"] = 0.8, 0.7, 0.9
            rows.append(r)
    return pd.DataFrame(rows), {("spottune-1", "cost_vs_cheapest"): 0.6}


def _timeline(n_jobs=12):
    rows = []
    for j in range(n_jobs):
        t = 0.0
        for k in range(4):
            rows.append({"job": j, "launch": t, "end": t + 3000, "type": TYPES[(j + k) % 3], "free": k % 2 == 0,
                         "reason": "revoked" if k % 3 == 0 else "done"})
            t += 3600
    return pd.DataFrame(rows)


def _reliability():
    names = ["revpred", "tributary", "logistic"]
    curve = pd.DataFrame([{"predictor": p, "predicted": b, "realised": b * 0.8, "deployments": 10 + 5 * i}
                          for p in names for i, b in enumerate((0.1, 0.3, 0.5, 0.7, 0.9))])
    summary = pd.DataFrame({"predictor": names, "deployments": [120, 130, 140], "predicted": [0.3, 0.4, 0.2],
                            "realised": [0.25, 0.25, 0.25]})
    return curve, summary


def _own_job():
    grid = pd.DataFrame({"vm": np.repeat(["small", "medium", "large"], 8), "cost": RNG.uniform(1e-6, 1e-4, 24),
                         "accuracy": RNG.uniform(0.8, 0.99, 24), "config_id": np.arange(24)})
    rows = []
    for opt in ("trimtuner-dt", "eic", "random"):
        for i in range(12):
            rows.append({"optimizer": opt, "size": (200, 600, 1437)[i % 3], "cost": 1e-5 * (1 + i % 4),
                         "accuracy": 0.8 + 0.01 * i, "cumulative_cost": 1e-5 * (i + 1), "accuracy_c": 0.8 + 0.01 * i})
    return grid, pd.DataFrame(rows), SimpleNamespace(sizes=(200, 600, 1437))


def _fig2():
    keys = [(b, v) for b in BENCHES for v in ("trimtuner-gp", "fabolas", "eic", "eic-usd", "random")]
    ours = pd.DataFrame([{"benchmark": b, "baseline": v, "time_ratio": 2.0 + i, "cost_ratio": 1.5 + i}
                         for i, (b, v) in enumerate(keys)])
    bars = pd.DataFrame([{"benchmark": b, "baseline": v, "time": 3.0, "cost": 2.0} for b, v in keys])
    return ours, bars


def _with_paper(fig, panels=BENCHES):
    pc = pd.DataFrame([{"benchmark": b, "variant": "trimtuner-dt", "x": x, "y": 0.5} for b in BENCHES for x in (0.1, 1)])
    return paper.overlay_paper_curves(fig, pc, list(panels))


def _ttt():
    return pd.DataFrame([{"benchmark": b, "variant": v, "cost": c} for b in BENCHES
                         for v in ("trimtuner-dt", "trimtuner-gp", "fabolas", "eic", "eic-usd", "random")
                         for c in (0.5, 1.0, np.nan)])


def _tour_bench(name="cnn"):
    """A small benchmark shaped as the authors' (VM types, cluster sizes, learning rates; five sizes up to 60000):
    36 configurations whose accuracy grows with the data and whose cost grows with the VMs and the size."""
    from tt_core.data.benchmarks import benchmark_from_table

    rng = np.random.default_rng(1)
    rows = []
    for v, vm in enumerate(("t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge")):
        for n in (8, 16, 32):
            for lr in (1e-3, 1e-4, 1e-5):
                top = rng.uniform(0.3, 0.99)
                for size in (1000, 6000, 15000, 30000, 60000):
                    rows.append({"vm_flavor": vm, "n_workers": n, "learning_rate": lr, "size": size,
                                 "accuracy": top * (0.6 + 0.4 * size / 60000),
                                 "cost": 0.002 * (v + 1) * (size / 6000) * rng.uniform(0.5, 2)})
    return benchmark_from_table(pd.DataFrame(rows), ["vm_flavor", "n_workers", "learning_rate"], name=name,
                                max_cost=0.05)


def _band():
    """A seed band of three optimisers (median, 10-90%) and one seed's curve each, as tour step 5 draws them."""
    xs = np.geomspace(1e-3, 1, 40)
    band, runs = [], []
    for k, opt in enumerate(("trimtuner-dt", "eic", "random")):
        m = 1 - 0.7 * np.exp(-xs * 10 / (k + 1))
        band.append(pd.DataFrame({"optimizer": opt, "cumulative_cost": xs, "median": m, "lo": m - 0.1, "hi": m + 0.02,
                                  "n": 10}))
        for seed in (1, 2):
            runs.append(pd.DataFrame({"optimizer": opt, "seed": seed, "cumulative_cost": xs * seed,
                                      "accuracy_c": m - 0.05 * seed}))
    runs = pd.concat(runs, ignore_index=True)
    return pd.concat(band, ignore_index=True), runs, runs[runs["seed"] == 1]


def _authors_code():
    steps = [{"dh_minmax_per_estimator": [[1e-15 * (i - j), 1e-15 * (i - j)] for j in range(5)]} for i in range(10)]
    sizes = [1000, 6000, 15000, 30000, 60000]
    runs = {label: pd.DataFrame({"phase": ["init"] * 4 + ["bo"] * 40, "size": RNG.choice(sizes, 44)})
            for label in ("authors' code (empirical)", "this workbook")}
    return steps, runs, sizes, 60000


def _claims(n_sets):
    """Notebook 17's claims table: six claims on ``n_sets`` data sets (29 in the full profile)."""
    names = ["Fig. 2: EIc's cost to target / TrimTuner-DT's", "Fig. 3/4: mean Accuracy_C, CEA 10% - no filter"] + [
        f"Fig. 1: Accuracy_C at equal spend, TrimTuner-DT - {b}" for b in ("EIc", "EIc/USD", "FABOLAS", "Random")]
    return pd.DataFrame([{"claim": c, "openml_id": 1000 + 37 * i, "value": 1.5 if c.startswith("Fig. 2") else 0.01,
                          "lo": 1.1 if c.startswith("Fig. 2") else -0.02, "hi": 2.0 if c.startswith("Fig. 2") else 0.03}
                         for c in names for i in range(n_sets)])


FIGURES = {
    # notebook 17 (was 3.2 in per claim: 1920 px wide for its six claims)
    "lcdb_claims_3_sets": lambda: claims.plot_claims(_claims(3), title="TrimTuner's claims on LCDB (quick profile)"),
    "lcdb_claims_29_sets": lambda: claims.plot_claims(_claims(29), title="TrimTuner's claims on LCDB (full profile)"),
    # tt_workbook/apps/tour.py (notebook 00; tour_surrogates was 1214 x 911 px, tour_cea 1311 px wide)
    "tour_space": lambda: tour.search_space([_tour_bench("cnn"), _tour_bench("rnn")]).figure,
    "tour_subsampling": lambda: tour.subsampling_scatter([_tour_bench("cnn"), _tour_bench("rnn")]).figure,
    "tour_surrogates": lambda: tour.surrogates(_tour_bench(), n_random=20, gp_burnin=10).figure,
    "tour_cea": lambda: tour.cea_filter(_tour_bench(), n_random=10).figure,
    "tour_progress": lambda: seed_bands.plot_seed_bands(*_band()[:1], runs=_band()[1], highlight=_band()[2],
                                                        target=0.9, title="Step 5 - a title\nover two lines"),
    # notebook 03's look at the authors' code (its legends were placed automatically inside the panels)
    "authors_code": lambda: authors_code.plot_authors_code(*_authors_code()),
    "authors_code_no_exact_run": lambda: authors_code.plot_authors_code(None, *_authors_code()[1:]),
    # tt_workbook/plotting and the studies' figures (notebooks 01-09, 16)
    "metrics_vs_size": lambda: figures.plot_metrics_vs_size({b: _sizes_table() for b in BENCHES}),
    "factor_effects": lambda: figures.plot_factor_effects(_factor_table(), title="CNN: factors"),
    "learning_curves": lambda: figures.plot_learning_curves({b: _learning() for b in BENCHES}),
    "rank_agreement": lambda: figures.plot_rank_agreement({b: _agreement() for b in BENCHES}),
    "cost_accuracy": lambda: figures.plot_cost_accuracy(
        {b: (_sizes_table(), {"max_cost": 0.5, "accuracy_threshold": 0.9}) for b in BENCHES}),
    "metric_vs_cost": lambda: figures.plot_metric_vs_cost(_curves(), reference={"cnn": 0.9}, suptitle="Fig. 1"),
    "metric_vs_cost+paper": lambda: _with_paper(figures.plot_metric_vs_cost(_curves(), suptitle="Fig. 1")),
    "fig2_bars": lambda: paper.plot_fig2_bars(*_fig2(), suptitle="Fig. 2"),
    "time_to_target": lambda: figures.plot_time_to_target(_ttt(), suptitle="time to target"),
    "study": lambda: studies.plot_study(_curves(levels=("CEA", "DIRECT", "CMA-ES", "Random")), suptitle="Fig. 3"),
    "study+paper": lambda: _with_paper(studies.plot_study(_curves(levels=("beta 1%", "beta 10%", "beta 20%")))),
    "cost_reduction_grids": lambda: figures.plot_cost_reduction_grids({b: _status_grid() for b in BENCHES}),
    "feasible_per_size": lambda: figures.plot_feasible_per_size({b: _per_size() for b in BENCHES},
                                                               constraints="A_min = 85%, T_max = 300 s"),
    "crosstabs": lambda: figures.plot_crosstabs({s: _crosstab() for s in (600, 1200, 3000, 6000)}, title="Table 6.3"),
    "time_sorted": lambda: figures.plot_time_sorted({b: _sizes_table() for b in BENCHES}, 0.85, 300),
    "cno_curves": lambda: nephele.plot_cno_curves(_cno(), "cnn", targets=(10,), floor=2.0),
    "lookahead_curves": lambda: nephele.plot_lookahead_curves(_cno(), BENCHES),
    "fabulinus_panels": lambda: fabulinus.plot_fabulinus_panels(_fabulinus(), "cnn", reference=0.9),
    # tt_workbook/apps/own_job.py (notebook 11)
    "own_job_grid": lambda: own_job.plot_grid(_own_job()[0], 5e-5),
    "own_job_runs": lambda: own_job.plot_runs(_own_job()[1], _own_job()[2], 5e-5, _own_job()[0]),
    # tt_workbook/studies/spottune/figures.py (notebooks 12-15)
    "spot_fig1": lambda: spot.fig1_prices(_trace()),
    "spot_revocation": lambda: spot.fig_revocation(pd.DataFrame(
        [{"type": t, "margin": m, "p_revoked_within_hour": 1 / (1 + 10 * m)} for t in TYPES
         for m in (0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2)]), True),
    "spot_fig7": lambda: spot.fig7(_per_approach(SETS), True),
    "spot_fig7_53_sets": lambda: spot.fig7(_per_approach([f"set-{i:02d}/workload" for i in range(53)]), True),
    "spot_fig8": lambda: spot.fig8(*_theta()[:1], True, _theta()[1]),
    "spot_fig9": lambda: spot.fig9(_per_approach(SETS), True, pd.DataFrame(
        {"key": ["free_step_share_st1", "refunded_share_st07"], "value": [0.3, 0.2], "lo": [0.2, 0.1], "hi": [0.4, 0.3]})),
    "spot_fig11": lambda: spot.fig11(_job(), pd.DataFrame({"job_set": "cnn/t2.small-x8", "setting": range(12),
                                                           "earlycurve_error": 0.05, "single-stage_error": 0.2}), 0.4),
    "spot_fig5": lambda: spot.fig5_stages(_job(), 0.7),
    "spot_fig10": lambda: spot.fig10(pd.DataFrame(
        [{"bids": "random", "type": t, "predictor": p, "accuracy": 0.8, "f1": np.nan if t == TYPES[0] else 0.6}
         for t in TYPES for p in spot.PREDICTOR_STYLES]), True),
    "spot_fig10c": lambda: spot.fig10c(pd.DataFrame({"predictor": list(spot.PREDICTOR_STYLES), "cost_norm": [0.9, 1, 1.1],
                                                     "pcr_norm": [1.1, 1, 0.9]}), True),
    "spot_sensitivity": lambda: spot.fig_sensitivity(*_sensitivity(), True),
    "spot_fig4_lifetime": lambda: spot.fig4_lifetime(_timeline(), "cnn/t2.small-x8", True),
    "spot_fig4_lifetime_30_jobs": lambda: spot.fig4_lifetime(_timeline(30), "sklearn/gbtr", True),
    "spot_fig6": lambda: spot.fig6_speed_price(_job(), _trace()),
    "spot_fig12": lambda: spot.fig12_overhead(pd.DataFrame({"model_mb": [100, 1024, 5120], "mean_overhead": [0.01, 0.04, 0.09],
                                                            "max_job_set_overhead": [0.02, 0.08, 0.2]})),
    "spot_reliability": lambda: spot.fig_reliability(*_reliability(), True, {"revpred": "RevPred"}),
}


@pytest.fixture(autouse=True)
def _style():
    with matplotlib.rc_context():
        use_style()                       # what every notebook applies first (figure.dpi = 100)
        yield
        plt.close("all")


def shown_pixels(fig) -> tuple[float, float]:
    """Width and height in px of the image the inline backend shows: the tight box, padded, at the figure's dpi."""
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    return (box.width + 2 * PAD_INCHES) * fig.dpi, (box.height + 2 * PAD_INCHES) * fig.dpi


def overlaps(a, b, tol: float = 1.0) -> bool:
    """Whether two display boxes share more than ``tol`` px in both directions."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol


def _with_subfigures(fig) -> list:
    """The figure and its sub-figures, nested ones included (a sub-figure's legend is in its own ``legends``)."""
    out = [fig]
    for sub in fig.subfigs:
        out += _with_subfigures(sub)
    return out


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_figure_fits_a_laptop_and_no_legend_covers_a_plotting_area(name):
    fig = FIGURES[name]()
    assert fig.dpi == 100
    w, h = fig.get_size_inches() * fig.dpi
    assert w <= SCREEN[0] and h <= SCREEN[1], f"{name}: figure size {w:.0f} x {h:.0f} px"
    w, h = shown_pixels(fig)
    assert w <= SCREEN[0] and h <= SCREEN[1], f"{name}: shown at {w:.0f} x {h:.0f} px"
    renderer = fig.canvas.get_renderer()
    legends = [leg for f in _with_subfigures(fig) for leg in f.legends]
    legends += [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    for leg in legends:
        box = leg.get_window_extent(renderer)
        for ax in fig.axes:
            assert not overlaps(box, ax.get_window_extent(renderer)), (
                f"{name}: the legend ({', '.join(t.get_text() for t in leg.get_texts())[:60]}) lies over the "
                f"plotting area of {ax.get_title() or ax.get_title(loc='left') or 'an axes'}")
