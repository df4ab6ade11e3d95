# Two commands on a fresh machine with Python >= 3.10:
#   make reproduce   set up .venv, run every notebook (quick profile), write reports/quick/index.html
#   make test        set up .venv, run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed
PROFILE ?= quick
# Extra pip options, e.g. PIP_EXTRA="--extra-index-url https://download.pytorch.org/whl/cpu" for PyTorch's
# CPU-only build where no local wheel of torch 2.13.0+cpu is offered (see the README).
PIP_EXTRA ?=

.PHONY: setup reproduce test test-fast bench clean notebooks-sync screenshot

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python >= 3.10 needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(PIP_EXTRA) -e '.[test,nn]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" > /dev/null
	$(BIN)/python -c "from tt_core.apps.notebook_hygiene import install; install()"
	@touch $(STAMP)

setup: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/tt reproduce --profile $(PROFILE)

test: $(STAMP)
	$(BIN)/python -m pytest -q -rs

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

# Re-take the README's explorer screenshot with the browser test (needs Chromium: apt-get install chromium).
screenshot: $(STAMP)
	TT_UPDATE_SCREENSHOTS=1 TT_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -q -rs tests/test_browser.py

# Re-create each notebooks/*.ipynb (outputs stripped) from its paired py:percent script.
notebooks-sync: $(STAMP)
	$(BIN)/jupytext --to ipynb --update notebooks/[0-9]*.py

clean:
	rm -rf $(VENV) reports runs .pytest_cache
