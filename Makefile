# The two commands of the README. Everything else is reachable through `.venv/bin/hostio`.
.PHONY: setup reproduce test bench fuzz

setup:
	@scripts/setup.sh

reproduce: setup
	.venv/bin/hostio reproduce --out out/ddio
	.venv/bin/hostio report out/ddio --out out/ddio/report.html

test: setup
	cargo test --release --workspace --exclude hostio-py -q
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -A rustdoc::private_intra_doc_links" cargo doc --no-deps --workspace -q
	.venv/bin/python -m pytest -q

# Fuzzing: CASES generated inputs per property (Rust: scenario overrides, scenario text, platform
# files; Python: API scenarios, PCIe API, in-process CLI; CASES/10 for the CLI as a subprocess).
# `make test` runs the same properties with a few cases each.
CASES ?= 1000
fuzz: setup
	PROPTEST_CASES=$(CASES) cargo test --release -p hostio-sim --test fuzz -q
	CASES=$(CASES) .venv/bin/python -m pytest -q tests/test_fuzz.py --hypothesis-show-statistics

bench: setup
	.venv/bin/python bench/sim_speed.py
