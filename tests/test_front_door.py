"""The front door: the report's notebook cards and partial reports, the notebook pages, the generated
docs/results.md, and the command line's help, version and closing sentences."""

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from tt_workbook import cli
from tt_workbook.report import docs, reproduce
from tt_workbook.report.notebook_html import notebook_to_html
from tt_workbook.report.report import ReportNotebook, card_counts, card_line, tidy, write_index
from tt_workbook.report.summary import collect, comparison, save_comparison

ROOT = Path(__file__).resolve().parent.parent


CAUSE = "the paper reads its ratio off mean curves, which reach the target later than the runs' median (fig2.csv)"


def _rows():
    """One row of each kind: 1 data check, 1 differs with a measured mechanism, 2 differ without, 1 not comparable,
    1 paper only, 1 reproduced (10 / 6 = 1.67, within a factor of 2)."""
    return comparison([
        {"source": "TrimTuner Table II", "item": "RNN: feasible configurations (count)", "paper": 178, "workbook": 178,
         "check": "data"},
        {"source": "TrimTuner Fig. 2b", "item": "cost saving vs EIc", "paper": 50, "workbook": 1.7, "factor": 2.0,
         "cause": CAUSE},
        {"source": "TrimTuner Fig. 4", "item": "RNN: no filter is best", "paper": True, "workbook": False},
        {"source": "thesis Table 6.1", "item": "CNN: initial samples", "paper": 8, "workbook": 24, "rel_tol": 0.25},
        {"source": "thesis §6.4", "item": "CNN: cost ratio", "paper": 1.75, "workbook": 1.2,
         "not_comparable": "10 seeds here, 100 in the thesis"},
        {"source": "TrimTuner Table I", "item": "MLP rows (count)", "paper": 6000, "workbook": None},
        {"source": "TrimTuner Sec. IV-A", "item": "rnn: cost per test, EIc / TrimTuner-DT", "paper": 10.0,
         "workbook": 6.0, "factor": 2.0},
    ])


def _outside_rows():
    """Three claims tested on outside data (notebook 17's kind): one holds on 3 of 3 data sets, one on 1 of 3, one on
    0 of 3; counted apart from the reproductions and the checks."""
    rows = [{"source": "TrimTuner on outside data (LCDB)", "item": f"{claim}: data sets where it holds, of those studied",
             "paper": 3, "workbook": k, "check": "outside", "cause": "LCDB learning curves, not the paper's networks",
             "note": f"holds on {k} of 3 data sets; {why}"}
            for claim, k, why in (("Fig. 2: saving", 3, "5 runs per arm"),
                                  ("Fig. 1: vs EIc", 1, "2: -0.01 [-0.02, -0.005] fails (an easy target)"),
                                  ("Fig. 3/4: filter", 0, "undecided on all three"))]
    return comparison(rows)


def _check_row():
    """An input check (a paper's input beside an independent source): counted apart from the reproductions."""
    return comparison([{"source": "SpotTune Table III", "item": "r3.xlarge: memory (GB)", "paper": 30,
                        "workbook": 30.5, "check": "input", "cause": "the 2017 ec2instances.info data says 30.5"}])


# ------------------------------------------------------------------------------------------- report
def test_cards_count_each_kind_apart_and_each_claim_once(tmp_path):
    import pandas as pd

    from tt_workbook.report.report import notebook_card

    save_comparison(pd.concat([_rows(), _check_row()], ignore_index=True), "03_fig1", tmp_path)
    save_comparison(_rows().iloc[[4]], "04_fig2", tmp_path)  # the not-comparable row, checked by 04 as well
    save_comparison(_rows().iloc[[0]], "00_tour", tmp_path)  # the tour repeats the data check
    rows = tidy(collect(tmp_path))
    assert len(rows) == 8                                     # 10 written, each claim once
    # the tour's copy is listed last: the row is counted under the notebook that owns it
    assert rows.set_index("item").loc["RNN: feasible configurations (count)", "notebook"] == "03_fig1, 00_tour"
    zero = dict.fromkeys(["reproduced", "differ", "not comparable", "too few runs", "paper only", "data check",
                          "setup", "input check", "consistency check", "timing", "outside data", "linked"], 0)
    assert card_counts(rows, "03_fig1") == {**zero, "reproduced": 1, "differ": 3, "not comparable": 1,
                                            "paper only": 1, "data check": 1, "input check": 1}
    assert card_counts(rows, "04_fig2") == {**zero, "linked": 1}
    assert card_counts(rows, "00_tour") == {**zero, "linked": 1}
    assert card_counts(rows, "05_fig3") == zero
    assert card_line(card_counts(rows, "03_fig1")) == ("8 rows: 1 reproduced, 3 differ, 1 not comparable, 1 paper only, "
                                                       "1 data check, 1 input check")
    assert notebook_card(rows, "00_tour") == "1 row: 1 counted under 03_fig1 (the same claim)"
    assert notebook_card(rows, "04_fig2") == "1 row: 1 counted under 03_fig1 (the same claim)"
    # the cards add up to the totals: every row is owned by one notebook
    total = sum(sum(v for k, v in card_counts(rows, nb).items() if k != "linked") for nb in ("03_fig1", "04_fig2", "00_tour"))
    assert total == len(rows)


def test_a_partial_report_names_the_notebooks_that_did_not_run(tmp_path):
    figs = tmp_path / "figures"
    save_comparison(_rows(), "03_fig1", figs)
    out = tmp_path / "report"
    out.mkdir()
    nbs = [ReportNotebook("03_fig1", "Accuracy_C", "TrimTuner Fig. 1", True, 12.0, "", ())]
    page = write_index(out, figs, nbs, collect(figs), "quick", not_run=[("05_fig3", "Filters"), ("07_fig4", "Beta")]).read_text()
    assert "Partial report" in page and "1 of 3 notebooks ran" in page
    assert "05_fig3 (Filters), 07_fig4 (Beta)" in page and "cover only those" in page
    assert "7 rows: 1 reproduced, 3 differ, 1 not comparable, 1 paper only, 1 data check" in page
    full = write_index(out, figs, nbs, collect(figs), "quick").read_text()
    assert "Partial report" not in full


def _nb(path, code):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("smoke = False\nfigures_dir = '.'\nprofile = 'quick'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.mark.slow
def test_reproduce_only_some_notebooks_reports_those_and_shows_no_absolute_path(tmp_path, monkeypatch):
    nbdir, figs, out = tmp_path / "nbs", tmp_path / "figs", tmp_path / "out"
    nbdir.mkdir()
    write = ("from tt_workbook.report.summary import comparison, save_comparison\n"
             "save_comparison(comparison([{'source': 's', 'item': '{stem} n (count)', 'paper': 2, 'workbook': 2}]), "
             "'{stem}', figures_dir)\nprint(figures_dir)")
    for stem in ("01_a", "02_b"):
        _nb(nbdir / f"{stem}.ipynb", write.replace("{stem}", stem))
    save_comparison(comparison([{"source": "s", "item": "old row of 02_b", "paper": 1, "workbook": 2}]), "02_b", figs)
    monkeypatch.setattr(reproduce, "NOTEBOOK_DIR", nbdir)
    monkeypatch.setattr(reproduce, "NOTEBOOKS", [reproduce.NotebookEntry("01_a", "First", "test"),
                                                 reproduce.NotebookEntry("02_b", "Second", "test")])
    index, results = reproduce.run("quick", out_dir=out, figures_dir=figs, only=["01"], progress=False)
    assert [r.entry.stem for r in results] == ["01_a"] and results[0].ok
    page = index.read_text()
    assert "Partial report" in page and "02_b (Second)" in page
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["item"]) == ["01_a n (count)"]  # 02_b's older row is not counted in this report
    meta = json.loads((out / "report.json").read_text())
    assert {k: meta[k] for k in ("profile", "notebooks_run", "notebooks_not_run")} == {
        "profile": "quick", "notebooks_run": ["01_a"], "notebooks_not_run": ["02_b"]}
    assert meta["results_version"] == 2 and "plan_seconds" not in meta  # no plan: reproduce.run called directly
    executed = (out / "01_a.ipynb").read_text()
    assert "../figs" in executed and str(tmp_path) not in executed
    html = (out / "01_a.html").read_text()
    assert "<title>01 First</title>" in html and "href=\"index.html\"" in html and str(tmp_path) not in html


def test_notebook_page_has_title_back_link_and_hides_the_project_folder(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("figures_dir = '/home/me/work/figures'", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="saved /home/me/work/figures/fig1.png\n")])]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    page = notebook_to_html(path, title="03 Accuracy_C vs cost", back_link="index.html",
                            hide_prefix="/home/me/work").read_text()
    assert "<title>03 Accuracy_C vs cost</title>" in page
    assert "back to the report" in page and 'href="index.html"' in page
    assert "/home/me" not in page and "figures/fig1.png" in page


# ------------------------------------------------------------------------------------------- docs
def _report_folder(tmp_path, profile="paper"):
    folder = tmp_path / "reports" / profile
    folder.mkdir(parents=True)
    rows = _rows()
    rows["notebook"] = ["02_table2", "04_fig2", "07_fig4", "09_neph", "09_neph", "01_data", "04_fig2"]
    rows.to_csv(folder / "summary.csv", index=False)
    (folder / "status.json").write_text(json.dumps([
        {"notebook": s, "ok": s != "07_fig4", "seconds": 1.0, "cpu_seconds": 1.0, "error": ""}
        for s in ("01_data", "02_table2", "04_fig2", "07_fig4", "09_neph")]))
    return folder


def test_results_doc_is_generated_from_a_report_folder(tmp_path):
    folder = _report_folder(tmp_path)
    (folder / "report.json").write_text(json.dumps({"profile": "paper", "notebooks_not_run": ["16_fab"]}))
    dest = tmp_path / "results.md"
    dest.write_text(f"# Results\n\nintro by hand\n\n{docs.BEGIN}\nold numbers\n{docs.END}\n\n## Causes\n\nnarrative by hand\n")
    docs.write_results(folder, dest)
    text = dest.read_text()
    assert text.startswith("# Results\n\nintro by hand\n") and text.rstrip().endswith("narrative by hand")
    assert "old numbers" not in text
    assert "Produced by the **paper** profile: 4 of 5 notebooks ran (07_fig4 failed)." in text
    assert "Partial: the notebooks 16_fab did not run" in text
    assert ("**1 reproduced** of 6 reproduction rows (7 rows in all, each claim counted once):\n\n"
            "- 1 reproduced (a method's result computed here agrees)\n"
            "- 1 differ, with a measured mechanism\n"
            "- 2 differ, no mechanism measured yet\n"
            "- 1 not comparable (another setting)\n"
            "- 0 too few runs (under 5 per arm: no verdict)\n"
            "- 1 paper only (no workbook value)\n\n"
            "Checks, counted apart (no reproduction of a method):\n\n"
            "- 1 data checks (a value read from the measurements): 1 agree\n"
            "- 0 setup (a setting the workbook chose)\n") in text
    assert text.index("**1 reproduced**") < text.index("data checks")          # led by reproduced
    assert ("Of the papers' 6 claims, 4 could be compared at the papers' settings: 1 is reproduced and 3 differ (1 with "
            "a measured cause, 2 not yet); 2 could not be compared (1 run at another setting than the paper's, 1 that "
            "the workbook cannot compute); 1 check of the data, settings, inputs and timings is counted apart.") in text
    assert docs.block_totals(text) == {"agrees": 1, "differs (cause measured)": 1, "differs (cause not measured yet)": 2,
                                       "not comparable": 1, "too few runs": 0, "paper only": 1, "data check": 1,
                                       "setup": 0, "input check": 0, "consistency check": 0, "timing": 0,
                                       "outside data": 0}
    assert "| `09_neph` | 2 rows: 1 differs, 1 not comparable |" in text
    assert "| `02_table2` | 1 row: 1 data check |" in text
    assert "| `04_fig2` | 2 rows: 1 reproduced, 1 differs |" in text
    assert "### Rows that differ, with their measured mechanism (or what it lacks) (3)" in text
    assert "### Rows that are not comparable or rest on too few runs (1)" in text
    assert "### Checks that do not match (0)" in text
    assert f"| 04 | TrimTuner Fig. 2b | cost saving vs EIc | 50 | 1.7 | {CAUSE} |" in text
    docs.write_results(folder, dest)  # idempotent: one generated block
    assert dest.read_text() == text


def test_results_doc_names_a_profile_guessed_from_the_folder_and_refuses_a_non_report(tmp_path, capsys):
    folder = _report_folder(tmp_path, "quick")
    out = tmp_path / "new.md"
    assert cli.main(["docs", "results", "--report", str(folder), "--out", str(out)]) == 0
    assert "Produced by the **quick** profile (read from the report folder's name)" in out.read_text()
    assert cli.main(["docs", "results", "--report", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tt: error:") and "summary.csv" in err[0]


def test_the_committed_results_doc_has_one_generated_block_and_no_commit_hashes():
    text = (ROOT / "docs" / "results.md").read_text()
    assert text.count(docs.BEGIN) == 1 and text.count(docs.END) == 1
    for page in ["README.md", "CHANGELOG.md", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]:
        body = (ROOT / page).read_text()
        assert not re.search(r"\b(issue|issues) \d+", body, re.I), page
        assert not re.search(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,10}\b", body), page
    assert len((ROOT / "README.md").read_bytes()) <= 8 * 1024


def test_the_readme_opens_with_the_results_pages_sentence_and_the_headline_figure():
    """The README's first screen answers "does it reproduce?": the report's sentence for the counts of
    docs/results.md's generated block, then the headline figure (the tour's headline_seeds.png, committed)."""
    from tt_workbook.report.report import HEADLINE_FIGURE, verdict_sentence

    readme = (ROOT / "README.md").read_text()
    opening = readme[:readme.index("\n## ")]
    counts = docs.block_totals((ROOT / "docs" / "results.md").read_text())
    assert verdict_sentence(counts) in " ".join(opening.split())
    images = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", opening)
    assert [Path(i).name for i in images] == [HEADLINE_FIGURE]
    assert (ROOT / images[0]).is_file()
    assert opening.index("Does it reproduce?") < opening.index(images[0])


# ------------------------------------------------------------------------------------------- CLI
def _walk(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _walk(child, path + (name,))
        else:
            yield path, parser, action


def test_every_option_has_help_and_every_example_parses():
    parser = cli.build_parser()
    missing = [(" ".join(p), a.option_strings) for p, _, a in _walk(parser) if a.option_strings and not a.help]
    assert missing == []
    examples = [parser.epilog] + [sp.epilog for _, sp, _ in _walk(parser) if sp.epilog]
    commands = [line.strip() for text in examples for line in text.splitlines() if line.strip().startswith("tt ")]
    assert len(commands) >= 15
    for line in commands:
        argv = shlex.split(line, comments=True)[1:]
        args = parser.parse_args(argv)  # an example that does not parse exits with code 2
        assert callable(args.func), line


def test_version_and_light_top_level_help(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == "tt (TrimTuner Workbook) 0.1.0"
    assert cli.parser_for(["--help"]).format_help() == cli.build_parser().format_help()
    code = ("import sys\nfrom tt_workbook.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'scipy', 'sklearn', 'numpy') if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert "examples:" in done.stdout and done.stderr.strip() == "[]"


def test_fetch_says_already_present_and_downloads_nothing(tmp_path):
    from tt_core.data.benchmarks import locate

    def no_download(*a, **k):
        raise AssertionError("downloaded although present")

    path, _ = locate("rnn")
    line = cli.data.fetch_one("rnn", None, False, no_download)
    assert line.startswith("rnn: already present (sha256 ok)") and str(path) in line
    calls = []
    cli.data.fetch_one("rnn", str(tmp_path), False, lambda *a, **k: calls.append(k) or tmp_path / "rnn.csv")
    assert calls == [{"dest": str(tmp_path), "force": False}]  # another folder asked for: fetch decides


def test_recommendation_sentence_states_the_configuration_and_each_limit():
    from tt_core.data.benchmarks import load_benchmark
    from tt_workbook.runs.summaries import recommendation_sentence

    bench = load_benchmark("rnn")
    row = bench.full_size().iloc[81]
    traj = pd.DataFrame([{"iteration": 44, "cumulative_cost": 0.1059, "incumbent": 81, "incumbent_size": 60000,
                          "incumbent_accuracy": 0.9725, "incumbent_cost": 0.0553, "incumbent_time": 330.0,
                          "accuracy_c": 0.9725 * 0.02 / 0.0553}])
    text = recommendation_sentence(traj, "rnn", "trimtuner-dt")
    assert "configuration 81 (" + str(row["vm_flavor"]) + f" x {int(row['n_workers'])} workers" in text
    assert "trained on the full training set" in text and "measured accuracy 0.973, cost $0.0553, 330 s" in text
    assert "BREAKS the cost limit $0.02 (2.8x)" in text and "Accuracy_C 0.352" in text
    ok = recommendation_sentence(traj, "rnn", "trimtuner-dt", max_cost=0.06, max_time=300)
    assert "meets the cost limit $0.06" in ok and "BREAKS the time limit 300 s" in ok
    cost = traj.drop(columns="accuracy_c").assign(incumbent_size=15000, incumbent_time=120.0, cno=1.5)
    text = recommendation_sentence(cost, "rnn", "nephele")
    assert "trained on 15000 of 60000 training examples" in text
    assert "meets the time limit 300 s, meets the accuracy limit 0.85; CNO 1.50" in text


def test_runs_sentence_gives_the_final_score_per_network_and_optimizer():
    from tt_workbook.runs.summaries import final_scores, runs_sentence

    runs = pd.DataFrame({
        "benchmark": ["rnn"] * 4 + ["cnn"] * 2, "optimizer": ["eic"] * 4 + ["nephele"] * 2,
        "variant": ["eic"] * 4 + ["nephele"] * 2, "seed": [1, 1, 2, 2, 1, 1],
        "accuracy_c": [0.5, 0.9, 0.2, 0.7, None, None], "cno": [None] * 4 + [3.0, 1.25]})
    scores = final_scores(runs)
    assert scores[["benchmark", "optimizer", "metric", "runs"]].values.tolist() == [
        ["rnn", "eic", "Accuracy_C", 2], ["cnn", "nephele", "CNO", 1]]
    assert scores["mean"].tolist() == pytest.approx([0.8, 1.25])
    text = runs_sentence(scores)
    assert text.splitlines() == ["rnn: final score, mean (range) over 2 run(s): eic Accuracy_C 0.800 (0.700-0.900).",
                                 "cnn: final score, mean (range) over 1 run(s): nephele CNO 1.250."]


def test_run_labels_are_readable():
    from tt_workbook.runs.store import RunSpec

    assert RunSpec("rnn", "trimtuner-dt", 3, beta=0.01).label == "rnn trimtuner-dt beta 0.01 seed 3"
    assert RunSpec("cnn", "fabolas", 1, options=(("init_design", "random"), ("n_init", 9))).label == "cnn fabolas seed 1"
    assert RunSpec("rnn", "random", 2, objective="cost", iterations=None).label == "rnn random (min cost) seed 2"


# ------------------------------------------------------------------------------------------- teaching defaults
def test_median_seed_is_the_lower_middle_run():
    from tt_workbook.runs.summaries import median_seed

    # ten final scores as TrimTuner-DT's on the RNN look: two unlucky runs, a cluster at the top
    scores = {1: 0.352, 2: 0.977, 3: 0.980, 4: 0.975, 5: 0.980, 6: 0.980, 7: 0.947, 8: 0.980, 9: 0.283, 10: 0.980}
    # sorted: 9, 1, 7, 4, 2 | 3, 5, 6, 8, 10 -> the fifth of ten is seed 2
    assert median_seed(scores) == 2
    assert median_seed({5: 0.1}) == 5
    assert median_seed({3: 0.5, 1: 0.5, 2: 0.5}) == 2  # ties ordered by seed
    with pytest.raises(ValueError):
        median_seed({})


def _parameter(notebook: str, name: str):
    nb = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    scope: dict = {}
    exec(cell.source, {}, scope)  # the parameters cell holds literal assignments only
    return scope[name]


@pytest.mark.slow
def test_the_teaching_notebooks_default_to_the_typical_seed():
    """The tour's, the explorer's and the README's default run is the median of 10 by the stated rule."""
    from tt_workbook.runs.summaries import TYPICAL_SEED_RULE, typical_seed

    seed, scores = typical_seed(**TYPICAL_SEED_RULE)
    ranked = sorted(scores, key=lambda s: (scores[s], s))
    assert ranked.index(seed) == 4 and len(scores) == 10  # fifth of ten: five runs end at or below it
    assert _parameter("00_tour", "seed") == seed and _parameter("10_explorer", "seed") == seed
    assert f"--optimizer trimtuner-dt --seed {seed} " in (ROOT / "README.md").read_text()


def test_a_parser_built_for_one_command_helps_and_parses_that_command_as_the_full_one():
    full = cli.build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    for name, child in sub.choices.items():
        light = cli.parser_for([name])
        lsub = next(a for a in light._actions if isinstance(a, argparse._SubParsersAction))
        assert lsub.choices[name].format_help() == child.format_help(), name
        for path, parser, _ in _walk(child, (name,)):  # nested actions (bench recommend, spot simulate, ...)
            node = lsub.choices[name]
            for word in path[1:]:
                node = next(a for a in node._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
            assert node.format_help() == parser.format_help(), path
    assert cli.build_parser().format_help() == full.format_help()  # no state is left behind


def test_tt_summary_leads_with_reproduced_and_counts_the_kinds_apart(tmp_path, capsys):
    save_comparison(pd_concat_rows(), "03_fig1", tmp_path)
    assert cli.main(["summary", "--figures", str(tmp_path)]) == 0
    err = capsys.readouterr().err.strip()
    assert err.startswith("1 reproduced of 6 reproduction rows (1 differ, with a measured mechanism, 2 differ, no "
                          "mechanism measured yet, 1 not comparable, 1 paper only); checks, counted apart: 1 data check "
                          "(1 agree), 1 input check (1 differ)")
    assert cli.main(["summary", "--figures", str(tmp_path), "--grep", "feasible"]) == 0
    assert capsys.readouterr().err.strip().startswith("0 reproduced of 0 reproduction rows; checks, counted apart: "
                                                      "1 data check (1 agree)")


def pd_concat_rows():
    import pandas as pd

    return pd.concat([_rows(), _check_row()], ignore_index=True)


def test_results_doc_says_which_causes_name_no_mechanism():
    from tt_workbook.report.docs import results_markdown

    rows = comparison([{"source": "SpotTune claims", "item": "JCT between the baselines", "paper": True,
                        "workbook": False, "cause": "measured in spottune_fig7_revpred.csv (jct_h columns)"},
                       {"source": "S", "item": "no cause", "paper": 1.0, "workbook": 3.0}]).assign(notebook="13_spot")
    doc = results_markdown(rows, "quick")
    assert ("| 13 | SpotTune claims | JCT between the baselines | yes | no | (no mechanism named yet: only a pointer "
            "or a label: no sentence beside the evidence) measured in spottune_fig7_revpred.csv (jct_h columns) |") in doc
    assert "| 13 | S | no cause | 1.0 | 3.0 | cause not measured yet |" in doc
    assert "- 0 differ, with a measured mechanism\n- 2 differ, no mechanism measured yet\n" in doc


def test_claims_on_outside_data_are_counted_apart_in_the_cards_the_sentence_the_docs_and_tt_summary(tmp_path, capsys):
    """_rows() (6 reproduction rows, 1 data check) with _outside_rows() (3 claims on outside data: 1 holds on all,
    1 on some, 1 on none): the reproduction counts and the checks are those of _rows() alone; the outside rows have
    their own count, in the first sentence, the report's boxes, the generated block (read back by block_totals) and
    tt summary's closing line."""
    import pandas as pd

    from tt_workbook.report.report import headline, totals, verdict_sentence

    rows = pd.concat([_rows(), _outside_rows()], ignore_index=True)
    save_comparison(rows, "17_lcdb", tmp_path / "figs")
    tidied = tidy(collect(tmp_path / "figs"))
    tot = totals(tidied)
    assert tot["outside data"] == 3 and sum(tot.values()) == 10
    assert tidied.loc[tidied["group"] == "outside data", "found"].tolist() == ["holds on all", "holds on some",
                                                                              "holds on none"]
    sentence = ("Of the papers' 6 claims, 4 could be compared at the papers' settings: 1 is reproduced and 3 differ (1 "
                "with a measured cause, 2 not yet); 2 could not be compared (1 run at another setting than the paper's, "
                "1 that the workbook cannot compute); 3 claims tested on outside data and 1 check of the data, "
                "settings, inputs and timings are counted apart.")
    assert verdict_sentence(tot) == sentence
    assert card_line(card_counts(tidied, "17_lcdb")) == ("10 rows: 1 reproduced, 3 differ, 1 not comparable, "
                                                         "1 paper only, 1 data check, 3 claims tested on outside data")
    assert headline(tidied).endswith("; checks, counted apart: 1 data check (1 agree); 3 claims tested on outside "
                                     "data, counted apart (1 holds on every data set studied, 1 on some, 1 on none)")
    # the generated block: its own list beside the checks, its own table, and its count read back
    folder = tmp_path / "reports" / "quick"
    folder.mkdir(parents=True)
    rows.assign(notebook="17_lcdb").to_csv(folder / "summary.csv", index=False)
    dest = docs.write_results(folder, tmp_path / "results.md")
    text = dest.read_text()
    assert sentence in text
    assert ("The papers' claims tested on outside data, counted apart (no reproduction: other data than the papers'):\n\n"
            "- 3 claims tested on outside data (other learning curves than the papers'): 1 holds on every data set "
            "studied, 1 on some, 1 on none\n") in text
    assert "**1 reproduced** of 6 reproduction rows (10 rows in all, each claim counted once)" in text
    assert "### Claims tested on outside data (3)" in text
    assert ("| 17 | TrimTuner on outside data (LCDB) | Fig. 1: vs EIc: data sets where it holds, of those studied | "
            "1 of 3 data sets | holds on 1 of 3 data sets; 2: -0.01 [-0.02, -0.005] fails (an easy target) |") in text
    assert docs.block_totals(text) == tot
    assert verdict_sentence(docs.block_totals(text)) == sentence   # the README's sentence, read from the block
    # the report's page: a box of its own after the checks
    out = tmp_path / "report"
    out.mkdir()
    page = write_index(out, tmp_path / "figs", [ReportNotebook("17_lcdb", "LCDB", "outside data", True, 1.0, "", ())],
                       collect(tmp_path / "figs"), "quick").read_text()
    boxes = re.findall(r"<div class='total'[^>]*><b>(\d+)</b>([^<]+)</div>", page)
    assert boxes[-1] == ("3", "claims tested on outside data (other learning curves than the papers&#x27;): "
                              "1 holds on every data set studied, 1 on some, 1 on none")
    assert page.index("Checks, counted apart") < page.index("claims tested on outside data, counted apart")
    # tt summary
    assert cli.main(["summary", "--figures", str(tmp_path / "figs")]) == 0
    assert capsys.readouterr().err.strip().startswith(headline(tidied))


def test_a_results_page_generated_before_outside_data_existed_counts_none():
    """A generated block without the outside-data line (docs/results.md as committed before it) reads 0 there; a
    block that lacks another group's line is still refused."""
    from tt_workbook.report.report import GROUPS

    lines = [f"- {i + 1} {label}: 1 agree" for i, (g, label, _) in enumerate(GROUPS) if g != "outside data"]
    got = docs.block_totals("\n".join([docs.BEGIN, *lines, docs.END]))
    assert got["outside data"] == 0 and got["agrees"] == 1 and got["timing"] == len(GROUPS) - 1
    with pytest.raises(ValueError, match="lacks its line '- N timing"):
        docs.block_totals("\n".join([docs.BEGIN, *lines[:-1], docs.END]))


def test_the_generated_block_names_when_and_by_which_code_the_report_was_made(tmp_path, capsys):
    """report.json's provenance (written by tt reproduce) in the block's second line; times summed by hand from
    _report_folder's five notebooks of 1 s each (0.1 min) and a plan of 3300 s wall, 6600 CPU-s (55.0, 110.0 min)."""
    folder = _report_folder(tmp_path)
    meta = {"profile": "paper", "written": "2026-11-28 10:00 UTC", "commit": "0" * 40, "commit_modified": False,
            "sources": "abcdefabcdef", "results_version": 2, "plan_seconds": 3300, "plan_cpu_seconds": 6600}
    (folder / "report.json").write_text(json.dumps(meta))
    text = docs.write_results(folder, tmp_path / "results.md").read_text()
    assert (f"Made on 2026-11-28 10:00 UTC; by code commit {'0' * 40}, sources sha256 abcdefabcdef, results version "
            "2; the notebooks took 0.1 min wall (0.1 CPU-min) after the plan's runs, 55.0 min wall (110.0 CPU-min).") in text
    for key, bad in [("results_version", "2"), ("plan_seconds", -1), ("commit", 5)]:
        (folder / "report.json").write_text(json.dumps({**meta, key: bad}))
        assert cli.main(["docs", "results", "--report", str(folder), "--out", str(tmp_path / "r.md")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "report.json" in err[0] and key in err[0]


def test_a_report_records_its_code_and_results_version(tmp_path):
    """provenance(): the checkout's commit as git itself reports it, the results version of the numerics."""
    import subprocess

    from tt_core import RESULTS_VERSION
    from tt_workbook.report.reproduce import provenance

    got = provenance((61.0, 122.0))
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", got["written"])
    assert got["results_version"] == RESULTS_VERSION and re.fullmatch(r"[0-9a-f]{12}", got["sources"])
    assert (got["plan_seconds"], got["plan_cpu_seconds"]) == (61.0, 122.0)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert got["commit"] == (head.stdout.strip() if head.returncode == 0 else None)


#: A count of verdicts written by hand ("269 agree", "18 are reproduced", "16 differ"): only the generated block
#: (and the README's sentence, checked against it above) may state one.
HAND_COUNT = re.compile(r"\b\d[\d,]* (?:are |is )?(?:reproduced|agrees?|differs?|not comparable|paper only|too few runs)\b")


def test_no_page_states_verdict_counts_by_hand_and_the_readme_names_the_blocks_profile():
    """docs and the generated block cannot disagree: outside docs/results.md's generated block no page of docs/ nor
    the README states a count of verdicts (they were typed in from older runs and drifted: a hand-written quick
    paragraph said 250 agree beside a block of 229), and the README's sentence names the profile that made the
    block."""
    from tt_workbook.report.report import verdict_sentence

    results = (ROOT / "docs" / "results.md").read_text()
    profile = re.search(r"Produced by the \*\*(\w+)\*\* profile", results).group(1)
    readme = " ".join((ROOT / "README.md").read_text().split())
    sentence = verdict_sentence(docs.block_totals(results))
    assert f"{sentence} ({profile.capitalize()} profile" in readme
    pages = {"README.md": readme.replace(sentence, ""),
             **{f"docs/{p.name}": p.read_text() for p in (ROOT / "docs").glob("*.md")}}
    begin, end = pages["docs/results.md"].index(docs.BEGIN), pages["docs/results.md"].index(docs.END)
    pages["docs/results.md"] = pages["docs/results.md"][:begin] + pages["docs/results.md"][end:]
    found = {page: HAND_COUNT.findall(" ".join(text.split())) for page, text in pages.items()}
    assert {page: hits for page, hits in found.items() if hits} == {}


def test_the_hand_count_pattern_finds_the_counts_it_is_meant_to():
    text = "382 rows, 269 agree, 55 differ, 29 not comparable; 18 are reproduced; 1 differs; 8 rows of every batch"
    assert HAND_COUNT.findall(text) == ["269 agree", "55 differ", "29 not comparable", "18 are reproduced", "1 differs"]
