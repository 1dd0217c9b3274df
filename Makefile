VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench accuracy schemas clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# The CPU build of torch first, so the project's range never pulls a CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) -m grader demo

test: $(STAMP)
	$(PY) -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 0; fi; exit $$rc

lint: $(STAMP)
	$(VENV)/bin/ruff check grader reference tests bench

# Each benchmark adds issue 24's figures to one file; the last step prints them side by side with their targets.
bench: $(STAMP)
	f=$$(mktemp) && $(PY) bench/warm_vs_fresh.py --figures $$f && $(PY) bench/cold_start.py --figures $$f \
		&& $(PY) bench/figures.py $$f; rc=$$?; rm -f $$f; exit $$rc
	$(PY) bench/serve_load.py

# Grader accuracy on the real-code and mutation corpora (tests/real, tests/accuracy); writes docs/accuracy.md.
# REAL=DIR [EXPECTED=FILE]: grade a local folder of public code instead (kept outside the repository).
accuracy: $(STAMP)
	$(PY) bench/accuracy.py $(if $(REAL),--real $(REAL)) $(if $(EXPECTED),--expected $(EXPECTED))

schemas: $(STAMP)
	$(PY) -m grader schemas

clean:
	rm -rf $(VENV) build .pytest_cache
