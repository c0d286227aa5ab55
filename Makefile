PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MODEL := testdata/models/mlp2_relu.hlo

.PHONY: run test bench lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/pip install -q --upgrade pip "setuptools>=70.1" >/dev/null 2>&1 || true
	$(BIN)/pip install -q 'torch==2.13.0'  # first: the CPU build on disk (hlotools[torch] alone pulls CUDA)
	$(BIN)/pip install -q -e '.[dev,torch]'
	# an editable install compiles no bytecode, and with PYTHONDONTWRITEBYTECODE set every process
	# would compile our ~300 modules again (0.2-0.4 s a cold hlo-run): compile them once here
	$(BIN)/python -m compileall -q hlotools >/dev/null
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/hlo-opt $(MODEL) -O2 --time-passes -o /dev/null
	$(BIN)/hlo-opt $(MODEL) -O2 | $(BIN)/hlo-run - --inputs $(MODEL:.hlo=.inputs.npz) \
	    --expected $(MODEL:.hlo=.expected.npz) --repeat 5

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python bench/parse.py
	$(BIN)/python bench/run.py

lint: $(STAMP)
	$(BIN)/ruff check hlotools tests bench
	$(BIN)/mypy hlotools

clean:
	rm -rf $(VENV) build dist *.egg-info
