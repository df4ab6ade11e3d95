"""Executed notebooks to HTML pages that work offline.

nbconvert's default HTML page loads MathJax, require.js and mermaid from a CDN, and a widget's view
needs the widget manager's scripts from unpkg; offline (or behind a firewall) the maths shows as raw
TeX and widgets as empty boxes. :func:`notebook_to_html` instead

* typesets the maths of markdown cells at build time: each ``$...$`` / ``$$...$$`` becomes an inline
  SVG picture drawn by matplotlib's mathtext (alt text: the TeX source); a formula mathtext cannot
  draw stays as code, never silently dropped;
* replaces each widget view by its text fallback (a progress bar's final text) and drops the saved
  widget state;
* uses a template that leaves out every ``<script src=...>`` to the network.
"""

from __future__ import annotations

import base64
import html
import io
import re
from functools import lru_cache
from pathlib import Path

from tt_core.data.io import write_text

__all__ = ["math_to_svg", "notebook_to_html", "typeset_markdown"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

#: Display maths ``$$...$$`` (may span lines) and inline maths ``$...$``. Inline maths must not start
#: with a digit or a space, nor end with a space, so that money ("$5 and $10") is left alone.
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$\w])\$(?![\s\d$])([^$\n]{1,200}?)(?<!\s)\$(?![\w$])")
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)

#: TeX commands mathtext spells differently.
_ALIAS = {r"\ge": r"\geq", r"\le": r"\leq", r"\ne": r"\neq"}
_ALIASES = re.compile(r"\\(?:ge|le|ne)(?![a-zA-Z])")

_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
"""


@lru_cache(maxsize=512)
def math_to_svg(tex: str, display: bool = False) -> str | None:
    """An ``<img>`` tag with the formula drawn as SVG by matplotlib's mathtext (None if it cannot)."""
    from matplotlib import mathtext
    from matplotlib.font_manager import FontProperties

    source = " ".join(tex.split())
    drawable = _ALIASES.sub(lambda m: _ALIAS[m.group(0)], source)
    buf = io.BytesIO()
    try:
        mathtext.math_to_image(f"${drawable}$", buf, prop=FontProperties(size=15 if display else 12), format="svg")
    except (ValueError, RuntimeError):
        return None
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    style = "display:block;margin:0.6em auto" if display else "vertical-align:middle"
    return (f'<img class="tt-math" style="{style}" alt="{html.escape(source, quote=True)}" '
            f'src="data:image/svg+xml;base64,{data}">')


def typeset_markdown(text: str) -> tuple[str, int, list[str]]:
    """Markdown with its maths replaced by SVG pictures.

    Returns
    -------
    (text, n_typeset, failed)
        ``failed``: the formulas mathtext could not draw (left as inline code).
    """
    failed: list[str] = []
    count = 0

    def replace(match, display):
        nonlocal count
        tag = math_to_svg(match.group(1), display)
        if tag is None:
            failed.append(match.group(1))
            return f"`{match.group(1)}`"
        count += 1
        return tag

    parts = _CODE.split(text)  # leave code spans and blocks alone
    for i in range(0, len(parts), 2):
        # money is written \\$5 in the notebooks (JupyterLab's markdown turns \$ into $ before MathJax
        # sees it, so a single backslash is not enough there); here \$ is what markdown prints as $
        parts[i] = parts[i].replace("\\\\$", "\\$")
        parts[i] = _DISPLAY.sub(lambda m: replace(m, True), parts[i])
        parts[i] = _INLINE.sub(lambda m: replace(m, False), parts[i])
    return "".join(parts), count, failed


def _offline(nb) -> dict:
    """Typeset the maths and drop widget views in place; returns counts for the caller."""
    stats = {"math": 0, "math_failed": [], "widgets": 0}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, n, failed = typeset_markdown(cell.source)
            stats["math"] += n
            stats["math_failed"] += failed
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                stats["widgets"] += 1
                if not data:
                    data["text/plain"] = "(interactive widget: open the notebook in JupyterLab)"
    nb.metadata.pop("widgets", None)
    return stats


def _hide_prefix(nb, prefix: str) -> int:
    """Remove ``prefix`` + a path separator (the project's absolute folder) from every code cell and text
    output, so that the page shows paths relative to the project; returns the number of cells changed."""
    if not prefix:
        return 0
    pattern = re.compile(re.escape(prefix.rstrip("/\\")) + r"[/\\]")
    changed = 0

    def clean(text):
        nonlocal changed
        if isinstance(text, list):
            return [clean(t) for t in text]
        if isinstance(text, str) and pattern.search(text):
            changed += 1
            return pattern.sub("", text)
        return text

    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = clean(cell.source)
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = clean(out["text"])
            for mime in ("text/plain", "text/html", "text/markdown"):
                if mime in out.get("data", {}):
                    out["data"][mime] = clean(out["data"][mime])
            if "traceback" in out:
                out["traceback"] = clean(out["traceback"])
    return changed


def notebook_to_html(executed: str | Path, dest: str | Path | None = None, title: str | None = None,
                     back_link: str | None = None, hide_prefix: str | None = None) -> Path:
    """Write an offline HTML page of an executed notebook (default: beside it, ``.html``).

    ``title``: the page's title (default: the file name); ``back_link``: a link shown at the top of the
    page (e.g. ``"index.html"``, the report); ``hide_prefix``: a folder (the project's) removed from paths
    in code and outputs, so that no absolute path of the machine that ran it is shown."""
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    executed = Path(executed)
    nb = nbformat.read(executed, as_version=4)
    _offline(nb)
    if hide_prefix:
        _hide_prefix(nb, hide_prefix)
    exporter = HTMLExporter(template_name="lab", extra_loaders=[jinja2.DictLoader({"tt_offline.html.j2": _TEMPLATE})],
                            template_file="tt_offline.html.j2")
    page_title = title or executed.stem
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": page_title}})
    body = re.sub(r"<title>.*?</title>", lambda m: f"<title>{html.escape(page_title)}</title>", body, count=1, flags=re.S)
    if back_link:
        nav = (f'<nav class="tt-back" style="font-family:system-ui,sans-serif;margin:.6em 1em">'
               f'<a href="{html.escape(back_link, quote=True)}">&larr; back to the report</a> &middot; '
               f'<b>{html.escape(page_title)}</b></nav>')
        body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + nav, body, count=1)
    return write_text(Path(dest) if dest else executed.with_suffix(".html"), body)
