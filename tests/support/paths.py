"""Where the tests find the repository and the shared fixtures, whatever folder a test lives in."""

import pathlib

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures"
