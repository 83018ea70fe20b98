"""``python -m elmo_keras COMMAND ...`` (see ``elmo_keras.cli``)."""

from elmo_keras.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
