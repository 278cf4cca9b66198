"""``python -m flashlayer``: the ``flashlayer`` command."""

from flashlayer.cli import main

main()
