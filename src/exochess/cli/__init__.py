"""The ``exochess`` command line."""
