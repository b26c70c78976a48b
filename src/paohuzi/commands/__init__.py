"""Subcommands of the ``paohuzi`` command line (see :mod:`paohuzi.cli`)."""
