"""The released transformer ELMo's structure (projection after the highways, the char CNN's layer norm, 8 heads), at a
small width with random weights: written by PyTorch as an AllenNLP archive in both torch formats, loaded by us, and
checked against the forward pass re-derived from AllenNLP's code (``benchmarks/allennlp_transformer_reference.py``): the
char CNN output and every layer, at every real position of a padded batch."""

import numpy as np
import pytest
import torch

from elmo_keras.layers.sequence_ops import add_sentence_boundaries
from elmo_keras.pretrained.transformer_loader import transformer_elmo_from_archive
from elmo_keras.text.char_ids import BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW, batch_to_ids
from tests.support.allennlp_archive_files import transformer_elmo_config, write_random_archive
from tests.support.backend_support import to_numpy

# the released model's options (issue 38) at width 32 instead of 512: 8 heads of 4, 3 layers
RELEASE_SHAPED = transformer_elmo_config(input_dim=32, hidden_dim=64, num_layers=3, char_dim=8, num_highway=2,
                                         filters=((1, 8), (2, 8), (3, 16), (4, 32), (5, 64)),
                                         projection_location="after_highway", do_layer_norm=True)
SENTENCES = [["The", "released", "model", "has", "six", "layers", "."], ["Short", "one"], ["Über", "naïve", "café"]]
TOLERANCE = dict(rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("form", ["zip", "legacy"])
def test_release_shaped_archive_matches_allennlps_forward_pass(form, tmp_path):
    reference = write_random_archive(tmp_path / "model.tar.gz", RELEASE_SHAPED, form=form)
    loaded = transformer_elmo_from_archive(tmp_path / "model.tar.gz")
    assert (loaded.char_cnn.projection_location, loaded.char_cnn.layer_norm) == ("after_highway", True)
    assert (loaded.contextualizer.num_heads, loaded.contextualizer.num_layers) == (8, 3)

    ids = batch_to_ids(SENTENCES)
    ids, mask = add_sentence_boundaries(ids, ids.any(-1), BEGIN_OF_SENTENCE_ROW, END_OF_SENTENCE_ROW)
    ids, mask = to_numpy(ids), to_numpy(mask)
    with torch.no_grad():
        char_cnn, layers, reference_mask = reference(torch.tensor(ids).long())
    np.testing.assert_array_equal(reference_mask.numpy(), mask)

    ours_cnn = loaded.char_cnn(ids)
    np.testing.assert_allclose(to_numpy(ours_cnn)[mask], char_cnn.numpy()[mask], **TOLERANCE)
    ours = loaded.contextualizer(ours_cnn, mask=mask)
    assert len(ours) == len(layers) == 3
    for k, (got, expected) in enumerate(zip(ours, layers)):  # AllenNLP's padded positions hold leftovers: not compared
        np.testing.assert_allclose(to_numpy(got)[mask], expected.numpy()[mask], err_msg=f"layer {k + 1}", **TOLERANCE)
        np.testing.assert_array_equal(to_numpy(got)[~mask], 0.0)
