"""The notebook profiler's tables from hand-made profile rows (known answers; no notebook is run)."""

from tt_workbook.report.notebook_profile import markdown_table, top_functions

ROWS = [  # file, line, function, calls, own CPU s, cumulative CPU s
    ["/x/tt_workbook/runs/store.py", 591, "run_grid", 2, 0.1, 50.0],
    ["/x/tt_core/models/trees.py", 172, "fit", 100, 5.0, 20.0],
    ["/x/site-packages/sklearn/tree/_classes.py", 226, "_fit", 1000, 12.0, 15.0],
    ["~", 0, "<built-in method builtins.isinstance>", 10**6, 7.0, 9.0],
    ["/x/tt_workbook/report/notebook_profile.py", 1, "top_functions", 1, 0.0, 99.0],  # the profiler: left out
]


def test_top_functions_rank_own_cumulative_and_all_tottime():
    top = top_functions(ROWS, n=2)
    assert [r["function"] for r in top["top_cumulative"]] == ["tt_workbook/runs/store.py:591(run_grid)",
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
    assert lines[2] == ("| `09_nephele_optimizer` | 100 | 300 | 8.0 | tt_workbook/runs/store.py:591(run_grid) 50.0 | "
                        "tree/_classes.py:226(_fit) 12.0 |")
    assert lines[3].startswith("| `16_fabulinus_evaluation` (failed) | 20 | 60 | 9.0 |")
    assert lines[4] == "| total | 120 | 360 | | | |"


def test_collapsed_rows_from_py_spy_stacks_by_hand():
    from tt_workbook.report.notebook_profile import collapsed_rows

    lines = [  # py-spy's raw format: frames outermost first, the sample count last
        'process 7:"python -m ipykernel";<module> (/k/nb.py:1);run (/x/tt_core/store.py:10);fit (/x/tt_core/trees.py:5) 30\n',
        'process 7:"python -m ipykernel";<module> (/k/nb.py:1);run (/x/tt_core/store.py:10) 10\n',
        'process 7:"python";process 9:"authors";main (/a/trimtuner.py:3);run (/x/tt_core/store.py:10);'
        'run (/x/tt_core/store.py:10) 20\n',  # recursion: counted once in the cumulative time
        'garbage line\n',
    ]
    rows = {(r[0], r[2]): r for r in collapsed_rows(lines, rate=10)}
    # own: innermost frame; cumulative: any frame of the stack, once per stack; seconds = samples / rate
    assert rows[("/x/tt_core/trees.py", "fit")][3:] == [30, 3.0, 3.0]
    assert rows[("/x/tt_core/store.py", "run")][3:] == [60, 3.0, 6.0]  # own 10 + 20, cumulative 30 + 10 + 20
    assert rows[("/k/nb.py", "<module>")][3:] == [40, 0.0, 4.0]
    assert rows[("/a/trimtuner.py", "main")][3:] == [20, 0.0, 2.0]  # the authors' process: its own stacks
    assert len(rows) == 4
    top = top_functions(list(rows.values()), n=1)
    assert top["profiled_s"] == 6.0 and top["top_cumulative"][0]["function"] == "tt_core/store.py:10(run)"


def test_comparison_table_cpu_before_after_and_shares_of_samples():
    from tt_workbook.report.notebook_profile import comparison_table

    before = [{"notebook": "09_nephele_optimizer", "ok": True, "cpu_s": 200.0, "profiled_s": 400.0,
               "top_cumulative": [{"function": "tt_core/a.py:1(run)", "cumtime_s": 300.0}],
               "top_tottime": [{"function": "x.py:2(f)", "tottime_s": 100.0}]}]
    after = [{"notebook": "09_nephele_optimizer", "ok": True, "cpu_s": 50.4, "profiled_s": 80.0,
              "top_cumulative": [{"function": "tt_core/a.py:1(run)", "cumtime_s": 60.0}],
              "top_tottime": [{"function": "x.py:2(f)", "tottime_s": 20.0}]},
             {"notebook": "02_table2_feasibility", "ok": False, "cpu_s": 3.0, "profiled_s": 0.0}]
    lines = comparison_table(before, after).splitlines()
    assert lines[2] == "| `02_table2_feasibility` | - | 3 (failed) | - |  |  |"  # notebooks in running order
    # shares of each profile's samples: 300/400 = 75%, 60/80 = 75%, 20/80 = 25%
    assert lines[3] == ("| `09_nephele_optimizer` | 200 | 50 | tt_core/a.py:1(run) 75% | tt_core/a.py:1(run) 75% | "
                        "x.py:2(f) 25% |")
    assert lines[4] == "| total | 200 | 53 | | | |"


def test_top_work_leaves_out_the_loop_and_store():
    top = top_functions(ROWS, n=2)
    # run_grid (the run store) heads the cumulative list but is a driver: below the loop, the trees' fit
    assert [r["function"] for r in top["top_work"]] == ["tt_core/models/trees.py:172(fit)"]
