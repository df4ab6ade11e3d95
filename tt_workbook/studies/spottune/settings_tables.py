"""The profiles' SpotTune settings beside the paper's (§IV-A, Table II; Fig. 10's training), for the notebooks."""

from __future__ import annotations

import pandas as pd

from tt_spotsim import revpred as RP


def revpred_settings_table(cfg: dict, prices_label: str, n_job_sets: int, synthetic: bool = True) -> pd.DataFrame:
    """Fig. 10's settings beside the paper's (for notebook 15; ``synthetic``: the trace's, which decides
    the split, :func:`tt_workbook.studies.spottune.revpred_study.fig10_split`)."""
    split = (f"first {cfg['fit_days']:g} days / next {cfg['test_days']:g} days" if synthetic else
             "trace start (2017-04-26) to 2017-05-04 / 2017-05-05 to 2017-05-07 (UTC)")
    rows = [
        ("prices", prices_label, "AWS Spot Pricing Market, us-east-1, 2017-04-26 to 05-08, interpolated"),
        ("instance types", ", ".join(cfg["types"]) if cfg.get("types") else "the six of Table III", "the six of Table III"),
        ("train / test", split, "04/26-05/04 / 05/05-05/07"),
        ("training samples", f"one every {cfg['stride']} minute(s)", "every minute"),
        ("test samples", f"one every {cfg['test_stride']} minute(s)", "every minute (not stated)"),
        ("history / present", f"{RP.HISTORY} records x 6 features / 6 features + maximum price",
         "59 records x 6 features / 6 features + maximum price"),
        ("training maximum price", f"RevPred Alg. 2; Tributary present + U{list(cfg['delta'])} USD/h",
         "RevPred Alg. 2; Tributary present + U[0.00001, 0.2]"),
        ("inference maximum price", f"present + U{list(cfg['delta'])} USD/h (seeded)", "random, as Tributary"),
        ("RevPred network", f"3-layer LSTM ({cfg['hidden']} units) + 3 FC layers ({cfg['hidden']} units) -> 1 sigmoid",
         "3-tier LSTM + 3 FC layers (sizes not stated)"),
        ("Tributary network", f"1-layer LSTM ({cfg['hidden']} units) over 60 records -> 1 sigmoid",
         "LSTM (re-implemented by the authors; not stated)"),
        ("training", f"Adam lr {cfg['lr']:g}, {cfg['epochs']} epochs, batch {cfg['batch_size']}, class weights N/P, "
                     f"seed {cfg['seed']}, {cfg['threads']} CPU thread(s)", "class weights N/P (optimiser not stated)"),
        ("probability", "Eq. 3 reconstructed: o P / (o P + (1 - o) N)", "Eq. 3 (lost in extraction)"),
        ("Fig. 10(c)", f"{cfg['fig10c_approach']} on {n_job_sets} job sets x seeds {cfg['seeds']}, bids "
                       f"{cfg['fig10c_bid']}", "SpotTune with each predictor (workloads of Fig. 7)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this workbook", "paper"])


def settings_table(cfg: dict, n_job_sets: int, prices_label: str) -> pd.DataFrame:
    """The profile's settings beside the paper's (for the notebooks)."""
    rows = [
        ("workloads", f"{n_job_sets} job sets: TrimTuner curves {cfg['trimtuner'] or 'all 48 groups'}, "
                      f"scikit-learn {cfg['sklearn']} ({cfg['curves']})"
                      + (", staged digits (step-decay SGD)" if cfg.get("staged") else ""),
         "6 benchmarks (LoR, SVM, GBTR, LiR, AlexNet, ResNet), Table II"),
        ("prices", prices_label, "AWS Spot Pricing Market, us-east-1, 2017-04-26 to 05-08"),
        ("billing and revocation", cfg["rules"], "per second; revoked above the maximum price; first hour refunded"),
        ("revocation predictor", cfg["predictor"], "RevPred (LSTM)"),
        ("predictor trained on", f"first {cfg['fit_days']:g} days", "04/26-05/04 (9 days)"),
        ("maximum price", cfg["bid"], "not stated (aggressive bidding, §II-A)"),
        ("theta", "0.7 and 1.0 (Fig. 7); " + ", ".join(f"{t:g}" for t in cfg["thetas"]) + " (Fig. 8)",
         "0.7 and 1.0; 0.1 to 1.0"),
        ("k (top-k trained to the end)", cfg["k"], "not stated"),
        ("seeds (markets, submission times)", cfg["seeds"], "one trace"),
        ("time scale", f"median job {cfg['reference_hours']:g} h on r4.large", "measured step times (not published)"),
        ("speed model", f"per workload: Amdahl with parallel fraction {cfg['parallel_fraction']:g} for multi-threaded "
                        "jobs (TrimTuner TensorFlow, MLP), 0 for single-threaded ones (SGD models, boosting, staged "
                        "digits); times ECU per vCPU",
         "measured per instance (Fig. 6, not published)"),
        ("model size", f"{cfg['model_mb']:g} MB", "per benchmark (not stated)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this workbook", "paper"])
