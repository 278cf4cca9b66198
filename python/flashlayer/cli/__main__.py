"""``python -m flashlayer.cli``: the ``flashlayer`` command."""

from flashlayer.cli import main

main()
