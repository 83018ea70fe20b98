"""A classic lecture quiz — which of these helps with the vanishing gradients of RNNs? — and its answer, B, explained
with the numbers measured on the page (``analysis.gradient_study.results.quiz_numbers``)."""

from __future__ import annotations

from elmo_keras.analysis.gradient_study.results import GradientStudy, quiz_numbers

QUESTION = "Which of the following aims to help with the vanishing gradients problem of RNNs?"
OPTIONS = ("A: gradient clipping", "B: gating mechanisms", "C: weight decay", "D: A and B", "E: none")
ANSWER = 1  # B
VERDICTS = {
    0: "Not A: clipping only ever scales a gradient down.",
    1: "Right: B.",
    2: "Not C: weight decay shrinks the weights, which makes vanishing worse.",
    3: "Not D: gating does help, but clipping cannot (it only scales a gradient down).",
    4: "Not E: gating is exactly what helps.",
}


def quiz_explanation(study: GradientStudy, accuracies: dict, choice: int) -> tuple[bool, str]:
    """``(correct, markdown)``: whether option ``choice`` (an index into ``OPTIONS``) is B, and why, quoting the
    numbers measured in ``study`` (``gradient_results.quiz_numbers``) and ``accuracies`` (``{"vanilla RNN": final
    training accuracy, "LSTM": …}``).

    Raises:
        ValueError: ``choice`` is not an index into ``OPTIONS``.
    """
    if choice not in VERDICTS:
        raise ValueError(f"choice must be an index into OPTIONS (0–{len(OPTIONS) - 1}), received {choice!r}")
    n = quiz_numbers(study)
    far, theta = n["far"], n["theta"]
    decay = n["decay_ratios"]
    shrunk = min(decay)
    factor = ("leaves it alone (‖g‖ ≤ θ, factor 1)" if n["rnn_factor"] >= 1
              else f"multiplies the whole gradient by {n['rnn_factor']:.3g}")
    lines = [
        f"**{VERDICTS[choice]}** The answer is **B**.",
        f"- **Vanishing, measured.** In the untrained vanilla RNN, ‖∂L/∂h_t‖ at distance {far} is "
        f"**{n['rnn_ratio']:.2g}×** its value at distance 0 (each step multiplies by diag(1 − h²)·Uᵀ).",
        f"- **Clipping (A)** at θ = {theta:g} {factor}, so the far/near ratio after clipping is "
        f"**{n['rnn_clipped_ratio']:.2g}** — exactly the same. Clipping rescales the whole gradient by one factor "
        f"min(1, θ/‖g‖) ≤ 1: it tames the exploding RNN (‖g‖ = {n['exploding_norm']:.3g} → "
        f"{n['exploding_clipped_norm']:.3g}, yet its far/near ratio stays {n['exploding_ratio']:.3g}) and never "
        f"makes a small gradient larger.",
        f"- **Gating (B).** In the LSTM, ∂c_t/∂c_(t−1) = diag(f_t). With forget gates starting near 1 (mean "
        f"f = {n['forget_mean_initial']:.2f}) the cell path keeps ∏f = {n['cell_path_initial']:.2g} of the gradient "
        f"over {far} steps, and the measured ‖∂L/∂c_t‖ at distance {far} is **{n['lstm_cell_ratio_initial']:.2g}×** "
        f"its value at distance 0. After training (accuracy on the task: LSTM {accuracies['LSTM']:.0%}, vanilla "
        f"RNN {accuracies['vanilla RNN']:.0%}) the LSTM's ratio is **{n['lstm_cell_ratio_trained']:.2g}**, the "
        f"RNN's (through h) {n['rnn_trained_ratio']:.2g}.",
        f"- **Weight decay (C)** multiplies the weights by (1 − ηλ) every step. Shrinking the RNN's U to "
        f"{shrunk:g}× moves its far/near ratio from {decay[1.0]:.2g} to **{decay[shrunk]:.2g}**: worse, not better.",
    ]
    return choice == ANSWER, "\n".join(lines)
