"""Vigil: the authoritative rules server for harm, conditions and dice."""

__version__ = "0.1.0"
