"""The notebook profiler's tables from hand-made profile rows (known answers; no notebook is run)."""

from tt_core.reporting.notebook_profile import markdown_table, top_functions

ROWS = [  # file, line, function, calls, own CPU s, cumulative CPU s
    ["/x/tt_core/experiments/store.py", 591, "run_grid", 2, 0.1, 50.0],
    ["/x/tt_core/models/trees.py", 172, "fit", 100, 5.0, 20.0],
    ["/x/site-packages/sklearn/tree/_classes.py", 226, "_fit", 1000, 12.0, 15.0],
    ["~", 0, "<built-in method builtins.isinstance>", 10**6, 7.0, 9.0],
    ["/x/tt_core/reporting/notebook_profile.py", 1, "top_functions", 1, 0.0, 99.0],  # the profiler: left out
]


def test_top_functions_rank_own_cumulative_and_all_tottime():
    top = top_functions(ROWS, n=2)
    assert [r["function"] for r in top["top_cumulative"]] == ["tt_core/experiments/store.py:591(run_grid)",
                                                               "tt_core/models/trees.py:172(fit)"]
    assert [r["function"] for r in top["top_tottime"]] == ["tree/_classes.py:226(_fit)",
                                                           "<built-in method builtins.isinstance>"]
    assert top["profiled_s"] == 24.1  # 0.1 + 5 + 12 + 7 + 0
    assert top["top_tottime"][0] == {"function": "tree/_classes.py:226(_fit)", "calls": 1000,
                                     "tottime_s": 12.0, "cumtime_s": 15.0}


def test_markdown_table_one_row_per_notebook_and_total():
    recs = [{"notebook": "09_nephele_optimizer", "ok": True, "cpu_s": 100.4, "wall_s": 300.0, "load_1min": 8.04,
             **top_functions(ROWS, n=1)},
            {"notebook": "16_fabulinus_evaluation", "ok": False, "cpu_s": 20.0, "wall_s": 60.0, "load_1min": 9.0}]
    lines = markdown_table(recs).splitlines()
    assert len(lines) == 5
    assert lines[2] == ("| `09_nephele_optimizer` | 100 | 300 | 8.0 | tt_core/experiments/store.py:591(run_grid) 50.0 | "
                        "tree/_classes.py:226(_fit) 12.0 |")
    assert lines[3].startswith("| `16_fabulinus_evaluation` (failed) | 20 | 60 | 9.0 |")
    assert lines[4] == "| total | 120 | 360 | | | |"
