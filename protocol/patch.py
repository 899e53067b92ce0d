"""View patches: what changed between two views, small enough to send instead of the view.

A *patch* is a list of operations, each a short list. The two most frequent
start with their path; the others with a name:

===========================  ===================================================
``[path, value]``            set the value at ``path`` (a map key may be new)
``[path]``                   remove the map key at ``path``
``["=", path, [k, v, ...]]`` set each key ``k`` of the map at ``path`` to the
                             ``v`` after it (keys may be new): several changed
                             fields of one map without their path each time
``["=", path, {k: v, ...}]`` the same, each ``k`` taken as it is (for maps
                             whose keys are not all strings)
``["+", path, items]``       append ``items`` to the list at ``path``
``["<", path, n]``           cut the list at ``path`` down to its first ``n`` items
``["~", path, i, n, items]`` replace ``n`` items of the list at ``path`` from
                             index ``i`` by ``items`` (insert: ``n`` 0; remove:
                             ``items`` empty)
===========================  ===================================================

A ``path`` is a list of map keys and list indices from the top of the view;
the empty path is the whole view. Operations apply in order.

**Keys by number.** A key of a map whose keys are all strings may be named by
its place among them, in sorted order (by code point, as Python sorts
``str``), counted from 0 before the operation: in a path and in the ``[k, v,
...]`` of ``"="``, an integer ``k`` on such a map is that place, a string the
key itself (a new key comes as a string). ``["board", 0, 4]`` on a view whose
keys sort ``board`` third reads ``[2, 0, 4]``. The names of a view's fields
were most of a patch's bytes; the receiver holds the same keys as the sender,
so their order is the same on both sides whatever order the maps came in. A
map that has a key other than a string (none of the games' views has one)
takes integer keys as themselves.

:func:`diff` makes a patch, :func:`apply` applies one; for any two views
``a`` and ``b`` made of maps, lists, strings, numbers, booleans and nil,
``apply(a, diff(a, b)) == b``.

An update's *events* can be shortened against the view they led to: an event
that a game's template rebuilds exactly from the new view travels as its name
alone; one whose other fields the template leaves to it, as its name and their
values, ``[name, value, ...]``, without their names (:func:`shorten_events`,
:func:`expand_events`).

Pure functions, no I/O: the server and every client share them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from operator import ne
from typing import Any

import msgpack

__all__ = [
    "Patch",
    "PatchError",
    "Templates",
    "apply",
    "diff",
    "expand_events",
    "shorten_events",
]

Patch = list[list[Any]]

Templates = Mapping[str, Mapping[str, Sequence[Any] | None]]
"""Event templates by event name: each field of the event and the path in the
view it is read from, in the event's own field order; a path None: the field's
value travels with the event, in this order (its name is not sent)."""

_CONTAINERS = (dict, list)
_SHORT = (int, bool, type(None))
"""What packs to a byte or so: a list of two of them is as small as one set in it."""


class PatchError(ValueError):
    """A patch that does not fit the view it is applied to (a client out of step)."""


def diff(old: Any, new: Any) -> Patch:
    """The operations that turn ``old`` into ``new`` (empty when they are equal).

    Maps are compared key by key and lists item by item. Below the top, a map
    or list is sent whole when that packs smaller than the operations that
    change it (a stone whose colour and symbol both changed; a map whose
    fields mostly did), and the changed fields of one map go in a single
    ``"="`` operation when that is smaller than one set each.
    """
    out: Patch = []
    _diff(old, new, [], out)
    return out


_PACK = msgpack.Packer(use_bin_type=True).pack
"""One packer for every size and comparison: ``msgpack.packb`` makes a new one each
call, which costs as much as packing a board row. (It holds the GIL while packing.)"""


def _pack(x: Any) -> bytes:
    data: bytes = _PACK(x)
    return data


def _size(x: Any) -> int:
    return len(_pack(x))


def _floor(x: dict[Any, Any] | list[Any]) -> int:
    """A lower bound of ``x``'s packed size: each item packs to a byte at least (a map's
    key and value, two), so small operations need not pack ``x`` to know they win."""
    return 1 + (2 * len(x) if type(x) is dict else len(x))


_PLACES: dict[tuple[Any, ...], dict[str, int]] = {}
"""The place of each key among a map's keys, by the maps' keys in their own order
(views of one game have a few shapes): sorting them for every patch costs more."""


def _places(keys: tuple[Any, ...]) -> dict[str, int] | None:
    """Each key of a map's ``keys`` to its place in sorted order, or None when a key is
    not a str (the map's keys are then sent as they are)."""
    places = _PLACES.get(keys)
    if places is None:
        if any(type(k) is not str for k in keys):
            return None
        if len(_PLACES) >= 4096:  # shapes without end (a map keyed by names): start over
            _PLACES.clear()
        places = _PLACES[keys] = {k: i for i, k in enumerate(sorted(keys))}
    return places


def _new_last(pair: tuple[Any, Any]) -> bool:
    return type(pair[0]) is not int


def _key_size(key: Any) -> int:
    if type(key) is int and 0 <= key < 128:
        return 1  # a positive fixint: a key by its place
    if type(key) is str and len(key) < 32 and key.isascii():
        return len(key) + 1  # a fixstr
    return _size(key)


def _whole_if_smaller(b: dict[Any, Any] | list[Any], path: list[Any], out: Patch, mark: int) -> int:
    """Replace the operations out[mark:] on the container ``b`` at ``path`` by a set
    of ``b`` itself when that packs no larger; the packed size of out[mark:] after,
    when it was worked out (-1 when not)."""
    if len(out) - mark < 2 and (len(out) == mark or type(out[mark][0]) is list):
        return -1  # a single set of one item is never larger than the container
    ops = _size(out[mark:])
    if ops <= 1 + len(path) + _floor(b):
        return ops
    whole = [path, b]
    size = _size(whole) + 1
    if size <= ops:
        del out[mark:]
        out.append(whole)
        return size
    return ops


def _diff(a: Any, b: Any, path: list[Any], out: Patch) -> int:
    """Append the operations that turn ``a`` into ``b``; their packed size (as a list)
    when it was worked out on the way, else -1."""
    if a is b:
        return -1
    if type(a) is dict and type(b) is dict:
        mark = len(out)
        places = _places(tuple(a))
        if places is not None and a.keys() != b.keys():
            # Keys gone: removed first, the last place first, so that each place is
            # read on the map as the client holds it then; the rest by their places
            # among the keys kept.
            kept = tuple(k for k in a if k in b)
            gone = sorted((places[k] for k in a if k not in b), reverse=True)
            out.extend([[*path, place]] for place in gone)
            places = _places(kept)
        sets: list[Any] = []  # key (or its place), value, key, value...
        literal: dict[Any, Any] = {}  # new int keys of a map of strings: a "=" of their own
        depth = len(path) + 1
        for key, value in b.items():
            if key not in a:
                if places is not None and type(key) is int:
                    literal[key] = value
                else:
                    sets += (key, value)
                continue
            old = a[key]
            if old is value:
                continue
            name = key if places is None else places[key]
            kind = type(old)
            if kind in _CONTAINERS and kind is type(value):
                if old == value and _pack(old) == _pack(value):
                    continue  # the same (compared in C, not item by item in Python)
                child = len(out)
                known = _diff(old, value, [*path, name], out)
                if len(out) == child:
                    continue
                op = out[child]
                whole = type(op[0]) is list and len(op) == 2 and len(op[0]) == depth
                if whole and len(out) == child + 1:  # the child sent whole: a field of ours
                    sets += (name, out.pop()[1])
                    continue
                # or its operations pack larger than the field would in our "="
                ops = known if known >= 0 else _size(out[child:])
                keyed = _key_size(name)
                if ops > keyed + _floor(value) and ops >= keyed + _size(value):
                    del out[child:]
                    sets += (name, value)
            elif kind is not type(value) or old != value:
                sets += (name, value)
        # One op per field costs 2 bytes + the path; "=" costs 4 + the path once.
        if places is None:
            fields = dict(zip(sets[::2], sets[1::2], strict=True))
            if len(fields) >= 3 or (len(fields) == 2 and path):
                out.append(["=", path, fields])
            else:
                out.extend([[*path, key], value] for key, value in fields.items())
            out.extend([[*path, key]] for key in a if key not in b)
        elif len(sets) >= 6 or (len(sets) == 4 and path):
            out.append(["=", path, sets])  # places read before any key is added
        else:  # a new key shifts places: keys by place first
            pairs = sorted(zip(sets[::2], sets[1::2], strict=True), key=_new_last)
            out.extend([[*path, key], value] for key, value in pairs)
        if literal:
            out.append(["=", path, literal])
        return _whole_if_smaller(b, path, out, mark) if path else -1
    if type(a) is list and type(b) is list:
        mark = len(out)
        n = len(b)
        if len(a) == n:  # a board, a rack: what changed, item by item
            if path and (
                (n <= 2 and all(type(x) in _SHORT for x in b)) or sum(map(ne, a, b)) > n // 2
            ):
                # A pair of numbers (a stone), or a list whose items mostly changed (the
                # legal squares of a new stone): whole, without an operation per item.
                if not _equal(a, b):
                    out.append([path, b])
                return -1
            for i in range(n):
                x, y = a[i], b[i]
                if x is y:
                    continue
                kind = type(x)
                if kind is not type(y):
                    out.append([[*path, i], y])
                elif kind in _CONTAINERS:
                    if not (x == y and _pack(x) == _pack(y)):
                        _diff(x, y, [*path, i], out)
                elif x != y:
                    out.append([[*path, i], y])
        else:
            _resized(a, b, path, out)
        return _whole_if_smaller(b, path, out, mark) if path else -1
    if type(a) is not type(b) or a != b:
        out.append([path, b])
    return -1


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
    if not b or (head == 0 and tail == 0):  # nothing kept: the list itself is smaller
        out.append([path, b])
    elif head == len(a):
        out.append(["+", path, items])
    elif tail == 0 and not items:
        out.append(["<", path, head])
    else:
        out.append(["~", path, head, cut, items])


def _equal(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1 == True``, but a changed type
    must be sent).

    Python compares containers in C but takes ``1 == True == 1.0``; msgpack packs
    each type apart. So: ``==`` first (it stops at the first difference), then
    the packed bytes of two equal containers, instead of a walk in Python. A map
    with the same items in another order counts as different: it is merely sent.
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _CONTAINERS:
        return bool(a == b) and _pack(a) == _pack(b)
    return bool(a == b)


def apply(view: Any, patch: Sequence[Sequence[Any]], *, in_place: bool = False) -> Any:
    """``view`` with ``patch`` applied: a new view, unless ``in_place``.

    Raises:
        PatchError: an operation names a path the view does not have, or is
            not one of the six (the client should ask for the whole view again).
    """
    if not in_place:
        view = _copy(view)
    for op in patch:
        try:
            view = _apply_one(view, op)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise PatchError(f"cannot apply {op!r}: {exc}") from None
    return view


def _apply_one(view: Any, op: Sequence[Any]) -> Any:
    if type(op[0]) is list:  # [path, value] sets, [path] removes
        kind, path = ("set" if len(op) == 2 else "-"), list(op[0])
        if len(op) > 2:
            raise ValueError("a set is [path, value], a removal [path]")
    else:
        kind, path = op[0], list(op[1])
    if kind == "set" and not path:
        return _copy(op[1])
    parent = view
    for key in path[:-1] if kind in ("set", "-") else path:
        parent = parent[_key(parent, key) if type(parent) is dict else key]
    if kind == "set":
        last = path[-1]
        if type(parent) is list and not 0 <= last < len(parent):
            raise IndexError(last)
        parent[_key(parent, last) if type(parent) is dict else last] = _copy(op[1])
    elif kind == "-":
        if type(parent) is not dict:
            raise TypeError("only a map key can be removed")
        del parent[_key(parent, path[-1])]
    elif kind == "=":
        fields = op[2]
        if type(parent) is not dict or len(op) != 3:
            raise TypeError("'=' sets keys of a map")
        if type(fields) is list:
            if len(fields) % 2:
                raise ValueError("'=' takes a key and a value, and so on")
            order = _order(parent)  # places read before any key is set
            keys = fields[::2] if order is None else [_key(parent, k, order) for k in fields[::2]]
            fields = dict(zip(keys, fields[1::2], strict=True))
        elif type(fields) is not dict:
            raise TypeError("'=' sets keys of a map, from a map or a list")
        parent.update(_copy(fields))
    elif kind == "+":
        if type(parent) is not list:
            raise TypeError("only a list can be appended to")
        parent.extend(_copy(op[2]))
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
        parent[start : start + count] = _copy(items)
    else:
        raise ValueError(f"unknown operation {kind!r}")
    return view


_ATOMS = frozenset({str, int, float, bool, bytes, type(None)})


def _copy(x: Any) -> Any:
    """A deep copy of what msgpack decodes to (maps, lists and atoms), else copy.deepcopy.

    A patch's values are put into the client's view, which later patches change
    in place: they must not be the patch's own objects. copy.deepcopy keeps a memo
    of every object it copied and asks each for a copier; for these types that
    is most of its time (a fifth of a bot's CPU applying patches, in bench.move).
    """
    kind = type(x)
    if kind in _ATOMS:
        return x
    if kind is list:
        return [_copy(i) for i in x]
    if kind is dict:
        return {k: _copy(v) for k, v in x.items()}
    return copy.deepcopy(x)


def _key(parent: dict[Any, Any], key: Any, order: tuple[str, ...] | None = None) -> Any:
    """The key of ``parent`` that ``key`` names: its place in sorted order when ``key``
    is an int and the map's keys are all strings, else ``key`` itself (``order``:
    :func:`_order` of ``parent``, when known)."""
    if type(key) is not int:
        return key
    if order is None:
        order = _order(parent)
        if order is None:
            return key  # a map with a key other than a str: integers are keys
    if not 0 <= key < len(order):
        raise KeyError(f"no key at place {key} of a map of {len(order)}")
    return order[key]


def _order(parent: dict[Any, Any]) -> tuple[str, ...] | None:
    """``parent``'s keys in sorted order, or None when one is not a str."""
    keys = tuple(parent)
    try:
        return _ORDERS[keys]
    except KeyError:
        if len(_ORDERS) >= 4096:  # shapes without end: start over
            _ORDERS.clear()
        strings = all(type(k) is str for k in keys)
        order = _ORDERS[keys] = tuple(sorted(keys)) if strings else None
        return order


_ORDERS: dict[tuple[Any, ...], tuple[str, ...] | None] = {}
"""A map's keys in sorted order (None: not all strings), by its keys in its own order:
a client applies several operations to maps of the same few shapes per update."""


# -- events ------------------------------------------------------------------------


def _derive(
    name: str, template: Mapping[str, Sequence[Any] | None], view: Any, given: Sequence[Any]
) -> dict[str, Any]:
    event: dict[str, Any] = {"e": name}
    values = iter(given)
    for field, path in template.items():
        if path is None:
            event[field] = next(values)  # StopIteration: fewer values than the template
            continue
        value = view
        for key in path:
            value = value[key]
        event[field] = value
    if next(values, _END) is not _END:
        raise ValueError(f"more values than {name!r} takes")
    return event


_END = object()


def shorten_events(
    events: Sequence[dict[str, Any]], view: Any, templates: Templates
) -> list[dict[str, Any] | str | list[Any]]:
    """``events`` shortened by their templates against ``view`` (the view they led to):
    one whose every field the view holds becomes its name; one whose other fields
    (those of path None) are its own becomes ``[name, value, ...]``, those values in
    the template's order. What :func:`expand_events` undoes."""
    out: list[dict[str, Any] | str | list[Any]] = []
    for event in events:
        name = event.get("e")
        template = templates.get(name) if type(name) is str else None
        given = None
        if template is not None and len(event) == len(template) + 1:
            given = _given(template, event, view)
        if given is None:
            out.append(event)
        elif given:
            out.append([name, *given])
        else:
            out.append(name)  # type: ignore[arg-type]
    return out


def _given(
    template: Mapping[str, Sequence[Any] | None], event: dict[str, Any], view: Any
) -> list[Any] | None:
    """The values of ``event``'s fields that ``template`` leaves to the event (path None),
    in the template's order, when every other field is in ``view`` where the template
    says; None when it is not (``event`` has no field the template lacks, its length
    being the template's plus ``e``)."""
    given: list[Any] = []
    for field, path in template.items():
        if field not in event:
            return None
        if path is None:
            given.append(event[field])
            continue
        value = view
        try:
            for key in path:
                value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
        sent = event[field]
        if value is sent:  # the event's own list or string, shared with the view
            continue
        kind = type(value)
        if kind is type(sent) and kind not in _CONTAINERS:
            if value == sent:  # a number, a flag: what _equal does, without its call
                continue
            return None
        if not _equal(value, sent):
            return None
    return given


def expand_events(
    events: Sequence[dict[str, Any] | str | list[Any]], view: Any, templates: Templates
) -> list[dict[str, Any]]:
    """The events of a compact update in full, as new copies: each name, or ``[name,
    value, ...]``, rebuilt by its template from those values and ``view``, the view
    after the update.

    Raises:
        PatchError: a name without a template, or a template the view or the values
            cannot fill.
    """
    out: list[dict[str, Any]] = []
    for event in events:
        name: Any
        given: Sequence[Any]
        if isinstance(event, str):
            name, given = event, ()
        elif isinstance(event, list) and event and isinstance(event[0], str):
            name, given = event[0], event[1:]
        else:
            out.append(event)  # type: ignore[arg-type]
            continue
        template = templates.get(name)
        if template is None:
            raise PatchError(f"event {name!r} sent short, and no template for it")
        try:
            out.append(_copy(_derive(name, template, view, given)))
        except (KeyError, IndexError, TypeError, ValueError, StopIteration) as exc:
            raise PatchError(f"the view and values cannot fill event {event!r}: {exc}") from None
    return out
