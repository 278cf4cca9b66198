"""The package's version, which results and written files carry."""

__version__ = "0.1.0"
