"""The explorer's ipywidgets front (imported lazily): it only translates widget events into
:class:`~tt_workbook.apps.explorer.controller.ExplorerController` calls and redraws.

Controls that do not apply to the chosen optimiser are disabled: ``beta`` and ``filter`` for the
optimisers that are not model-based, the cost limit for the cost-minimising ones (Nephele, Lynceus,
CherryPick), the accuracy bound and the exploration budget for the accuracy-maximising ones.

The limits are sliders over a list of allowed values (:func:`limit_grid`), not over a continuous range:
a browser snaps a continuous slider's value to its step and sends the snapped value back ($0.02 became
$0.0200628), which the kernel took for a person's change. A selection slider sends an index, so the
limit the kernel receives is exactly the one shown, and the paper's limits (e.g. $0.02) are on the grid,
so a run made with them matches the stored runs.

*Run* steps the optimiser as a task on the kernel's event loop, yielding between tests, so that the
kernel keeps taking the browser's messages: the button turns into *Stop* and a click on it ends the run
after the current test; a progress bar counts the tests.
"""

from __future__ import annotations

import asyncio
import functools
import html
import math
import threading

import numpy as np

from tt_workbook.apps.explorer.controller import FIRST_STEP_SECONDS, ExplorerController
from tt_workbook.apps.explorer.panels import DPI, FIGSIZE, smallest_text
from tt_core.data.io import shown

__all__ = ["ExplorerUI", "build_widget", "has_frontend", "limit_grid"]


#: The panels as the widget draws them (:data:`tt_workbook.apps.explorer.panels.FIGSIZE` at ``DPI``: 840 x 420
#: pixels), shown at that size: their smallest text is 10.4 pixels high. With three rows of controls and
#: the status above them they fit in JupyterLab beside its file browser at 1280 x 720.
FIGURE_SIZE = FIGSIZE
FIGURE_DPI = DPI
#: The PNG text key of the panels' smallest font size in points (rendered height: pt x dpi / 72 x shown /
#: natural width).
SMALLEST_TEXT_KEY = "smallest text (pt)"


def _serialised(method):
    """Run a widget handler under the UI's lock.

    ipykernel >= 7 dispatches a widget message on another thread while the main thread is still
    handling the previous one (seen in JupyterLab: choosing "cnn" then "eic" in quick succession ran
    both handlers at once, and one of the two choices was lost). The controller is not thread-safe:
    handlers take turns. The lock is re-entrant because setting a control from a handler fires that
    control's own handler on the same thread."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return wrapper

#: Mantissas of the allowed limit values in each decade (a 1-1.25-1.5-2-2.5-3-4-5-6-8 series).
_MANTISSAS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)


def limit_grid(lo: float, hi: float, keep=()) -> list[float]:
    """The values a limit slider offers: a 1-1.25-1.5-2-2.5-3-4-5-6-8 series per decade covering
    ``[lo, hi]`` (one value beyond each end), plus every value of ``keep`` (the paper's limit, the
    current one), sorted and without duplicates.

    Examples
    --------
    >>> limit_grid(0.011, 0.031, keep=[0.02])
    [0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04]
    """
    if not (lo > 0 and hi >= lo and math.isfinite(hi)):
        raise ValueError(f"a limit grid needs 0 < lo <= hi < inf, got lo={shown(lo)}, hi={shown(hi)}")
    values = set()
    for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        values.update(float(f"{m * 10.0 ** k:.12g}") for m in _MANTISSAS)
    ordered = sorted(values)
    below = [v for v in ordered if v <= lo]
    above = [v for v in ordered if v >= hi]
    start = below[-1] if below else ordered[0]
    stop = above[0] if above else ordered[-1]
    grid = {v for v in ordered if start <= v <= stop}
    grid.update(float(v) for v in keep if v is not None and math.isfinite(float(v)) and float(v) > 0)
    return sorted(grid)


def _label(name: str, value: float) -> str:
    if name == "max_cost":
        return f"${value:.4g}"
    if name == "max_time":
        return f"{value:.4g} s"
    return f"{value:.3f}".rstrip("0").rstrip(".") if value != 0 else "0"

_OWN = "(own)"  # the filter dropdown's value for "the optimiser's own filter"
_DEFAULT_BETA = 0.1


class ExplorerUI:
    """The ipywidgets front of a controller: ``.box`` (the widget), ``.controls`` (by name), ``.refresh()``.

    Displaying an ``ExplorerUI`` in a notebook displays ``.box``.
    """

    _SETTINGS = ("benchmark", "optimizer", "filter", "beta", "seed", "budget")
    _LIMITS = ("max_cost", "use_time", "max_time", "min_accuracy")

    def __init__(self, controller: ExplorerController, k: int = 6, redraw_every: int = 5):
        import ipywidgets as W

        from tt_core.bo.filters import FILTERS
        from tt_core.optimizers import available

        self.controller = controller
        self.k = k
        self.redraw_every = max(1, int(redraw_every))
        self._quiet = False
        self._sent: dict = {}  # the value the kernel last set on each slider (see _is_echo)
        self._task = None  # the running Run task, if any
        self._lock = threading.RLock()  # see _serialised
        self._stop = False
        self._note = ""  # a notice shown under the status until the next action (e.g. a Run ended by a setting)
        self._busy = False  # a Step is computing: Step, Run and Reset are disabled
        self._stepping = threading.Lock()  # held by the Step being computed (see _on_step)
        self._line = ""  # the status line drawn with the panels (see refresh)
        s = controller.settings
        v = self._values()
        style = {"description_width": "62px"}
        c = {
            "benchmark": W.Dropdown(options=["cnn", "rnn"] if s["benchmark"] in ("cnn", "rnn") else [s["benchmark"]],
                                    value=s["benchmark"], description="network", style=style),
            "optimizer": W.Dropdown(options=available(), value=s["optimizer"], description="optimiser", style=style),
            "filter": W.Dropdown(options=[("optimiser's own", _OWN)] + [(f, f) for f in sorted(FILTERS)],
                                 value=v["filter"], description="filter", style=style),
            "beta": W.FloatSlider(value=v["beta"], min=0.01, max=1.0, step=0.01, description="beta", style=style),
            "seed": W.BoundedIntText(value=s["seed"], min=0, max=10**6, description="seed", style=style),
            "budget": W.BoundedFloatText(value=v["budget"], min=1e-3, max=1e6, step=0.5, description="budget $",
                                         style=style),
            "max_cost": W.SelectionSlider(options=[(_label("max_cost", v["max_cost"]), v["max_cost"])],
                                          value=v["max_cost"], description="max cost", style=style,
                                          continuous_update=False),
            "use_time": W.Checkbox(value=v["use_time"], description="time bound", indent=False),
            "keep_tests": W.Checkbox(value=False, description="keep tests", indent=False,
                                     tooltip="keep the tests made so far when a limit changes"),
            "max_time": W.SelectionSlider(options=[(_label("max_time", v["max_time"]), v["max_time"])],
                                          value=v["max_time"], description="max time", style=style,
                                          continuous_update=False),
            "min_accuracy": W.SelectionSlider(options=[(_label("min_accuracy", v["min_accuracy"]), v["min_accuracy"])],
                                              value=v["min_accuracy"], description="min acc.", style=style,
                                              continuous_update=False),
            "step": W.Button(description="Step", button_style="primary", icon="step-forward"),
            "run": W.Button(description="Run", button_style="success", icon="play"),
            "reset": W.Button(description="Reset", button_style="warning", icon="undo"),
        }
        self.controls = c
        self.status = W.HTML()
        self.activity = W.HTML()  # "computing test N…", "stopping after test N…" while the kernel works
        self.progress = W.IntProgress(value=0, min=0, max=1, description="tests", style={"description_width": "40px"})
        # An Image and an HTML widget, not Output widgets: what a Run task displays into an Output widget
        # after the click's message is answered is dropped by JupyterLab (it routes output by the
        # message being answered), while widget state reaches the browser whenever it is set. The image is
        # shown at its own size (text of 10.4 pixels), shrunk only where the notebook is narrower.
        width = f"{round(FIGURE_SIZE[0] * FIGURE_DPI)}px"
        self.plot = W.Image(format="png", layout=W.Layout(width=width, max_width="100%", height="auto"))
        self.table = W.HTML()
        for name in self._SETTINGS:
            c[name].observe(self._on_setting, names="value")
        for name in self._LIMITS:
            c[name].observe(self._on_constraint, names="value")
        c["step"].on_click(self._on_step)
        c["run"].on_click(self._on_run)
        c["reset"].on_click(lambda _: self._act(self.controller.reset))
        # for a laptop screen (1280 x 720, JupyterLab's file browser open: ~850 pixels of notebook width):
        # three rows of controls, the progress with what the kernel is doing, the status line (two lines
        # kept, so that the panels do not jump), the panels; the candidates' table below them
        widths = {"step": 72, "run": 72, "reset": 80, "benchmark": 175, "optimizer": 235, "seed": 150,
                  "max_cost": 265, "min_accuracy": 265, "filter": 240, "use_time": 112, "max_time": 240,
                  "beta": 195, "budget": 160, "keep_tests": 100}
        for name, px in widths.items():
            c[name].layout.width = f"{px}px"
        self.progress.layout = W.Layout(width="280px")
        self.activity.layout = W.Layout(width="560px")
        rows = [W.HBox([c["step"], c["run"], c["reset"], c["benchmark"], c["optimizer"], c["seed"]]),
                W.HBox([c["max_cost"], c["min_accuracy"], c["filter"]]),
                W.HBox([c["use_time"], c["max_time"], c["beta"], c["budget"], c["keep_tests"]]),
                W.HBox([self.progress, self.activity], layout=W.Layout(height="28px"))]
        self.status.layout = W.Layout(width="100%", min_height="38px")
        self.box = W.VBox([*rows, self.status, self.plot, self.table])
        self.refresh()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def _values(self) -> dict:
        """What each control shows for the controller's settings (effective limits, defaults where unset)."""
        from tt_workbook.runs.profiles import EXPLORATION_BUDGETS
        from tt_core.replay.driver import THESIS_MIN_ACCURACY

        ctl = self.controller
        s, lim, bench = ctl.settings, ctl.limits, ctl.benchmark
        lo, hi = ctl.cost_range(bench)
        tlo, thi = ctl.time_range(bench)
        budget = lim.get("budget") or EXPLORATION_BUDGETS.get(bench.name.lower(), 1.0)
        return {
            "filter": s["filter"] or _OWN,
            "beta": s["beta"] if s["beta"] is not None else _DEFAULT_BETA,
            "max_cost": lim.get("max_cost") or bench.max_cost or float(np.sqrt(lo * hi)),
            "max_time": lim.get("max_time") or float(np.sqrt(tlo * thi)),
            "use_time": lim.get("max_time") is not None,
            "min_accuracy": lim.get("min_accuracy") or THESIS_MIN_ACCURACY,
            "budget": float(budget),
        }

    def _show_status(self, error: str = "", busy: str = "") -> None:
        """The status line drawn with the panels (:meth:`refresh`), the notice or error, what the kernel is
        doing (``busy``), the progress and which buttons are enabled."""
        ctl = self.controller
        head, _, rest = self._line.partition(" | ")
        msg = f"<b>{html.escape(head)}</b>" + (f" | {html.escape(rest)}" if rest else "")
        msg = f"<div style='line-height: 1.35'>{msg}"
        self.activity.value = f"<b style='color:#1565c0'>&#8987; {html.escape(busy)}</b>" if busy else ""
        if self._note:
            msg += f"<br><span style='color:#ef6c00'>{html.escape(self._note)}</span>"
        if error:
            msg += f"<br><span style='color:#c00'>{html.escape(error)}</span>"
        self.status.value = msg + "</div>"
        st = ctl.state()
        total = st["max_tests"]
        if total is None:  # the budget is the stop rule: count money, in cents
            total_c = max(1, int(round(100 * (st["spent"] + max(st.get("budget_left") or 0.0, 0.0)))))
            self.progress.max, self.progress.value = total_c, min(total_c, int(round(100 * st["spent"])))
            self.progress.description = "budget"
        else:
            self.progress.max, self.progress.value = max(1, int(total)), min(int(total), int(st["iteration"]))
            self.progress.description = "tests"
        running, busy_step = self._task is not None, self._busy
        self.controls["step"].disabled = ctl.done or running or busy_step
        self.controls["run"].disabled = (ctl.done and not running) or busy_step
        self.controls["reset"].disabled = running or busy_step
        self.controls["run"].description = "Stop" if running else "Run"
        self.controls["run"].icon = "stop" if running else "play"
        self.controls["run"].button_style = "danger" if running else "success"

    @_serialised
    def refresh(self, error: str = "") -> None:
        """Bring the controls in line with the controller's settings, then redraw the status line, the
        four panels and the candidates table (call it after driving the controller from code)."""
        import io

        import matplotlib as mpl
        import matplotlib.pyplot as plt

        self._sync_controls()
        line = self.controller.status()
        fig = self.controller.figure(k=self.k, figsize=FIGURE_SIZE, title=False)  # the status line is its title
        buf = io.BytesIO()
        try:  # at its own size: not cropped to a tight box (the notebook's style asks for one); the PNG
            # carries its dpi and its smallest text in points, for a reader to tell the text's height on screen
            smallest = smallest_text(fig)
            with mpl.rc_context({"savefig.bbox": "standard"}):
                fig.savefig(buf, format="png", dpi=FIGURE_DPI, metadata={SMALLEST_TEXT_KEY: f"{smallest:g}"})
        finally:
            plt.close(fig)
        self.plot.value = buf.getvalue()
        self._line = line
        top = self.controller.top_candidates(self.k)
        if top.empty:
            self.table.value = f"<p><i>{html.escape(str(top.attrs.get('note', '')))}</i></p>"
        else:
            from tt_workbook.apps.explorer.panels import candidates_title

            st = self.controller.state()
            title = candidates_title(self.controller.settings["optimizer"], st["family"], st["filter_used"], len(top))
            self.table.value = (f"<b>{html.escape(title)}</b>"
                                + top.to_html(float_format=lambda x: f"{x:.4g}", border=0))
        self._show_status(error)  # last: once the status (and the Run button) shows, the panels are drawn

    def _on_run_step(self, row) -> None:
        """During Run: the panels and the status line together every ``redraw_every`` steps (and at the
        end), so that both always show the same test and incumbent; the progress bar every step."""
        if row is not None and (row["iteration"] % self.redraw_every == 0 or self.controller.done):
            self.refresh()
        else:
            self._show_status(busy=self._activity_text(running=True))

    def _on_run(self, _button=None) -> None:
        """*Run*, or *Stop* while running.

        Under a Jupyter kernel the run is a task on the kernel's event loop that yields after every
        test, so that a click on *Stop* (and any other widget message) is taken between two tests.
        Without a running event loop (plain Python, tests) it runs to the end at once."""
        if self._task is not None:
            self._stop = True
            self._show_status(busy=f"stopping after test {self.controller.state()['iteration'] + 1}")
            return
        self._note = ""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self._act(lambda: self.controller.run(callback=self._on_run_step))
            return
        self._stop = False
        self._task = loop.create_task(self._run_task())
        self._show_status()  # the button reads Stop from now on

    async def _run_task(self) -> None:
        error = ""
        try:
            self._show_status()
            while not self.controller.done and not self._stop:
                with self._lock:
                    if self._stop:  # a setting changed while waiting for the lock
                        break
                    self._show_status(busy=self._activity_text(running=True))
                    self.controller.step()
                    self._on_run_step(self.controller.last_row())
                await asyncio.sleep(0.02)  # let the kernel take the browser's messages (Stop)
        except ValueError as exc:
            error = str(exc)
        finally:
            self._task = None
            self._stop = False
        self.refresh(error)

    @property
    def running(self) -> bool:
        """Whether a *Run* is in progress."""
        return self._task is not None

    def stop(self) -> None:
        """Ask a *Run* in progress to stop after the current test (what the *Stop* button does)."""
        if self._task is not None:
            self._stop = True

    def _computing(self) -> str:
        ctl = self.controller
        text = f"computing test {ctl.state()['iteration'] + 1}…"
        if ctl.compiles_next:
            text += f" the first step compiles the kernels (about {FIRST_STEP_SECONDS} s)"
        return text

    def _activity_text(self, running: bool = False) -> str:
        text = self._computing()
        if running:
            text += (f" (status and panels redrawn every {self.redraw_every} tests; "
                     "Stop ends the run after this test)")
        return text

    def _on_step(self, _button=None) -> None:
        """*Step*: one test. The button is disabled while it computes; a click that still reaches the kernel
        meanwhile (ipykernel 7 hands it to another thread at once) is dropped, not queued."""
        if not self._stepping.acquire(blocking=False):
            return
        try:
            self._act(self.controller.step, busy=True)
        finally:
            self._stepping.release()

    @_serialised
    def _act(self, fn, busy: bool = False) -> None:
        self._note = ""
        if busy:  # Step, Run and Reset disabled and the activity shown while the step computes
            self._busy = True
            self._show_status(busy=self._activity_text())
        error = ""
        try:
            try:
                fn()
            except ValueError as exc:
                error = str(exc)
            self.refresh(error)  # still busy while the panels are drawn (the first draw compiles too)
        finally:
            self._busy = False
        if busy:
            self._show_status(error)

    @_serialised
    def _on_setting(self, change) -> None:
        if self._quiet or self._is_echo(change):
            return
        if self._task is not None:  # a setting changed during Run: stop it first
            self._stop = True
            self._note = "The run was stopped: changing a setting starts a new run (press Run to run it)."
        c = self.controls
        name = next(n for n, w in c.items() if w is change["owner"])
        value = None if name == "filter" and change["new"] == _OWN else change["new"]
        try:
            self.controller.configure(**{name: value})
        except ValueError as exc:
            self._show_status(str(exc))
            return
        self.refresh()

    def _sync_controls(self) -> None:
        """Set every control from the controller's settings without triggering their handlers, and
        disable those that do not apply to the optimiser."""
        ctl = self.controller
        s = ctl.settings
        c = self.controls
        v = self._values()
        lo, hi = ctl.cost_range(ctl.benchmark)
        tlo, thi = ctl.time_range(ctl.benchmark)
        alo, ahi = ctl.accuracy_range(ctl.benchmark)
        self._quiet = True
        try:
            if s["benchmark"] not in c["benchmark"].options:
                c["benchmark"].options = [*c["benchmark"].options, s["benchmark"]]
            for name in ("benchmark", "optimizer", "seed"):
                if c[name].value != s[name]:
                    c[name].value = s[name]
            for name in ("filter", "beta", "budget", "use_time"):
                if c[name].value != v[name]:
                    c[name].value = v[name]
            self._sent["beta"] = v["beta"]
            paper = ctl.benchmark.max_cost
            grids = {
                "max_cost": limit_grid(lo, hi, keep=[v["max_cost"], paper]),
                "max_time": limit_grid(tlo, thi, keep=[v["max_time"]]),
                "min_accuracy": sorted({round(x, 3) for x in np.arange(max(0.0, np.floor(alo * 20) / 20),
                                                                       min(1.0, np.ceil(ahi * 100) / 100) + 1e-9, 0.01)}
                                       | {float(v["min_accuracy"])}),
            }
            for name, grid in grids.items():
                w, value = c[name], float(v[name])
                options = tuple((_label(name, x), x) for x in grid)
                if tuple(w.options) != options:
                    w.options = options
                if w.value != value:
                    w.value = value
                self._sent[name] = value
            model_based = ctl.family == "model-based"
            by_cost = ctl.objective == "cost"
            c["filter"].disabled = c["beta"].disabled = not model_based
            c["max_cost"].disabled = by_cost
            c["min_accuracy"].disabled = c["budget"].disabled = not by_cost
            c["use_time"].disabled = by_cost  # the thesis' problem always has a time limit (default 300 s)
            c["max_time"].disabled = not v["use_time"]
        finally:
            self._quiet = False

    def _is_echo(self, change) -> bool:
        """Whether a continuous slider's change only rounds the value the kernel itself last put there.

        The limits are selection sliders (exact values); ``beta`` is a continuous slider, whose value set
        from the kernel (e.g. 0.1) the browser may snap to its grid and send back. That is not a person's
        change: a person moves a slider by at least one step, so a change within half a step of what the
        kernel sent is the echo.
        """
        w = change["owner"]
        name = next((n for n, c in self.controls.items() if c is w), None)
        sent = self._sent.get(name)
        if sent is None or change["new"] is None or not hasattr(w, "step"):
            return False
        return abs(float(change["new"]) - float(sent)) <= 0.5 * float(w.step) + 1e-12

    @_serialised
    def _on_constraint(self, change) -> None:
        if self._quiet or self._is_echo(change):
            return
        if self._task is not None:  # a limit changed during Run: stop it first
            self._stop = True
            self._note = "The run was stopped: a limit changed (press Run to continue under the new limit)."
        c = self.controls
        c["max_time"].disabled = not c["use_time"].value
        max_time = float(c["max_time"].value) if c["use_time"].value else None
        if self.controller.objective == "cost":
            changes = {"min_accuracy": float(c["min_accuracy"].value), "max_time": max_time}
        else:
            changes = {"max_cost": float(c["max_cost"].value), "max_time": max_time}
        try:
            self.controller.set_constraint(**changes, keep_history=bool(c["keep_tests"].value))
        except ValueError as exc:
            self._show_status(str(exc))
            return
        self.refresh()


def has_frontend() -> bool:
    """Whether this kernel was started by a Jupyter server for a notebook (JupyterLab, Notebook 7).

    Jupyter's session manager sets ``JPY_SESSION_NAME`` for the kernels it starts; papermill, nbclient
    and plain Python do not. Headless runs must not display widgets (nbclient can wait forever for a
    widget front end), so the explorer notebook builds its widget only when this is True (or when told
    to). Other front ends (e.g. VS Code) may not set the variable: pass ``interactive=True`` there.
    """
    import os

    return bool(os.environ.get("JPY_SESSION_NAME"))


def build_widget(controller: ExplorerController, k: int = 6, redraw_every: int = 5) -> ExplorerUI:
    """The ipywidgets UI of a controller (settings, limit sliders, Step / Run / Reset, live panels).

    Parameters
    ----------
    controller : ExplorerController
    k : int
        Number of top candidates shown.
    redraw_every : int
        While "Run" is running, redraw the panels every this many steps (the status line every step).

    Returns
    -------
    ExplorerUI
        Display it in a notebook; ``.controls`` gives the widgets by name (tests click them).
    """
    if not isinstance(controller, ExplorerController):
        raise ValueError(f"build_widget needs an ExplorerController, got {type(controller).__name__}")
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        raise ValueError("the explorer widget needs ipywidgets: pip install ipywidgets") from None
    return ExplorerUI(controller, k=k, redraw_every=redraw_every)
