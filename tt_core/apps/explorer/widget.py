"""The explorer's ipywidgets front (imported lazily): it only translates widget events into
:class:`~tt_core.apps.explorer.controller.ExplorerController` calls and redraws.

Controls that do not apply to the chosen optimiser are disabled: ``beta`` and ``filter`` for the
optimisers that are not model-based, the cost limit for the cost-minimising ones (Nephele, Lynceus,
CherryPick), the accuracy bound and the exploration budget for the accuracy-maximising ones.
"""

from __future__ import annotations

import html

import numpy as np

from tt_core.apps.explorer.controller import ExplorerController

__all__ = ["ExplorerUI", "build_widget", "has_frontend"]

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
        s = controller.settings
        v = self._values()
        style = {"description_width": "90px"}
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
            "max_cost": W.FloatLogSlider(value=v["max_cost"], base=10, min=-20, max=20, step=0.01,
                                         readout_format=".4f", description="max cost $", style=style),
            "use_time": W.Checkbox(value=v["use_time"], description="time bound", indent=False),
            "keep_tests": W.Checkbox(value=False, description="keep tests when limits change", indent=False),
            "max_time": W.FloatLogSlider(value=v["max_time"], base=10, min=-20, max=20, step=0.01,
                                         readout_format=".0f", description="max time s", style=style),
            "min_accuracy": W.FloatSlider(value=v["min_accuracy"], min=0.0, max=1.0, step=0.005, readout_format=".3f",
                                          description="min accuracy", style=style),
            "step": W.Button(description="Step", button_style="primary", icon="step-forward"),
            "run": W.Button(description="Run", button_style="success", icon="play"),
            "reset": W.Button(description="Reset", button_style="warning", icon="undo"),
        }
        self.controls = c
        self.status = W.HTML()
        self.plot = W.Output()
        self.table = W.Output()
        for name in self._SETTINGS:
            c[name].observe(self._on_setting, names="value")
        for name in self._LIMITS:
            c[name].observe(self._on_constraint, names="value")
        c["step"].on_click(lambda _: self._act(self.controller.step))
        c["run"].on_click(lambda _: self._act(lambda: self.controller.run(callback=self._on_run_step)))
        c["reset"].on_click(lambda _: self._act(self.controller.reset))
        settings = W.VBox([c["benchmark"], c["optimizer"], c["filter"], c["beta"], c["seed"], c["budget"]])
        limits = W.VBox([c["max_cost"], c["min_accuracy"], W.HBox([c["use_time"], c["keep_tests"]]), c["max_time"],
                         W.HBox([c["step"], c["run"], c["reset"]])])
        self.box = W.VBox([W.HBox([settings, limits]), self.status, self.plot, self.table])
        self.refresh()

    def _repr_mimebundle_(self, **kwargs):
        return self.box._repr_mimebundle_(**kwargs)

    def _values(self) -> dict:
        """What each control shows for the controller's settings (effective limits, defaults where unset)."""
        from tt_core.experiments.profiles import EXPLORATION_BUDGETS
        from tt_core.experiments.replay import THESIS_MIN_ACCURACY

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

    def _show_status(self, error: str = "") -> None:
        ctl = self.controller
        head, _, rest = ctl.status().partition(" | ")
        msg = f"<b>{html.escape(head)}</b>" + (f" | {html.escape(rest)}" if rest else "")
        if error:
            msg += f"<br><span style='color:#c00'>{html.escape(error)}</span>"
        self.status.value = msg
        self.controls["step"].disabled = self.controls["run"].disabled = ctl.done

    def refresh(self, error: str = "") -> None:
        """Bring the controls in line with the controller's settings, then redraw the status line, the
        four panels and the candidates table (call it after driving the controller from code)."""
        import matplotlib.pyplot as plt
        from IPython.display import display

        self._sync_controls()
        self._show_status(error)
        self.plot.clear_output(wait=True)
        with self.plot:
            fig = self.controller.figure(k=self.k)
            display(fig)
            plt.close(fig)
        self.table.clear_output(wait=True)
        with self.table:
            top = self.controller.top_candidates(self.k)
            display(top if not top.empty else top.attrs.get("note", ""))

    def _on_run_step(self, row) -> None:
        """During Run: update the status line every step and the panels every ``redraw_every`` steps."""
        if row is not None and row["iteration"] % self.redraw_every == 0:
            self.refresh()
        else:
            self._show_status()

    def _act(self, fn) -> None:
        try:
            fn()
        except ValueError as exc:
            self.refresh(str(exc))
            return
        self.refresh()

    def _on_setting(self, change) -> None:
        if self._quiet or self._is_echo(change):
            return
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
            for name, (a, b) in (("max_cost", (lo, hi)), ("max_time", (tlo, thi))):
                w, value = c[name], v[name]
                a, b = min(a, value), max(b, value)  # a limit set from code may lie outside the data's range
                w.min, w.max = -20, 20  # widen first so that min <= max holds at every assignment
                w.min, w.max = np.log10(a), np.log10(b)
                w.value = self._sent[name] = value
            w, value = c["min_accuracy"], v["min_accuracy"]
            w.min, w.max = 0.0, 1.0
            w.min, w.max = min(np.floor(alo * 100) / 100, value), max(min(1.0, np.ceil(ahi * 100) / 100), value)
            w.value = self._sent["min_accuracy"] = value
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
        """Whether a slider change only rounds the value the kernel itself last put there.

        A value set from the kernel (e.g. $0.02, 300 s) rarely lies on a slider's grid; the browser snaps
        it and sends the snapped value back. That is not a person's change: taking it as one restarts
        the run after every redraw (and the two sides keep re-triggering each other). A person moves a
        slider by at least one step, so a change within half a step of what the kernel sent is the echo.
        """
        w = change["owner"]
        name = next((n for n, c in self.controls.items() if c is w), None)
        sent = self._sent.get(name)
        if sent is None or change["new"] is None or not hasattr(w, "step"):
            return False
        if isinstance(w, _log_slider_class()):  # the grid is in log10 units
            gap = abs(np.log10(float(change["new"])) - np.log10(float(sent)))
        else:
            gap = abs(float(change["new"]) - float(sent))
        return gap <= 0.5 * float(w.step) + 1e-12

    def _on_constraint(self, change) -> None:
        if self._quiet or self._is_echo(change):
            return
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


def _log_slider_class():
    """The ipywidgets log-slider class (ipywidgets is imported lazily)."""
    import ipywidgets

    return ipywidgets.FloatLogSlider


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
