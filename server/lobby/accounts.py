"""Names kept across devices: sign-in, passwords, tokens taken back, names barred.

A player holds one token per device (the store's tokens table, each kept as
its SHA-256). A name may be protected by a password (kept as an Argon2id hash,
checked off the event loop by :class:`~tilehall.server.names.passwords.Hasher`);
``hello {name, password}`` then opens a session on any device and gives it a
token of its own. Wrong passwords are counted per address and name, per
address and per name (:class:`~tilehall.server.names.passwords.Attempts`): five from
one address lock that address out of that name for ten minutes, while another
address's right password still signs in; past a hundred in a day from
everywhere, the name's password is checked once a minute. Sessions signed in
with a token are never held back. New names are a budget per address
(``--names-per-address``, :class:`NewNames`).

A name that has no password can never be lost by its owner: ``sign_out`` of it
is refused ``no_password`` (nobody could sign in as it again). A host's
``--reset-password`` takes every token of the name back, as sign-out
everywhere does, so that only the one-time code signs in.

This piece also keeps which connections are signed in as whom, so that
``sign_out``, a reset and a host's bar close the others (close codes
:class:`~tilehall.protocol.CloseCode`). In a cluster that index is this
node's, and the other nodes are told to close theirs
(:meth:`Others.signed_out <tilehall.server.lobby.others.Others.signed_out>`); a
node off the bus then keeps them until they next say ``hello`` (the token is
gone from the shared store by then).

Failed sign-ins are logged with the name, the address and the reason, and
lockouts when they start; never a password.
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
from typing import Any

from tilehall.protocol import CloseCode, ErrorCode, ProtocolError
from tilehall.server.lobby.registry import Registry, hash_token
from tilehall.server.names import check_new_name, is_bot_name, name_key, validate_name
from tilehall.server.names.passwords import (
    MAX_KEYS,
    SLOW_EVERY,
    Attempts,
    Busy,
    Hasher,
    Lock,
    check_password,
    code_hash,
    normalized,
    same_code,
)
from tilehall.server.room.member import Member
from tilehall.server.store.errors import NameTaken, StoreUnavailable
from tilehall.server.store.records import AccountRecord, PlayerRecord

__all__ = ["BUSY_RETRY", "Accounts", "NewNames"]

log = logging.getLogger(__name__)

BUSY_RETRY = 1.0
"""``retry_after`` of a sign-in refused because every hashing thread is taken."""

NAMES_PERIOD = 3600.0
"""The budget of new names per address refills over this many seconds."""

NAMES_HOLD = 1.0
"""Seconds a ``too_many_names`` answer waits (that connection read no further meanwhile)."""


class NewNames:
    """New names per address: a token bucket of ``per_hour``, refilled over an hour.

    A household's new names come one by one over weeks; a storm of them from one
    address is refused (``too_many_names``) after the first ``per_hour``, before
    anything is hashed or written, and costs no other address anything. The
    caller passes the time. ``per_hour`` 0: no bound.
    """

    def __init__(self, per_hour: int, period: float = NAMES_PERIOD) -> None:
        self.per_hour = per_hour
        self.period = period
        self._left: dict[str, tuple[float, float]] = {}
        """Address: (names left, when counted)."""

    def _now_left(self, address: str, now: float) -> float:
        left, at = self._left.get(address, (float(self.per_hour), now))
        return min(float(self.per_hour), left + (now - at) * self.per_hour / self.period)

    def take(self, address: str, now: float) -> float:
        """Take one new name for ``address``: 0 if taken, else the seconds until one is left."""
        if not self.per_hour:
            return 0.0
        left = self._now_left(address, now)
        if left < 1.0:
            return (1.0 - left) * self.period / self.per_hour
        if address not in self._left and len(self._left) >= MAX_KEYS:
            self._left.pop(next(iter(self._left)))
        self._left[address] = (left - 1.0, now)
        return 0.0

    def give_back(self, address: str, now: float) -> None:
        """The name taken was not made after all (another took it first)."""
        if self.per_hour and address in self._left:
            self._left[address] = (self._now_left(address, now) + 1.0, now)


class Accounts:
    """The lobby's piece of sign-in: ``hello``'s identity, ``set_password``, ``sign_out``.

    Args:
        registry: the lobby's registry (its store, clock, settings, other nodes).
        hasher: the Argon2id pool (tests pass a cheaper one; the server the default).
    """

    def __init__(self, registry: Registry, *, hasher: Hasher | None = None) -> None:
        self.registry = registry
        self.store = registry.store
        self.clock = registry.clock
        self.hasher = hasher or Hasher()
        self.attempts = Attempts()
        self.new_names = NewNames(registry.config.limits.names_per_address)
        self.signed_in: dict[int, dict[Member, bytes]] = {}
        """Each player's connections on this node, with the hash of the token each holds."""

    # -- who says hello ---------------------------------------------------------------

    async def identify(
        self, session: Member, msg: dict[str, Any]
    ) -> tuple[PlayerRecord, str, bool]:
        """The player ``hello`` names, the token the session holds from now on, and whether
        the name has a password (or a host's one-time code waiting).

        Raises:
            ProtocolError: ``bad_token``, ``bad_name``, ``name_reserved``,
                ``name_taken``, ``password_required``, ``bad_password``,
                ``too_many_attempts``, ``too_many_names`` or ``name_disabled``.
        """
        address = _address(session)
        if "token" in msg:
            token = msg["token"]
            account = await self.store.account_by_token(hash_token(token))
            if account is None:
                log.info("sign-in refused: a token from %s: signed out or unknown", address)
                raise ProtocolError(
                    ErrorCode.BAD_TOKEN,
                    "this device's key no longer signs in: it was signed out (here, everywhere,"
                    " or by the host), or the server's data was reset; sign in with the name's"
                    " password, or pick a name",
                )
            self._not_barred(account, address)
            return account.player, token, account.protected
        name = validate_name(msg["name"])
        if is_bot_name(name):
            raise ProtocolError(
                ErrorCode.NAME_RESERVED,
                f"names that start with or look like COMP are for bots: {name!r}",
            )
        password = msg.get("password")
        if password is not None:  # a guesser held back costs no query of the store
            self._held_back(name_key(name), address, name)
        account = await self.store.account_by_name(name)
        if account is None:
            player, token = await self._new_player(name, password, address)
            return player, token, password is not None
        # before the password: a barred name says so whatever comes with it, so that a
        # guess at it tells nothing
        self._not_barred(account, address)
        if not account.protected:
            raise ProtocolError(
                ErrorCode.NAME_TAKEN,
                f"the name {account.name!r} is taken"
                + ("" if account.name == name else f" ({name!r} looks like it)")
                + ": pick another name",
            )
        if password is None:
            raise ProtocolError(
                ErrorCode.PASSWORD_REQUIRED,
                f"the name {account.name!r} is protected: type its password to play as it here",
            )
        by_password, legacy = await self._check(account, password, address)
        if by_password:
            await self._rehash(account, password, legacy=legacy, source=address)
        token = secrets.token_urlsafe(24)
        await self.store.add_token(account.id, hash_token(token), self.clock.time())
        log.info("player %s signed in with the password from %s", account.name, address)
        return account.player, token, True

    async def _new_player(
        self, name: str, password: str | None, address: str
    ) -> tuple[PlayerRecord, str]:
        """A name nobody has: its player, protected at once when ``hello`` sent a password."""
        check_new_name(name)
        checked = check_password(password) if password is not None else None
        now = self.clock.time()
        wait = self.new_names.take(address, now)
        if wait > 0:
            # Pace, don't punish: the answer waits a moment, and nothing more is read from
            # this connection meanwhile, so a storm of new names costs the server little.
            await self.clock.sleep(min(wait, NAMES_HOLD))
            raise ProtocolError(
                ErrorCode.TOO_MANY_NAMES,
                f"this address made {self.new_names.per_hour} new names within the hour;"
                f" try again in {wait:.0f} s, or play under a name you have",
                retry_after=round(wait, 1),
            )
        # A try refused because the hashing pool is full still counts against the budget:
        # a storm must not try again and again for free.
        encoded = await self._hash(checked, address) if checked is not None else None
        token = secrets.token_urlsafe(24)
        try:
            player = await self.store.create_player(name, hash_token(token), self.clock.time())
        except NameTaken:
            self.new_names.give_back(address, now)
            raise ProtocolError(
                ErrorCode.NAME_TAKEN,
                f"the name {name!r}, or one that looks like it, is taken: pick another name",
            ) from None
        if encoded is not None:
            await self.store.set_password(player.id, encoded)
        return player, token

    async def _check(
        self, account: AccountRecord, password: str, address: str
    ) -> tuple[bool, bool]:
        """Accept ``password`` for ``account`` or refuse it, counting a wrong one.

        A one-time code from the host (``--reset-password``) is accepted once,
        in place of a password.

        Returns:
            Whether it was the password (checked against its hash), not the code;
            and whether it matched only as typed, not NFKC-normalised (a hash made
            before passwords were normalised: it is made again).
        """
        key = name_key(account.name)
        now = self.clock.time()
        self._held_back(key, address, account.name)
        # Counted as wrong before the check and taken back if right: checks under way
        # at once (one per hashing thread and backlog) must not each find the count low.
        slowed = self.attempts.slowed(key, now)
        self.attempts.failed(key, address, now)
        try:
            if account.reset_code is not None and same_code(password, account.reset_code):
                await self.store.set_password(account.id, account.password, None)
                right, by_password, legacy = True, False, False
            else:
                by_password = True
                right, legacy = False, False
                if account.password is not None:
                    right, legacy = await self._verify(account.password, password, address)
        except BaseException:
            self.attempts.undo(key, address, now)
            raise
        if not right:
            self._refused(account.name, key, address, now, slowed)
            raise ProtocolError(
                ErrorCode.BAD_PASSWORD, f"that is not the password of {account.name!r}"
            )
        self.attempts.right(key, address, now)
        return by_password, legacy

    def _refused(self, name: str, key: str, address: str, now: float, slowed: bool) -> None:
        """Log a wrong password, and the lockout it starts, if it starts one."""
        log.info("sign-in refused: %r from %s: wrong password", name, address)
        wait, why = self.attempts.retry_after(key, address, now)
        if why == "pair" or why == "address":
            log.warning(
                "sign-in locked: %r from %s for %.0f s: too many wrong passwords%s",
                name,
                address,
                wait,
                "" if why == "pair" else " from this address",
            )
        if not slowed and self.attempts.slowed(key, now):
            log.warning(
                "sign-in slowed: %r had %d wrong passwords within a day: a new device's"
                " password is checked once every %.0f s",
                name,
                self.attempts.names.limit,
                self.attempts.slow_every,
            )

    async def _rehash(
        self, account: AccountRecord, password: str, *, legacy: bool, source: str
    ) -> None:
        """Hash ``account``'s right ``password`` again if its hash has older parameters, or
        was made of it as typed rather than NFKC-normalised (``legacy``).

        Only a sign-in has the password at hand, so new costs reach each name at
        its next one. Best effort: a full pool or a failed write leaves it for a
        later sign-in (this one goes on); a password changed meanwhile on another
        connection stands (the store compares).
        """
        stored = account.password
        if stored is None or not (legacy or self.hasher.outdated(stored)):
            return
        try:
            new = await self.hasher.hash(normalized(password), source=source)
        except Busy:
            return
        try:
            again = await self.store.rehash_password(account.id, stored, new)
        except StoreUnavailable as exc:  # the sign-in's own write will say if the store is down
            log.warning("player %s: password not hashed again: %s", account.name, exc)
            return
        if again:
            log.info("player %s: password hashed again with today's parameters", account.name)

    def _held_back(self, key: str, address: str, name: str) -> None:
        """Refuse at once while ``address`` may not have a password of ``name`` checked."""
        wait, why = self.attempts.retry_after(key, address, self.clock.time())
        if why is None:
            return
        log.debug("sign-in held back: %r from %s (%s) for %.0f s", name, address, why, wait)
        raise ProtocolError(
            ErrorCode.TOO_MANY_ATTEMPTS, _held_text(why, name, wait), retry_after=round(wait, 1)
        )

    async def _hash(self, password: str, source: str) -> str:
        try:
            return await self.hasher.hash(password, source=source)
        except Busy:
            raise _busy() from None

    async def _verify(self, stored: str, password: str, source: str) -> tuple[bool, bool]:
        """Whether ``password`` is right, and whether only as typed (see :meth:`_check`)."""
        plain = normalized(password)
        try:
            if await self.hasher.verify(stored, plain, source=source):
                return True, False
            if plain != password and await self.hasher.verify(stored, password, source=source):
                return True, True
        except Busy:
            raise _busy() from None
        return False, False

    def _not_barred(self, account: AccountRecord, address: str) -> None:
        if account.disabled:
            log.info("sign-in refused: %r from %s: barred by the host", account.name, address)
            raise ProtocolError(
                ErrorCode.NAME_DISABLED, f"the host has barred the name {account.name!r}"
            )

    def signed_on(self, session: Member, token: str) -> None:
        """``session`` holds ``token`` from now on (``hello`` succeeded)."""
        assert session.player is not None
        self.signed_in.setdefault(session.player.id, {})[session] = hash_token(token)

    def disconnect(self, session: Member) -> None:
        """The connection is gone: it is signed in no more."""
        if session.player is not None:
            mine = self.signed_in.get(session.player.id)
            if mine is not None:
                mine.pop(session, None)
                if not mine:
                    del self.signed_in[session.player.id]

    # -- requests ---------------------------------------------------------------------

    async def set_password(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """Protect the session's name, or change its password (the old one with it)."""
        assert session.player is not None
        password = check_password(msg["password"])
        account = await self.store.account(session.player.id)
        if account is None:
            raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, "this player is gone")
        address = _address(session)
        if account.password is not None:
            old = msg.get("old_password")
            if old is None:
                raise ProtocolError(
                    ErrorCode.BAD_PASSWORD,
                    "your name has a password already: send it as old_password to change it",
                )
            await self._check(account, old, address)
        elif account.reset_code is not None and not await self._still_signed_in(session):
            # The host reset the password and took this device's key back: the one-time
            # code is the owner's, and a key from before must not cancel it.
            raise ProtocolError(
                ErrorCode.BAD_TOKEN,
                "the host reset this name's password and signed this device out: sign in"
                " with the one-time code the host gave you",
            )
        await self.store.set_password(account.id, await self._hash(password, address))
        log.info("player %s set a password", account.name)
        return {"t": "password_set"}

    async def _still_signed_in(self, session: Member) -> bool:
        """Whether the token ``session`` signed in with is still its player's."""
        assert session.player is not None
        held = self.signed_in.get(session.player.id, {}).get(session)
        if held is None:
            return False
        account = await self.store.account_by_token(held)
        return account is not None and account.id == session.player.id

    async def sign_out(self, session: Member, msg: dict[str, Any]) -> None:
        """Take back this session's token, or every token of its player; close the others.

        Refused ``no_password`` for a name that has no password (nor a host's
        one-time code): nobody, its owner included, could sign in as it again.
        The reply goes first; this session is closed (1000) right after it.
        """
        assert session.player is not None
        player = session.player.id
        account = await self.store.account(player)
        if account is not None and not account.protected:
            raise ProtocolError(
                ErrorCode.NO_PASSWORD,
                f"{account.name!r} has no password: signed out, nobody could play as it again,"
                " you neither. Set a password first; then its password signs in again",
            )
        mine = self.signed_in.get(player, {})
        token = mine.get(session)
        everywhere = bool(msg.get("everywhere"))
        if everywhere:
            await self.store.revoke_tokens(player)
        elif token is not None:
            await self.store.revoke_token(token)
        taken = None if everywhere else token
        self.close_signed_in(player, taken, CloseCode.SIGNED_OUT, keep=session)
        self.registry.others.signed_out(player, taken, CloseCode.SIGNED_OUT)
        log.info(
            "player %s signed out %s from %s",
            session.player.name,
            "everywhere" if everywhere else "one device",
            _address(session),
        )
        reply: dict[str, Any] = {"t": "signed_out", "everywhere": everywhere}
        if msg.get("id") is not None:
            reply["re"] = msg["id"]
        session.send_msg(reply)  # queued before the close, so it is written first
        session.close(1000, "signed out")

    def close_signed_in(
        self, player: int, token: bytes | None, code: int, *, keep: Member | None = None
    ) -> None:
        """Close ``player``'s connections here holding the token ``token`` hashes (None:
        every one of them), but ``keep``: signed out, or the name barred (``code``)."""
        reason = "name disabled by the host" if code == CloseCode.NAME_DISABLED else "signed out"
        for member, held in list(self.signed_in.get(player, {}).items()):
            if member is not keep and (token is None or held == token):
                member.close(code, reason)

    # -- the host's -------------------------------------------------------------------

    async def bar(self, name: str, disabled: bool) -> AccountRecord:
        """Bar a name (its connections here closed, ``hello`` refused) or lift the bar.

        Raises:
            KeyError: no player has that name.
        """
        account = await self.named(name)
        await self.store.set_disabled(account.id, disabled)
        if disabled:
            self.close_signed_in(account.id, None, CloseCode.NAME_DISABLED)
            self.registry.others.signed_out(account.id, None, CloseCode.NAME_DISABLED)
        log.warning("player %s %s by the host", account.name, "barred" if disabled else "restored")
        return await self.named(name)

    async def reset_password(self, name: str) -> str:
        """Remove ``name``'s password; return a one-time code its owner may sign in with once.

        Every token of the name is taken back and its connections closed (4001), as
        sign-out everywhere does: the host resets a password because someone else
        may know it, and a device of theirs must not keep the name, nor set a password
        that cancels the code.

        Raises:
            KeyError: no player has that name.
        """
        account = await self.named(name)
        code = secrets.token_urlsafe(16)
        await self.store.set_password(account.id, None, code_hash(code))
        taken = await self.store.revoke_tokens(account.id)
        self.close_signed_in(account.id, None, CloseCode.SIGNED_OUT)
        self.registry.others.signed_out(account.id, None, CloseCode.SIGNED_OUT)
        log.warning(
            "player %s: password reset by the host; %d device key(s) taken back",
            account.name,
            taken,
        )
        return code

    async def named(self, name: str) -> AccountRecord:
        account = await self.store.account_by_name(name)
        if account is None:
            raise KeyError(name)
        return account


def _held_text(why: Lock, name: str, wait: float) -> str:
    """What a player held back reads: who is held, and what still works."""
    if why == "pair":
        return f"too many wrong passwords for {name!r} from your address; try again in {wait:.0f} s"
    if why == "address":
        return f"too many wrong passwords from your address; try again in {wait:.0f} s"
    return (
        f"{name!r} had too many wrong passwords today: a new device's password for it is"
        f" checked once every {SLOW_EVERY:.0f} s; try again in {wait:.0f} s (devices"
        " signed in as it are not held back)"
    )


def _busy() -> ProtocolError:
    return ProtocolError(
        ErrorCode.TOO_MANY_ATTEMPTS,
        "the server is checking many passwords now; try again in a moment",
        retry_after=BUSY_RETRY,
    )


def _address(session: Member) -> str:
    """The address per-address limits count: the client's, through trusted proxies.

    An IPv6 address counts by its /64: one household's devices, or one host,
    take any number of addresses of their /64, and a limit per address would
    give each a budget of its own.
    """
    ip = getattr(session, "ip", None)
    text = ip if isinstance(ip, str) else session.peer
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return text
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return text
