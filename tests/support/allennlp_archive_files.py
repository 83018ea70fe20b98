"""Test helpers: an AllenNLP transformer-ELMo ``config.json`` of any size, and archives (``.tar.gz``, plain tar or a
folder) holding it with a ``weights.th``, written as AllenNLP's ``archive_model`` does."""

from __future__ import annotations

import copy
import io
import json
import pathlib
import tarfile

# the fixture's structure (allennlp/tests/fixtures/language_model/model.tar.gz at commit 2368760), training keys cut
FIXTURE_SHAPED = {
    "dataset_reader": {"type": "simple_language_modeling", "start_tokens": ["<S>"], "end_tokens": ["</S>"],
                       "token_indexers": {"token_characters": {"type": "elmo_characters"},
                                          "tokens": {"type": "single_id"}}},
    "model": {
        "type": "language_model", "bidirectional": True, "num_samples": 10, "sparse_embeddings": True,
        "contextualizer": {"type": "bidirectional_language_model_transformer", "dropout": 0.1, "hidden_dim": 7,
                           "input_dim": 16, "input_dropout": 0.1, "num_layers": 3},
        "text_field_embedder": {"allow_unmatched_keys": True, "token_embedders": {"token_characters": {
            "type": "character_encoding", "embedding": {"embedding_dim": 4, "num_embeddings": 262},
            "encoder": {"type": "cnn-highway", "activation": "relu", "embedding_dim": 4,
                        "filters": [[1, 4], [2, 8], [3, 16], [4, 32], [5, 64]], "num_highway": 2,
                        "projection_dim": 16, "projection_location": "after_cnn"}}}},
    },
}
ENCODER = ("model", "text_field_embedder", "token_embedders", "token_characters", "encoder")


def transformer_elmo_config(*, input_dim=16, hidden_dim=7, num_layers=3, filters=((1, 4), (2, 8), (3, 16), (4, 32),
                            (5, 64)), char_dim=4, num_highway=2, projection_location="after_cnn",
                            do_layer_norm=None) -> dict:
    """A ``config.json`` dict shaped as the fixture's, with these sizes (``do_layer_norm=None`` leaves it out)."""
    config = copy.deepcopy(FIXTURE_SHAPED)
    config["model"]["contextualizer"].update(input_dim=input_dim, hidden_dim=hidden_dim, num_layers=num_layers)
    embedder = config["model"]["text_field_embedder"]["token_embedders"]["token_characters"]
    embedder["embedding"]["embedding_dim"] = char_dim
    embedder["encoder"].update(embedding_dim=char_dim, filters=[list(pair) for pair in filters],
                               num_highway=num_highway, projection_dim=input_dim,
                               projection_location=projection_location)
    if do_layer_norm is not None:
        embedder["encoder"]["do_layer_norm"] = do_layer_norm
    return config


def set_field(config: dict, dotted: str, value) -> dict:
    """A copy of ``config`` with the dotted field set (or removed when ``value`` is ``DELETE``)."""
    config = copy.deepcopy(config)
    *parents, last = dotted.split(".")
    node = config
    for part in parents:
        node = node[part]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return config


DELETE = object()


def write_archive(path: pathlib.Path, config: dict | bytes, weights: bytes, mode: str = "w:gz",
                  extra: tuple[tarfile.TarInfo, ...] = (), prefix: str = "") -> pathlib.Path:
    """``config.json`` + ``weights.th`` + ``vocabulary/`` as a tar (``mode``), or a folder when ``mode`` is
    ``"folder"``; ``extra`` members are added after them, names get ``prefix`` (``"./"``)."""
    data = config if isinstance(config, bytes) else json.dumps(config).encode()
    if mode == "folder":
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.json").write_bytes(data)
        (path / "weights.th").write_bytes(weights)
        return path
    with tarfile.open(path, mode) as archive:
        for name, content in (("config.json", data), ("weights.th", weights), ("vocabulary/tokens.txt", b"<S>\n")):
            info = tarfile.TarInfo(prefix + name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        for info in extra:
            archive.addfile(info, io.BytesIO(b"x" * info.size) if info.isfile() else None)
    return path


def write_random_archive(path, config: dict, form: str = "zip", seed: int = 0):
    """Write ``random_language_model(config, seed)`` (``benchmarks/allennlp_transformer_reference.py``) as an AllenNLP
    ``model.tar.gz`` at ``path``: ``weights.th`` in torch's ``"zip"`` or ``"legacy"`` format. Returns the model."""
    from benchmarks.allennlp_transformer_reference import random_language_model, state_dict_bytes  # needs PyTorch

    model = random_language_model(config, seed)
    write_archive(path, config, state_dict_bytes(model, form))
    return model
