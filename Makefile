# Two commands on a fresh machine with Python >= 3.10:
#   make reproduce   set up .venv, run every notebook (quick profile), write reports/quick/index.html
#   make test        set up .venv, run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed
PROFILE ?= quick
# PyTorch (the nn extra, notebook 15): the package registry's Linux build of torch pulls several GB of
# GPU libraries, so where PyTorch's CPU-only index answers (5 s timeout) pip also looks there and takes
# torch 2.13.0+cpu. Where it does not answer (a closed network, e.g. this project's CI, which has a local
# CPU wheel), nothing is added. Override with TORCH_INDEX= (none) or another index.
TORCH_CPU_URL = https://download.pytorch.org/whl/cpu
TORCH_INDEX ?= $(shell $(PYTHON) -c "import urllib.request as u; u.urlopen('$(TORCH_CPU_URL)/torch/', timeout=5)" >/dev/null 2>&1 && echo --extra-index-url $(TORCH_CPU_URL))
# Extra pip options (added after TORCH_INDEX).
PIP_EXTRA ?=

.PHONY: setup reproduce test test-fast bench clean notebooks-sync screenshot

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python >= 3.10 needed, found " + sys.version.split()[0]'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_INDEX) $(PIP_EXTRA) -e '.[notebooks,test,nn,lcdb]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" > /dev/null
	$(BIN)/python -c "from tt_workbook.apps.notebook_hygiene import install; install()"
	$(BIN)/python -m tt_workbook.apps.lab_settings > /dev/null
	@touch $(STAMP)

# The notebooks opened in JupyterLab need the measurements: fetched here when missing (nothing downloaded when
# present; `tt reproduce` fetches them itself). Offline, setup still succeeds and says how to get them.
setup: $(STAMP)
	@$(BIN)/tt data fetch || echo "make setup: the measurements could not be fetched; the notebooks need them (see data/README.md)"

reproduce: $(STAMP)
	$(BIN)/tt reproduce --profile $(PROFILE)

# The tests read the measurements too: fetched first when missing (nothing downloaded when present).
test: $(STAMP)
	@$(BIN)/tt data fetch >/dev/null || echo "make test: the measurements could not be fetched; tests that read them will fail (see data/README.md)"
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
