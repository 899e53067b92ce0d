"""Pile: an example game for Tilehall, a distribution of its own (docs/writing-a-game.md).

- :mod:`.game`: the engine: options, actions, view, events, the result;
- :mod:`.bots`: its COMP levels;
- :mod:`.terminal`: its board in Tilehall's terminal client.
"""
