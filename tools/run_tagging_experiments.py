"""Run the tagging experiments (``elmo_keras.tagging.experiments``) and write the results the README and the
Tagging page show.

Usage::

    python tools/run_tagging_experiments.py [--seeds 0 1 2 3 4] [--out elmo_keras/data/tagging_experiments.json]

Prints one line per training run, then the mean ± std tables. Deterministic for the same seeds on the same
machine (the CPU is recorded in the file, with the package version, optimizer and backend that made it:
``models.provenance``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from elmo_keras.explorer.tagging.service import experiment_tables  # noqa: E402
from elmo_keras.models.provenance import cpu_name, experiment_provenance  # noqa: E402
from elmo_keras.tagging.experiments import RESULTS_FILE, SEEDS, run_all  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS))
    parser.add_argument("--out", type=pathlib.Path, default=REPO / "elmo_keras" / "data" / RESULTS_FILE)
    args = parser.parse_args()
    started = time.perf_counter()
    results = run_all(args.seeds, progress=lambda message: print(f"[{time.perf_counter() - started:6.0f} s] {message}",
                                                                 flush=True))
    results["machine"] = cpu_name()
    results["seconds"] = round(time.perf_counter() - started)
    results["provenance"] = experiment_provenance()
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for name, table in experiment_tables(results).items():
        print(f"\n{name}\n{table.round(3).to_string(index=False)}")
    print(f"\nwrote {args.out} ({results['seconds']} s on {results['machine']})")


if __name__ == "__main__":
    main()
