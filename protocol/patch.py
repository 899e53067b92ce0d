"""View patches: what changed between two views, small enough to send instead of the view.

A *patch* is a list of operations, each a short list. The two most frequent
start with their path; the others with a name:

===========================  ===================================================
``[path, value]``            set the value at ``path`` (a map key may be new)
``[path]``                   remove the map key at ``path``
``["+", path, items]``       append ``items`` to the list at ``path``
``["<", path, n]``           cut the list at ``path`` down to its first ``n`` items
``["~", path, i, n, items]`` replace ``n`` items of the list at ``path`` from
                             index ``i`` by ``items`` (insert: ``n`` 0; remove:
                             ``items`` empty)
===========================  ===================================================

A ``path`` is a list of map keys and list indices from the top of the view;
the empty path is the whole view. Operations apply in order. :func:`diff`
makes a patch, :func:`apply` applies one; for any two views ``a`` and ``b``
made of maps, lists, strings, numbers, booleans and nil,
``apply(a, diff(a, b)) == b``.

Pure functions, no I/O: the server and every client share them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

__all__ = ["Patch", "PatchError", "apply", "diff"]

Patch = list[list[Any]]

_CONTAINERS = (dict, list)


class PatchError(ValueError):
    """A patch that does not fit the view it is applied to (a client out of step)."""


def diff(old: Any, new: Any) -> Patch:
    """The operations that turn ``old`` into ``new`` (empty when they are equal).

    Lists are compared item by item; a list whose items mostly changed is sent
    whole, which is smaller than an operation per item.
    """
    out: Patch = []
    _diff(old, new, [], out)
    return out


def _same_kind(a: Any, b: Any) -> bool:
    # bool is an int, and 1 == True: a changed type must be sent even if it compares equal
    return type(a) is type(b)


def _diff(a: Any, b: Any, path: list[Any], out: Patch) -> None:
    if a is b:
        return
    if type(a) is dict and type(b) is dict:
        mark = len(out)
        for key, value in b.items():
            if key not in a:
                out.append([[*path, key], value])
                continue
            _item(a[key], value, [*path, key], out)
        for key in a:
            if key not in b:
                out.append([[*path, key]])
        if path and len(out) - mark > max(1, len(b) // 2):  # mostly new: send the map itself
            del out[mark:]
            out.append([path, b])
        return
    if type(a) is list and type(b) is list:
        mark = len(out)
        if len(a) == len(b):  # a board, a rack: what changed, item by item
            for i in range(len(b)):
                _item(a[i], b[i], [*path, i], out)
        else:
            _resized(a, b, path, out)
        if len(out) - mark > max(2, len(b) // 2):  # mostly new: the list itself is smaller
            del out[mark:]
            out.append([path, b])
        return
    if not _same_kind(a, b) or a != b:
        out.append([path, b])


def _resized(a: list[Any], b: list[Any], path: list[Any], out: Patch) -> None:
    """A list that grew or shrank: keep what both ends share, replace the middle.

    A tile drawn from a sorted list of unseen tiles removes one item in the
    middle: one operation, where comparing item by item would rewrite every
    item after it.
    """
    head = 0
    limit = min(len(a), len(b))
    while head < limit and _equal(a[head], b[head]):
        head += 1
    tail = 0
    while tail < limit - head and _equal(a[len(a) - 1 - tail], b[len(b) - 1 - tail]):
        tail += 1
    cut, items = len(a) - head - tail, b[head : len(b) - tail]
    if not b:
        out.append([path, []])
    elif head == len(a):
        out.append(["+", path, items])
    elif tail == 0 and not items:
        out.append(["<", path, head])
    else:
        out.append(["~", path, head, cut, items])


def _equal(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1 == True``, but a changed type
    must be sent)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(map(_equal, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_equal(v, b[k]) for k, v in a.items())
    return bool(a == b)


def _item(a: Any, b: Any, path: list[Any], out: Patch) -> None:
    if a is b:
        return
    if type(a) in _CONTAINERS and type(a) is type(b):
        _diff(a, b, path, out)
    elif not _same_kind(a, b) or a != b:
        out.append([path, b])


def apply(view: Any, patch: Sequence[Sequence[Any]], *, in_place: bool = False) -> Any:
    """``view`` with ``patch`` applied: a new view, unless ``in_place``.

    Raises:
        PatchError: an operation names a path the view does not have, or is
            not one of the four (the client should ask for the whole view again).
    """
    if not in_place:
        view = copy.deepcopy(view)
    for op in patch:
        try:
            view = _apply_one(view, op)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise PatchError(f"cannot apply {op!r}: {exc}") from None
    return view


def _apply_one(view: Any, op: Sequence[Any]) -> Any:
    if type(op[0]) is list:  # [path, value] sets, [path] removes
        kind, path = ("=" if len(op) == 2 else "-"), list(op[0])
        if len(op) > 2:
            raise ValueError("a set is [path, value], a removal [path]")
    else:
        kind, path = op[0], list(op[1])
    if kind == "=" and not path:
        return copy.deepcopy(op[1])
    parent = view
    for key in path[:-1] if kind in ("=", "-") else path:
        parent = parent[key]
    if kind == "=":
        if type(parent) is list and not 0 <= path[-1] < len(parent):
            raise IndexError(path[-1])
        parent[path[-1]] = copy.deepcopy(op[1])
    elif kind == "-":
        if type(parent) is not dict:
            raise TypeError("only a map key can be removed")
        del parent[path[-1]]
    elif kind == "+":
        if type(parent) is not list:
            raise TypeError("only a list can be appended to")
        parent.extend(copy.deepcopy(op[2]))
    elif kind == "<":
        if type(parent) is not list or not 0 <= op[2] <= len(parent):
            raise ValueError(f"cannot cut a list of {len(parent)} to {op[2]}")
        del parent[op[2] :]
    elif kind == "~":
        start, count, items = op[2], op[3], op[4]
        if type(parent) is not list or type(items) is not list:
            raise TypeError("only a list can be spliced, with a list")
        if min(start, count) < 0 or start + count > len(parent):
            raise ValueError(f"cannot replace {count} items from {start} of {len(parent)}")
        parent[start : start + count] = copy.deepcopy(items)
    else:
        raise ValueError(f"unknown operation {kind!r}")
    return view
