"""NumPy re-derivation of ``ProjectedLSTMCell`` (float64), shared by the cell, stack and biLM tests."""

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_projected_lstm(x, kernel, recurrent, bias, projection, cell_clip, proj_clip):
    """Reference re-derivation of ProjectedLSTMCell over a whole sequence `(B, T, D)` (float64)."""
    batch, steps, _ = x.shape
    units = kernel.shape[1] // 4
    h = np.zeros((batch, recurrent.shape[0]))
    c = np.zeros((batch, units))
    outputs = []
    for t in range(steps):
        z = x[:, t] @ kernel + bias + h @ recurrent
        i, f, g, o = (sigmoid(z[:, :units]), sigmoid(z[:, units:2 * units]), np.tanh(z[:, 2 * units:3 * units]),
                      sigmoid(z[:, 3 * units:]))
        c = np.clip(f * c + i * g, -cell_clip, cell_clip)
        h = np.clip((o * np.tanh(c)) @ projection, -proj_clip, proj_clip)
        outputs.append(h)
    return np.stack(outputs, axis=1)
