"""The names ``elmo_keras.models.dialogue`` exports (read by ``_lazy.attach_stub``)."""

from elmo_keras.models.dialogue.config import DialogueConfig
from elmo_keras.models.dialogue.encoding import encode_dialogues, encode_history
from elmo_keras.models.dialogue.evaluation import evaluate_dialogue_model
from elmo_keras.models.dialogue.gaussian import free_bits_kl, gaussian_kl, gaussian_kl_terms, kl_weight, reparameterize
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
