"""The TrimTuner authors' public code as an oracle: their decision-tree TrimTuner, run beside ours.

The authors' repository (TrimTuner with RoBO) is not part of the workbook and is never copied into it.
It is looked up in the folder named by ``$TT_AUTHORS_CODE``, the data cache (``tt authors fetch`` downloads
it there, :mod:`tt_workbook.authors.fetch`) and beside the workbook (``../shared/authors_code/``),
and run, unmodified, by :mod:`tt_workbook.authors.harness` in a pinned environment of its own
(``.venv-authors``: numpy 1.26, scipy 1.11, scikit-learn 1.3, emcee 3.1; their code needs numpy < 2 and
scikit-learn < 1.4), created on first use.

Their tree model gives a candidate no covariance with the representer points, so the entropy-search
value dH is the same number for every candidate, a rounding residue. The ``residue`` setting says what
that number is: ``exact`` (computed by their code as it is: minutes per BO step), ``zero``, ``pos``
(+2 ulp of 1), ``neg`` (-2 ulp) or ``empirical`` (each estimator's dH drawn from the values seen in an
exact run). See the harness for what is replaced at run time and how numpy's random stream is kept.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tt_core.data.benchmarks import PROJECT_DIR, search_dirs
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, INITIAL_SAMPLES, TESTS_PER_RUN

if TYPE_CHECKING:  # annotations only: pandas is imported where it is used
    import pandas as pd

HARNESS = Path(__file__).with_name("harness.py")
VENV_DIR = PROJECT_DIR / ".venv-authors"
STAMP = ".tt-authors-pins"
PINS = ("numpy==1.26.4", "scipy==1.11.4", "scikit-learn==1.3.2", "emcee==3.1.6")
TRIMTUNER_DIR = "TrimTuner-a9dec1f"   # the authors' HEAD ("new incumbent"); runs its own script
ROBO_DIR = "RoBO-91366b1"
RESIDUES = ("empirical", "zero", "pos", "neg", "exact")
FILTERS = ("cea", "nofilter")
BENCHMARKS = ("rnn", "cnn")
OPTIMIZER = "authors-dt"


class AuthorsError(ValueError):
    """The authors' code or its environment cannot be used as it is (the message says what to do)."""


# ------------------------------------------------------------------------------------------------
# Finding the authors' code and the reference runs
# ------------------------------------------------------------------------------------------------
def code_dirs() -> list[tuple[str, Path]]:
    """Folders searched for the authors' code, in order, with a label for each."""
    dirs = []
    if os.environ.get("TT_AUTHORS_CODE"):
        dirs.append(("TT_AUTHORS_CODE", Path(os.environ["TT_AUTHORS_CODE"]).expanduser()))
    from tt_core.data.benchmarks import cache_dir

    dirs.append(("cache", cache_dir() / "authors_code"))   # where `tt authors fetch` installs them
    dirs.append(("shared", PROJECT_DIR.parent / "shared" / "authors_code"))
    return dirs


def locate_code() -> Path:
    """The folder holding ``TrimTuner-a9dec1f/`` and ``RoBO-91366b1/``, or an error saying what to do."""
    for label, d in code_dirs():
        if (d / TRIMTUNER_DIR / "tests" / "run_trimtuner.py").is_file() and (d / ROBO_DIR / "robo").is_dir():
            return d
        if label == "TT_AUTHORS_CODE":  # an explicit setting is not passed over silently
            raise AuthorsError(f"TT_AUTHORS_CODE={d} holds no {TRIMTUNER_DIR}/tests/run_trimtuner.py and "
                               f"{ROBO_DIR}/robo/; point it at the folder holding both (e.g. the --dest of "
                               "`tt authors fetch`), or unset it to search the data cache and ../shared/authors_code")
    where = ", ".join(str(d) for _, d in code_dirs())
    raise AuthorsError(f"the authors' TrimTuner code was not found (searched {where}); run `tt authors fetch` "
                       f"(downloads {TRIMTUNER_DIR}/ and {ROBO_DIR}/ from GitHub into the data cache and checks them), "
                       "or point TT_AUTHORS_CODE at a folder holding both")


def reference_dir() -> Path | None:
    """The folder of reference runs of the authors' code (``authors_code_runs/``), or None."""
    for _, d in search_dirs():
        for cand in (d / "authors_code_runs", d.parent / "authors_code_runs"):
            if (cand / "dh_empirical.json").is_file():
                return cand
    return None


def empirical_dh_file() -> Path:
    ref = reference_dir()
    if ref is None:
        raise AuthorsError("residue 'empirical' needs dh_empirical.json (the dH values of an exact run), kept with "
                           "the reference runs in ../shared/data/authors_code_runs/; put it there or choose "
                           "--residue zero, pos or neg")
    return ref / "dh_empirical.json"


# ------------------------------------------------------------------------------------------------
# The pinned environment
# ------------------------------------------------------------------------------------------------
#: The packages the pins install, as their import names (what the harness imports from the environment).
PIN_MODULES = ("numpy", "scipy", "sklearn", "emcee")
#: Written into ``.venv-authors`` when tt creates it: a folder without it was not made by tt.
CREATED = ".tt-authors-created"


def env_python(venv: Path | None = None) -> Path:
    return (venv or VENV_DIR) / "bin" / "python"


def env_problem(venv: Path | None = None) -> str | None:
    """What is wrong with the authors' environment ``venv`` (default ``.venv-authors``), or None when it is
    complete: ``"missing"`` when there is none, else which part is missing or not as tt built it."""
    venv = venv or VENV_DIR
    if venv.is_symlink():
        return "it is a symlink, not a folder tt made"
    if not venv.exists():
        return "missing"
    if not venv.is_dir():
        return "it is not a folder"
    if not env_python(venv).is_file():
        return "it has no bin/python"
    stamp = venv / STAMP
    if not stamp.is_file():
        return f"it has no {STAMP} (the install did not finish)"
    try:
        pins = stamp.read_text().split()
    except (OSError, UnicodeDecodeError) as exc:
        return f"its {STAMP} cannot be read ({exc})"
    if pins != list(PINS):
        return f"it was built for {' '.join(pins) or 'no pins'}, this code pins {' '.join(PINS)}"
    sites = list(venv.glob("lib/python3*/site-packages"))
    for mod in PIN_MODULES:
        if not any((site / mod).is_dir() for site in sites):
            return f"its site-packages lacks {mod}"
    return None


def env_ready(venv: Path | None = None) -> bool:
    return env_problem(venv) is None


def _refuse_env(venv: Path, problem: str) -> AuthorsError:
    if venv.is_symlink():
        return AuthorsError(f"the authors' environment {venv} is a symlink (to {os.readlink(venv)}); tt builds it only "
                            f"in a folder of its own and never clears a link or its target: remove the link (rm {venv}; "
                            "its target is left alone) and run again")
    return AuthorsError(f"the authors' environment {venv} is incomplete: {problem}; delete it (rm -r {venv}) and run "
                        "again to rebuild it (about a minute)")


def ensure_available(progress=None) -> Path:
    """The authors' code found (:func:`locate_code`) and its environment made (:func:`ensure_env`), or an
    :class:`AuthorsError` saying what is missing: what the plan and the notebooks check before they ask for runs
    of ``authors-dt``. Returns the environment's interpreter."""
    locate_code()
    return ensure_env(progress=progress)


def ensure_env(venv: Path | None = None, progress=None, python: str | None = None) -> Path:
    """Create ``.venv-authors`` with the pinned packages unless it exists; return its interpreter.

    ``progress`` (a callable taking one line) is told when the install starts and ends. An environment that
    exists but is incomplete, or a symlink, is never cleared or rebuilt in place: an :class:`AuthorsError`
    says which part is missing and to delete it.
    """
    from filelock import FileLock

    venv = venv or VENV_DIR
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    problem = env_problem(venv)
    if problem is None:
        return env_python(venv)
    if problem != "missing":
        raise _refuse_env(venv, problem)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(venv) + ".lock"):  # two workers of a grid: one installs, the other waits
        problem = env_problem(venv)
        if problem is None:
            return env_python(venv)
        if problem != "missing":
            raise _refuse_env(venv, problem)
        return _install(venv, say, python)


def _install(venv: Path, say, python: str | None) -> Path:
    """Build the environment in ``venv``, which does not exist (so nothing of anyone's is cleared); on a
    failure the folder this call created is removed again."""
    import shutil

    say(f"tt: installing the authors' environment in {venv} ({', '.join(PINS)}; about a minute, once)")
    base = python or sys.executable
    steps = [("create it with", [base, "-m", "venv", str(venv)],
              f"check that {base} can run `-m venv`"),
             ("install the pinned packages in it", [str(env_python(venv)), "-m", "pip", "install", "--quiet",
                                                    "--disable-pip-version-check", *PINS],
              "check the network or the package index and run again")]
    try:
        venv.mkdir()            # a new folder, so tt never builds over (or clears) anything of anyone's
    except OSError as exc:
        raise AuthorsError(f"cannot create the authors' environment: {venv} cannot be made ({exc.strerror}); "
                           "check that its parent folder is writable") from None
    (venv / CREATED).write_text("made by tt authors run\n")
    for what, cmd, fix in steps:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True)
            why = None if done.returncode == 0 else ((done.stderr.strip().splitlines() or ["no message"])[-1])
        except OSError as exc:
            why = str(exc)
        if why is not None:
            if (venv / CREATED).is_file() and not venv.is_symlink():  # made by this call: not left half-built
                shutil.rmtree(venv, ignore_errors=True)
            raise AuthorsError(f"cannot create the authors' environment: could not {what} ({why[:300]}); {fix}")
    (venv / STAMP).write_text("\n".join(PINS) + "\n")
    say("tt: authors' environment ready")
    return env_python(venv)


# ------------------------------------------------------------------------------------------------
# Running it
# ------------------------------------------------------------------------------------------------
def check_settings(benchmark: str, beta: float, filter: str, residue: str, iterations: int, seed: int) -> None:
    if isinstance(benchmark, str) and not benchmark.strip():
        raise AuthorsError(f"the benchmark is empty; the authors' code runs {' or '.join(BENCHMARKS)}")
    if benchmark not in BENCHMARKS:
        raise AuthorsError(f"the authors' code runs the benchmarks {list(BENCHMARKS)}, not {shown(benchmark)}")
    if residue not in RESIDUES:
        raise AuthorsError(f"unknown residue model {shown(residue)}; choose one of {', '.join(RESIDUES)}")
    if filter not in FILTERS:
        raise AuthorsError(f"unknown filter {shown(filter)}; the authors' code offers {', '.join(FILTERS)}")
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not (0.001 <= beta <= 1):
        raise AuthorsError(f"beta must be a fraction in [0.001, 1] (the paper's 0.01, 0.1, 0.2, 0.5), got "
                           f"{shown(beta)}")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or not (5 <= iterations <= 500):
        raise AuthorsError(f"iterations must be a whole number from 5 (4 initial tests + 1) to 500, got "
                           f"{shown(iterations)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not (0 <= seed <= 1_000_000):
        raise AuthorsError(f"seed must be a whole number from 0 to 1000000, got {shown(seed)}")


def _tree_files(folder: Path) -> tuple[dict, list]:
    """``({relative posix path: bytes} of the regular files under folder, [relative paths of everything else])``:
    links, FIFOs and other special files are listed, never followed or opened; ``__pycache__`` folders
    (Python's own, never copied or run) are left out."""
    files, other = {}, []
    for dirpath, dirs, names in os.walk(folder, followlinks=False):
        here = Path(dirpath)
        for d in list(dirs):
            if d == "__pycache__" and not (here / d).is_symlink():
                dirs.remove(d)
            elif (here / d).is_symlink():
                other.append((here / d).relative_to(folder).as_posix())
                dirs.remove(d)
        for n in names:
            path = here / n
            rel = path.relative_to(folder).as_posix()
            if stat.S_ISREG(path.lstat().st_mode):
                files[rel] = path
            else:
                other.append(rel)
    return files, other


#: Largest pinned file read to check it (their largest is under 100 kB): a larger one differs, unread.
MAX_PINNED_BYTES = 4 * 2**20


def inspect_tree(folder: Path, tree: str) -> tuple[list[str], dict[str, bytes]]:
    """``(problems, {relative path: bytes of each pinned file that matches})`` of the installed tree ``tree``
    in ``folder``: each problem names a file (``TREE/path``) that differs from its pinned sha256, is missing,
    is not a regular file or is not pinned. No problem: ``folder`` holds exactly the pinned files."""
    import hashlib

    from tt_workbook.authors.manifest import FILES

    files, other = _tree_files(folder)
    pinned = FILES[tree]
    problems, good = [], {}
    for rel in sorted(set(pinned) - set(files)):
        problems.append(f"{tree}/{rel} is {'not a regular file' if rel in other else 'missing'}")
    for rel in sorted(set(files) - set(pinned)) + sorted(r for r in other if r not in pinned):
        problems.append(f"{tree}/{rel} is not pinned")
    from tt_core.data.io import NotAFileError, open_regular

    for rel in sorted(set(files) & set(pinned)):
        size = files[rel].lstat().st_size
        if size > MAX_PINNED_BYTES:   # padded: never read (their largest file is under 100 kB)
            problems.append(f"{tree}/{rel} differs from the pinned sha256 ({size} bytes, never read)")
            continue
        try:
            with open_regular(files[rel]) as fh:   # not blocking on a FIFO swapped in since it was listed
                data = fh.read(MAX_PINNED_BYTES + 1)
        except (NotAFileError, OSError):
            problems.append(f"{tree}/{rel} is not a regular file")
            continue
        if hashlib.sha256(data).hexdigest() != pinned[rel]:
            problems.append(f"{tree}/{rel} differs from the pinned sha256")
        else:
            good[rel] = data
    return problems, good


def listed(problems: list[str], most: int = 6) -> str:
    """``problems`` joined for a one-line message, the first ``most`` of them."""
    return "; ".join(problems[:most]) + (f"; and {len(problems) - most} more" if len(problems) > most else "")


def copy_pinned(code: Path, into: Path) -> None:
    """Copy the two trees of the authors' code under ``code`` into ``into``, holding only the pinned files,
    each checked against its sha256 in :mod:`tt_workbook.authors.manifest` on the bytes written.

    Raises :class:`AuthorsError` naming the files that differ, are missing, are not regular files or are not
    pinned (an unpinned file could shadow a library); nothing is run then."""

    from tt_workbook.authors.manifest import FILES

    problems: list[str] = []
    copies: dict[Path, bytes] = {}
    for tree in (TRIMTUNER_DIR, ROBO_DIR):
        found, data = inspect_tree(code / tree, tree)
        problems += found
        copies.update({into / tree / rel: b for rel, b in data.items()})
    if problems:
        raise AuthorsError(f"the authors' code in {code} is not the pinned code ({listed(problems)}); nothing was run: restore "
                           "the pinned trees (`tt authors fetch --force` installs them, keeping the changed ones "
                           "aside) or point TT_AUTHORS_CODE at them")
    for target, data in copies.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    manifest = {tree: FILES[tree] for tree in (TRIMTUNER_DIR, ROBO_DIR)}
    (into / MANIFEST).write_text(json.dumps(manifest))


#: The pinned manifest as the harness reads it, beside the private copy of the trees.
MANIFEST = "pinned.json"
#: Environment variables passed to the harness from the caller's environment (nothing else is).
PASSED_ENV = ("PATH", "HOME")
#: Thread counts of the numeric libraries: one thread, as the reference runs were made.
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS")


def harness_env(private: Path) -> dict:
    """The harness's whole environment: PATH and HOME from the caller, one thread per numeric library, a fixed
    hash seed, no user site-packages, no bytecode written, temporary files in the run's ``private`` folder."""
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.update({k: "1" for k in THREAD_ENV})
    env.update(PYTHONNOUSERSITE="1", PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1", TMPDIR=str(private))
    return env


def run_authors(benchmark: str, seed: int, beta: float = CEA_BETA, filter: str = "cea", residue: str = "empirical",
                iterations: int = TESTS_PER_RUN, dh_seed: int = 0, verbose: bool = False, progress=None) -> dict:
    """Run the authors' TrimTuner-DT once; return its tests, incumbents and BO steps.

    Returns a dict with the settings, ``tests`` (per test ``x`` = [n_workers, learning_rate, batch_size,
    synchronism, vm_flavor code], ``size``, ``accuracy``, ``cost``), ``incumbents`` (after each BO test:
    ``after_test``, ``x``, predicted ``pred_acc`` and ``pred_cost``), ``steps`` (per BO step ``n_kept``,
    ``argmax``, ``all_equal`` and each estimator's ``dh_minmax``) and ``wall_s``.
    """
    from tt_core.data.benchmarks import locate

    check_settings(benchmark, beta, filter, residue, iterations, seed)
    code = locate_code()
    csv, _ = locate(benchmark)
    dh_file = empirical_dh_file() if residue == "empirical" else None
    with tempfile.TemporaryDirectory(prefix="tt-authors-") as tmp:   # private: mode 0700
        private = Path(tmp)
        copy = private / "code"
        copy_pinned(code, copy)     # before anything is installed or run
        python = ensure_env(progress=progress)
        work = private / "work"
        work.mkdir()
        out = private / "run.json"
        cmd = [str(python), "-s", str(HARNESS), "--code", str(copy), "--manifest", str(copy / MANIFEST),
               "--trimtuner", TRIMTUNER_DIR, "--robo", ROBO_DIR,
               "--csv", str(csv), "--net", benchmark, "--seed", str(seed), "--iterations", str(iterations),
               "--filter", filter, "--beta", repr(float(beta)), "--residue", residue, "--dh-seed", str(dh_seed),
               "--out", str(out)]
        if dh_file is not None:
            cmd += ["--dh-values", str(dh_file)]
        if verbose:
            cmd.append("--verbose")
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if verbose else subprocess.PIPE, text=True,
                              env=harness_env(private), cwd=work)
        if done.returncode != 0 or not out.is_file():
            tail = ((done.stderr or "").strip().splitlines() or ["no message"])[-1][:500]
            if not Path(python).exists() or any(f"No module named '{m}" in tail for m in PIN_MODULES):
                raise _refuse_env(VENV_DIR, env_problem() or f"its Python cannot import the pinned packages ({tail})")
            raise AuthorsError(f"the authors' code stopped ({tail}); run with --verbose to see its output")
        raw = json.loads(out.read_text())
    return _tidy(raw, benchmark)


def _tidy(raw: dict, benchmark: str) -> dict:
    tests = [{"x": t["x"], "size": t["size"], "accuracy": t["acc"], "cost": t["cost"]} for t in raw["tests"]]
    steps = [{"n_kept": s["n_kept"], "argmax": s["argmax"], "all_equal": s["all_equal"],
              "dh_minmax": s["dh_minmax_per_estimator"]} for s in raw["steps"]]
    return {"optimizer": OPTIMIZER, "benchmark": benchmark, "seed": raw["seed"], "iterations": raw["iterations"],
            "filter": raw["filter"], "beta": raw["per"], "residue": raw["dh_model"], "dh_seed": raw["dh_seed"],
            "code": f"{TRIMTUNER_DIR} + {ROBO_DIR}", "versions": raw["versions"], "wall_s": raw["wall_s"],
            "emcee_samplers": raw["emcee_samplers"], "prefetch": raw.get("prefetch"), "tests": tests,
            "incumbents": raw["incumbents"],
            "steps": steps}


# ------------------------------------------------------------------------------------------------
# A run as a trajectory of the workbook (the run store's columns) and its summary numbers
# ------------------------------------------------------------------------------------------------
FLAVORS = ("t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge")   # the authors' vm_flavor codes 0-3


def config_id_of(bench, x) -> int:
    """The workbook's configuration id of the authors' encoding ``x`` (n_workers, lr, batch, sync, flavor)."""
    cfg = bench.configs()
    nw, lr, batch, sync, flavor = x
    hit = cfg[(cfg["n_workers"] == int(nw)) & (abs(cfg["learning_rate"] - lr) <= 1e-12 * max(1.0, abs(lr)))
              & (cfg["batch_size"] == int(batch)) & (cfg["sync"] == ("sync" if int(sync) else "async"))
              & (cfg["vm_flavor"] == FLAVORS[int(flavor)])]
    if len(hit) != 1:
        raise AuthorsError(f"the authors' configuration {list(x)} matches {len(hit)} configurations of "
                           f"{shown(bench.name)}; the benchmark file differs from theirs")
    return int(hit["config_id"].iloc[0])


def trajectory(result: dict, n_init: int = INITIAL_SAMPLES) -> "pd.DataFrame":
    """One row per test in the run store's columns, the incumbent scored by its measured full-size values.

    During the initial design the authors' code names no incumbent of its models; their log records the
    configuration just tested, and so does this trajectory. After each BO test the incumbent is the
    max-CEA configuration among those tested (their ``incumbent_estimation_cea``).
    """
    import numpy as np
    import pandas as pd

    from tt_core.data.benchmarks import as_benchmark
    from tt_core.replay.metrics import accuracy_c, accuracy_c_thesis

    bench = as_benchmark(result["benchmark"])
    inc_after = {i["after_test"]: i for i in result["incumbents"]}
    rows, cum_cost, cum_time = [], 0.0, 0.0
    for k, t in enumerate(result["tests"], start=1):
        cid = config_id_of(bench, t["x"])
        m = bench.lookup(cid, t["size"])
        cum_cost += t["cost"]
        cum_time += float(m["training_time"])
        inc = inc_after.get(k)
        inc_id = cid if inc is None else config_id_of(bench, inc["x"])
        full = bench.lookup(inc_id, bench.max_size)
        rows.append({"iteration": k, "phase": "init" if k <= n_init else "bo", "config_id": cid,
                     "size": int(t["size"]), "accuracy": t["accuracy"], "cost": t["cost"],
                     "time": float(m["training_time"]), "charged_cost": t["cost"],
                     "charged_time": float(m["training_time"]), "cumulative_cost": cum_cost,
                     "cumulative_time": cum_time, "overhead_s": np.nan, "incumbent": inc_id,
                     "incumbent_size": int(bench.max_size), "incumbent_accuracy": float(full["accuracy"]),
                     "incumbent_cost": float(full["cost"]), "incumbent_time": float(full["training_time"]),
                     "predicted_accuracy": np.nan if inc is None else inc["pred_acc"],
                     "predicted_cost": np.nan if inc is None else inc["pred_cost"]})
    traj = pd.DataFrame(rows)
    traj["accuracy_c"] = accuracy_c(traj["incumbent_accuracy"], traj["incumbent_cost"], bench.max_cost)
    traj["accuracy_c_thesis"] = accuracy_c_thesis(traj["incumbent_accuracy"], traj["incumbent_cost"], bench.max_cost)
    traj["cumulative_wall"] = traj["cumulative_time"]
    return traj


def summary(result: dict) -> dict:
    """The numbers the workbook compares: size mix and cost of the BO tests, final Accuracy_C."""
    import numpy as np

    traj = trajectory(result)
    bo = traj[traj["phase"] == "bo"]
    full = traj["incumbent_size"].iloc[0]
    nan = float("nan")
    return {"bo_tests": int(len(bo)),
            "mean_size_fraction": float(np.mean(bo["size"] / full)) if len(bo) else nan,
            "share_at_1_60": float(np.mean(bo["size"] == full // 60)) if len(bo) else nan,
            "cost_per_bo_test": float(bo["cost"].mean()) if len(bo) else nan,
            "total_cost": float(traj["cumulative_cost"].iloc[-1]),
            "final_accuracy_c": float(traj["accuracy_c"].iloc[-1]),
            "final_incumbent": int(traj["incumbent"].iloc[-1]),
            "dh_constant_in_every_step": all(all(mm is None or mm[0] == mm[1] for mm in s["dh_minmax"])
                                             for s in result["steps"])}


# ------------------------------------------------------------------------------------------------
# The run store: optimiser ``authors-dt``
# ------------------------------------------------------------------------------------------------
#: RunSpec options of ``authors-dt`` (``residue`` default empirical, ``dh_seed`` default 0).
SPEC_OPTIONS = {"residue": "empirical", "dh_seed": 0}


def default_beta(spec) -> float | None:
    """The filter fraction a spec of ``authors-dt`` without one runs with: the paper's, unless unfiltered."""
    return None if spec.filter == "nofilter" else CEA_BETA


def replay(spec) -> "AuthorsReplay":
    """The run of ``spec``: one call of the authors' code (:class:`AuthorsReplay`)."""
    return AuthorsReplay(spec)


def check_spec(spec) -> None:
    """A clear error now for a :class:`~tt_workbook.runs.store.RunSpec` of ``authors-dt`` it cannot run."""
    opts = dict(spec.options)
    unknown = sorted(set(opts) - set(SPEC_OPTIONS))
    if unknown:
        raise AuthorsError(f"authors-dt takes the options {sorted(SPEC_OPTIONS)}, not {unknown}")
    if spec.objective not in (None, "accuracy"):
        raise AuthorsError(f"authors-dt maximises accuracy, not {shown(spec.objective)}")
    if any(v is not None for v in (spec.max_cost, spec.max_time, spec.min_accuracy, spec.budget)):
        raise AuthorsError("authors-dt runs with the authors' own cost limits (RNN $0.02, CNN $0.10): give no "
                           "max_cost, max_time, min_accuracy or budget")
    check_settings(spec.benchmark, spec.beta if spec.beta is not None else CEA_BETA, spec.filter or "cea",
                   opts.get("residue", SPEC_OPTIONS["residue"]), spec.iterations if spec.iterations is not None else -1,
                   spec.seed)


class AuthorsReplay:
    """What :meth:`tt_workbook.runs.store.RunSpec.replay` returns for ``authors-dt``: one call of the authors' code.

    ``run`` has the signature of :meth:`tt_core.replay.driver.Replay.run`; the run is one subprocess,
    so there is no test-by-test checkpoint (``after_step`` is not called) and ``should_stop`` is asked
    once, before it starts.
    """

    def __init__(self, spec):
        check_spec(spec)
        self.spec = spec
        self.result: dict | None = None

    def run(self, iterations, progress: bool = False, desc: str = "", after_step=None, should_stop=None, **_):
        from tt_core.replay.driver import Interrupted

        if should_stop is not None and should_stop():
            raise Interrupted("stopped before the authors' code started")
        s, opts = self.spec, {**SPEC_OPTIONS, **dict(self.spec.options)}
        self.result = run_authors(s.benchmark, s.seed, beta=s.beta if s.beta is not None else CEA_BETA,
                                  filter=s.filter or "cea", residue=opts["residue"], iterations=int(iterations),
                                  dh_seed=int(opts["dh_seed"]))
        return frame_for_store(self.result)


def frame_for_store(result: dict):
    """:func:`trajectory` with the run's settings as columns; the harness's wall time spread over the BO tests."""
    traj = trajectory(result)
    bo = traj["phase"] == "bo"
    traj["overhead_s"] = 0.0
    traj.loc[bo, "overhead_s"] = float(result["wall_s"]) / max(1, int(bo.sum()))
    traj["cumulative_wall"] = traj["cumulative_time"] + traj["overhead_s"].cumsum()
    traj["residue"] = result["residue"]
    traj["authors_code"] = result["code"]
    traj["dh_constant"] = [True] * int((~bo).sum()) + [all(mm is None or mm[0] == mm[1] for mm in st["dh_minmax"])
                                                        for st in result["steps"]]
    return traj


def size_cost_table(runs, by=("benchmark", "variant")):
    """Per group of stored trajectories (any optimiser): the BO tests' mean size fraction, share at 1/60
    and mean cost, and the final Accuracy_C, as means over runs (``runs``: concatenated trajectories with
    ``seed``, ``phase``, ``size``, ``cost``, ``accuracy_c``)."""
    import pandas as pd

    rows = []
    for key, g in runs.groupby(list(by), sort=False):
        full = g["size"].max() if "incumbent_size" not in g else g["incumbent_size"].max()
        bo = g[g["phase"] == "bo"]
        last = g.sort_values("iteration").groupby("seed").tail(1)
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "runs": int(g["seed"].nunique()),
                     "mean_size_fraction": float((bo["size"] / full).mean()),
                     "share_at_1_60": float((bo["size"] == full // 60).mean()),
                     "cost_per_bo_test": float(bo["cost"].mean()),
                     "final_accuracy_c": float(last["accuracy_c"].mean())})
    return pd.DataFrame(rows)
