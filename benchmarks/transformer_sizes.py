"""The transformer ELMo's sizes the benchmarks build, as AllenNLP ``config.json`` dicts (plain Python: the PyTorch
reference and our loader read the same dict).

``"release"`` is the released model's structure (issue 38; ``transformer-elmo-2019.01.10.tar.gz``): 6 layers, width
512, feed-forward 2048, 8 heads, char CNN filters ``[[1,32],[2,32],[3,64],[4,128],[5,256],[6,512],[7,1024]]``, 2
highways, the projection after the highways, the char CNN's layer norm (~56 M parameters without the softmax).
``"quick"`` keeps that structure at toy widths, for the smoke tests (``--quick``).
"""

from __future__ import annotations

RELEASE_FILTERS = [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256], [6, 512], [7, 1024]]
SIZES = {
    "release": {"input_dim": 512, "hidden_dim": 2048, "num_layers": 6, "char_dim": 16, "filters": RELEASE_FILTERS},
    "quick": {"input_dim": 16, "hidden_dim": 32, "num_layers": 2, "char_dim": 4, "filters": [[1, 4], [2, 8]]},
}
NUM_HEADS = 8  # fixed in AllenNLP's transformer


def transformer_elmo_config(size: str) -> dict:
    """AllenNLP's ``config.json`` of a transformer ELMo of ``size`` (a key of ``SIZES``), the keys inference reads."""
    s = SIZES[size]
    encoder = {"type": "cnn-highway", "activation": "relu", "embedding_dim": s["char_dim"], "filters": s["filters"],
               "num_highway": 2, "projection_dim": s["input_dim"], "projection_location": "after_highway",
               "do_layer_norm": True}
    return {"model": {
        "type": "language_model", "bidirectional": True, "num_samples": 8192, "sparse_embeddings": True,
        "contextualizer": {"type": "bidirectional_language_model_transformer", "dropout": 0.1,
                           "hidden_dim": s["hidden_dim"], "input_dim": s["input_dim"], "input_dropout": 0.1,
                           "num_layers": s["num_layers"]},
        "text_field_embedder": {"allow_unmatched_keys": True, "token_embedders": {"token_characters": {
            "type": "character_encoding", "embedding": {"embedding_dim": s["char_dim"], "num_embeddings": 262},
            "encoder": encoder}}},
    }}
