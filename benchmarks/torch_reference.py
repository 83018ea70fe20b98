"""PyTorch's ``nn.LSTM`` on the same cases as ``bilm_throughput.py``: the reference the biLM targets name.

    python benchmarks/torch_reference.py [--repeats 20] [--json]

Optional: needs PyTorch (``pip install torch``; not a project dependency). ``bilm_throughput.py`` runs this
script in a subprocess, so both frameworks are measured in the same run without sharing a process.

The models mirror ours: a word embedding (128) with a linear projection to the LSTM width where they differ,
then two untied 2-layer ``nn.LSTM`` stacks, one reading the sentence reversed (padding-free batches, so a
plain flip is the within-length reversal); ``proj_size`` gives the ELMo-small projected cell. The training
step is the toy ``BiLanguageModel``'s: dropout 0.1 between layers and before one softmax shared by both
directions, forward and backward mean cross-entropy, Adam.
"""

from __future__ import annotations

import argparse
import json

import torch
from timing import fastest_seconds
from torch import nn

VOCAB = 500
FORWARD_CASES = (  # name, batch, steps, units, projection, token width
    ("toy b1", 1, 12, 256, 0, 256),
    ("toy b32", 32, 12, 256, 0, 256),
    ("elmo-small b32", 32, 20, 1024, 128, 128),
)


class TorchBiLM(nn.Module):
    def __init__(self, units, projection, token_dim, embedding_dim=128, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, embedding_dim, padding_idx=0)
        self.projection = nn.Linear(embedding_dim, token_dim) if token_dim != embedding_dim else nn.Identity()
        stack = dict(num_layers=2, batch_first=True, proj_size=projection, dropout=dropout)
        self.forward_lstm = nn.LSTM(token_dim, units, **stack)
        self.backward_lstm = nn.LSTM(token_dim, units, **stack)

    def forward(self, ids):
        tokens = self.projection(self.embedding(ids))
        forward, _ = self.forward_lstm(tokens)
        backward, _ = self.backward_lstm(torch.flip(tokens, [1]))
        return forward, torch.flip(backward, [1])


def forward_tokens_per_second(batch, steps, units, projection, token_dim, repeats):
    model = TorchBiLM(units, projection, token_dim).eval()
    ids = torch.randint(4, VOCAB, (batch, steps))
    with torch.inference_mode():
        seconds = fastest_seconds(lambda: model(ids), repeats)
    return batch * steps / seconds


def training_step_seconds(repeats):
    model = TorchBiLM(256, 0, 256).train()
    softmax, dropout = nn.Linear(256, VOCAB), nn.Dropout(0.1)
    optimizer = torch.optim.Adam([*model.parameters(), *softmax.parameters()], 1e-3)
    ids = torch.randint(4, VOCAB, (32, 14))

    def step():
        optimizer.zero_grad()
        forward, backward = model(ids)
        forward_logits = softmax(dropout(forward[:, :-1])).reshape(-1, VOCAB)
        backward_logits = softmax(dropout(backward[:, 1:])).reshape(-1, VOCAB)
        loss = nn.functional.cross_entropy(forward_logits, ids[:, 1:].reshape(-1))
        loss = loss + nn.functional.cross_entropy(backward_logits, ids[:, :-1].reshape(-1))
        loss.backward()
        optimizer.step()

    return fastest_seconds(step, repeats)


def measure(repeats):
    """``{"version", "threads", "forward": {case: tokens/s}, "training_step_ms"}``."""
    torch.manual_seed(0)
    forward = {name: forward_tokens_per_second(*case, repeats) for name, *case in FORWARD_CASES}
    return {
        "version": torch.__version__,
        "threads": torch.get_num_threads(),
        "forward": forward,
        "training_step_ms": training_step_seconds(repeats) * 1e3,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print one JSON object (for bilm_throughput.py)")
    args = parser.parse_args()
    import warnings

    warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")
    results = measure(args.repeats)
    if args.json:
        print(json.dumps(results))
        return
    print(f"PyTorch {results['version']}, {results['threads']} threads")
    for name, rate in results["forward"].items():
        print(f"  {name:16s} {rate:10,.0f} tokens/s")
    print(f"  training step    {results['training_step_ms']:10.1f} ms")


if __name__ == "__main__":
    main()
