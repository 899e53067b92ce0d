"""Tilehall clients: the shared connection library and the terminal, pygame and bot clients."""
