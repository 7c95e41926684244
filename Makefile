# The two commands of the README. Everything else is reachable through `.venv/bin/hostio`.
.PHONY: setup reproduce test bench

setup:
	@scripts/setup.sh

reproduce: setup
	.venv/bin/hostio reproduce --out out/ddio
	.venv/bin/hostio report out/ddio --out out/ddio/report.html

test: setup
	cargo test --release --workspace --exclude hostio-py -q
	.venv/bin/python -m pytest -q

bench: setup
	.venv/bin/python bench/sim_speed.py
