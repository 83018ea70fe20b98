"""Random state outside the model: PyTorch's global generator, which a checkpoint keeps
(``models.bilm.checkpoints``)."""

from __future__ import annotations

import numpy as np

from elmo_keras._quiet import keras


def global_random_state() -> np.ndarray | None:
    """PyTorch's global generator state (uint8), None on the other backends: there Keras's dropout draws only from
    ``SeedGenerator`` states, which are model variables; on PyTorch an unseeded ``SeedGenerator`` makes dropout
    use ``torch``'s global generator."""
    if keras.backend.backend() != "torch":
        return None
    import torch  # here: only the backend in use is imported (others may be absent)

    return torch.get_rng_state().numpy().copy()


def set_global_random_state(state: np.ndarray | None) -> None:
    """Put back ``global_random_state()``'s result (nothing to do for None)."""
    if state is not None:
        import torch  # here: only the backend in use is imported (others may be absent)

        torch.set_rng_state(torch.from_numpy(np.asarray(state, np.uint8)))
