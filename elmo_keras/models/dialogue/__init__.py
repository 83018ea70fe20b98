"""HRED and VHRED for multi-turn dialogue (seed notes §14–15), split like ``models.seq2seq``: the models
(``hred``, ``vhred``), the latent-variable arithmetic (``gaussian``), configuration (``config``), dialogues as
arrays (``encoding``), training (``training``), model directories (``persistence``), replies through the shared
decoding strategies (``generation``) and held-out scores (``evaluation``)."""

from typing import TYPE_CHECKING

from elmo_keras._lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "elmo_keras.models.dialogue.config": ["DialogueConfig"],
    "elmo_keras.models.dialogue.encoding": ["encode_dialogues", "encode_history"],
    "elmo_keras.models.dialogue.evaluation": ["evaluate_dialogue_model"],
    "elmo_keras.models.dialogue.gaussian": ["free_bits_kl", "gaussian_kl", "gaussian_kl_terms", "kl_weight",
                                            "reparameterize"],
    "elmo_keras.models.dialogue.generation": ["Response", "beam_responses", "distinct_n", "diversity",
                                              "greedy_response", "latent_responses", "sampled_responses"],
    "elmo_keras.models.dialogue.hred": ["HRED"],
    "elmo_keras.models.dialogue.persistence": ["load_dialogue_model", "save_dialogue_model"],
    "elmo_keras.models.dialogue.training": ["train_dialogue_model", "train_hred", "train_vhred"],
    "elmo_keras.models.dialogue.vhred": ["VHRED"],
})

if TYPE_CHECKING:  # what static tools and IDEs see
    from elmo_keras.models.dialogue.config import DialogueConfig
    from elmo_keras.models.dialogue.encoding import encode_dialogues, encode_history
    from elmo_keras.models.dialogue.evaluation import evaluate_dialogue_model
    from elmo_keras.models.dialogue.gaussian import (
        free_bits_kl,
        gaussian_kl,
        gaussian_kl_terms,
        kl_weight,
        reparameterize,
    )
    from elmo_keras.models.dialogue.generation import (
        Response,
        beam_responses,
        distinct_n,
        diversity,
        greedy_response,
        latent_responses,
        sampled_responses,
    )
    from elmo_keras.models.dialogue.hred import HRED
    from elmo_keras.models.dialogue.persistence import load_dialogue_model, save_dialogue_model
    from elmo_keras.models.dialogue.training import train_dialogue_model, train_hred, train_vhred
    from elmo_keras.models.dialogue.vhred import VHRED

__all__ = [
    "HRED", "VHRED", "DialogueConfig", "Response", "beam_responses", "distinct_n", "diversity", "encode_dialogues",
    "encode_history", "evaluate_dialogue_model", "free_bits_kl", "gaussian_kl", "gaussian_kl_terms", "greedy_response",
    "kl_weight", "latent_responses", "load_dialogue_model", "reparameterize", "sampled_responses",
    "save_dialogue_model", "train_dialogue_model", "train_hred", "train_vhred",
]
