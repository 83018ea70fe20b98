"""Run the gradient-flow experiment over several seeds and write the table the README quotes.

For each seed: the vanilla RNN and the LSTM of the Gradients page (``explorer.gradients.FIRST_USE_SETTINGS``)
are measured at initialisation, trained on the remember-the-first-symbol task, and measured again; the far/near
ratio is ``‖∂L/∂state‖`` at distance ``T − 1`` over its value at distance 0 (``h`` for the RNN, ``c`` for the
LSTM), on held-out sequences. Clipping at any θ leaves every ratio unchanged (``test_gradient_flow``), so it is
not a column.

Usage::

    python tools/run_gradient_experiments.py [--seeds 0 1 2] [--out elmo_keras/data/gradient_experiments.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pandas as pd  # noqa: E402

from elmo_keras.analysis.gradient_study.flow import far_near_ratio, state_gradients  # noqa: E402
from elmo_keras.analysis.gradient_study.models import RecurrentClassifier  # noqa: E402
from elmo_keras.analysis.gradient_study.results import MEASURE_BATCH, MEASURE_SEED, by_distance, cell_path_gain  # noqa: E402
from elmo_keras.analysis.gradient_study.task import NUM_SYMBOLS, remember_first_batch, train_remember_first  # noqa: E402
from elmo_keras.explorer.gradients.service import FIRST_USE_SETTINGS  # noqa: E402
from elmo_keras.models.provenance import experiment_provenance  # noqa: E402

OUT = REPO / "elmo_keras" / "data" / "gradient_experiments.json"


def measure(model, batch, far) -> dict:
    measured = state_gradients(model, batch)
    gradient = measured.hidden if measured.cell is None else measured.cell
    row = {"ratio": far_near_ratio(by_distance(gradient), far)}
    if measured.forget is not None:
        row.update(forget_mean=float(measured.forget.mean()), cell_path=cell_path_gain(measured.forget))
    return row


def run(seed: int) -> tuple[list[dict], str]:
    """The seed's two rows, and the class name of the optimizer the models trained with."""
    settings = dataclasses.replace(FIRST_USE_SETTINGS, seed=seed)
    batch = remember_first_batch(MEASURE_BATCH, settings.length, seed=MEASURE_SEED)
    rows = []
    for label, cell_type in (("vanilla RNN", "rnn"), ("LSTM", "lstm")):
        model = RecurrentClassifier(cell_type, settings.units, NUM_SYMBOLS, recurrent_scale=settings.rnn_scale,
                                    forget_bias=settings.forget_bias, seed=seed)
        initial = measure(model, batch, settings.length - 1)
        training = train_remember_first(model, settings.length, settings.count, settings.epochs, settings.batch_size,
                                        settings.learning_rate, seed=seed)
        trained = measure(model, batch, settings.length - 1)
        row = {"seed": seed, "model": label, "accuracy": training.accuracy[-1], "seconds": training.seconds,
               **{f"{key} initial": value for key, value in initial.items()},
               **{f"{key} trained": value for key, value in trained.items()}}
        print(row, flush=True)
        rows.append(row)
    return rows, type(model.optimizer).__name__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    runs = [run(seed) for seed in args.seeds]
    rows = [row for seed_rows, _ in runs for row in seed_rows]
    table = pd.DataFrame(rows).drop(columns="seed").groupby("model", sort=False).agg(["mean", "std"])
    print(table.T.to_string())
    # the study compiles its own keras.optimizers.Adam (analysis.gradient_study.task), not the trainer skeleton's
    results = {"settings": dataclasses.asdict(FIRST_USE_SETTINGS), "runs": rows,
               "provenance": experiment_provenance(optimizer=runs[-1][1])}
    args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
