"""Names kept across devices: sign-in, passwords, tokens taken back, names barred.

A player holds one token per device (the store's tokens table, each kept as
its SHA-256). A name may be protected by a password (kept as an Argon2id hash,
checked off the event loop by :class:`~tilehall.server.passwords.Hasher`);
``hello {name, password}`` then opens a session on any device and gives it a
token of its own. Wrong passwords are counted per name and per address
(:class:`~tilehall.server.passwords.Attempts`): past five within ten minutes,
``too_many_attempts`` with ``retry_after``. Sessions signed in with a token or
a password are unaffected by that counting.

This layer also keeps which connections are signed in as whom, so that
``sign_out`` and a host's bar close the others (close codes
:class:`~tilehall.protocol.CloseCode`). In a cluster that index is this
node's, and the other nodes are told over the bus to close theirs; a node
off the bus then keeps them until they next say ``hello`` (the token is gone
from the shared store by then).
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any

from tilehall.protocol import CloseCode, ErrorCode, ProtocolError
from tilehall.server.lobby.records import Records
from tilehall.server.lobby.registry import hash_token
from tilehall.server.member import Member
from tilehall.server.names import is_bot_name, name_key, validate_name
from tilehall.server.passwords import (
    Attempts,
    Busy,
    Hasher,
    check_password,
    code_hash,
    same_code,
)
from tilehall.server.store.base import (
    AccountRecord,
    NameTaken,
    PlayerRecord,
    Store,
    StoreUnavailable,
)

if TYPE_CHECKING:
    from tilehall.server.clock import Clock
    from tilehall.server.config import Config

__all__ = ["BUSY_RETRY", "Accounts"]

log = logging.getLogger(__name__)

BUSY_RETRY = 1.0
"""``retry_after`` of a sign-in refused because every hashing thread is taken."""


class Accounts(Records):
    """The lobby's layer of sign-in: ``hello``'s identity, ``set_password``, ``sign_out``.

    Args:
        config: the server's settings.
        store: players and their tokens.
        clock: wall time (the attempts' window counts in it).
        hasher: the Argon2id pool (tests pass a cheaper one; the server the default).
    """

    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        clock: Clock | None = None,
        hasher: Hasher | None = None,
    ) -> None:
        super().__init__(config, store, clock=clock)
        self.hasher = hasher or Hasher()
        self.attempts = Attempts()
        self.signed_in: dict[int, dict[Member, bytes]] = {}
        """Each player's connections on this node, with the hash of the token each holds."""

    # -- who says hello ---------------------------------------------------------------

    async def identify(self, session: Member, msg: dict[str, Any]) -> tuple[PlayerRecord, str]:
        """The player ``hello`` names and the token the session holds from now on.

        Raises:
            ProtocolError: ``bad_token``, ``bad_name``, ``name_reserved``,
                ``name_taken``, ``password_required``, ``bad_password``,
                ``too_many_attempts`` or ``name_disabled``.
        """
        if "token" in msg:
            token = msg["token"]
            account = await self.store.account_by_token(hash_token(token))
            if account is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "that token belongs to no player")
            _not_barred(account)
            return account.player, token
        name = validate_name(msg["name"])
        if is_bot_name(name):
            raise ProtocolError(
                ErrorCode.NAME_RESERVED,
                f"names that start with or look like COMP are for bots: {name!r}",
            )
        password = msg.get("password")
        if password is not None:  # a guesser held back costs no query of the store
            self._held_back(_keys(name, _address(session)), name)
        account = await self.store.account_by_name(name)
        if account is None:
            return await self._new_player(name, password)
        if not account.protected:
            raise ProtocolError(
                ErrorCode.NAME_TAKEN,
                f"the name {name!r}, or one that looks like it, is taken; come back with its token",
            )
        if password is None:
            raise ProtocolError(
                ErrorCode.PASSWORD_REQUIRED,
                f"the name {account.name!r} is protected: send its password, or its token",
            )
        by_password = await self._check(account, password, _address(session))
        _not_barred(account)
        if by_password:
            await self._rehash(account, password)
        token = secrets.token_urlsafe(24)
        await self.store.add_token(account.id, hash_token(token), self.clock.time())
        return account.player, token

    async def _new_player(self, name: str, password: str | None) -> tuple[PlayerRecord, str]:
        """A name nobody has: its player, protected at once when ``hello`` sent a password."""
        encoded = await self._hash(check_password(password)) if password is not None else None
        token = secrets.token_urlsafe(24)
        try:
            player = await self.store.create_player(name, hash_token(token), self.clock.time())
        except NameTaken:
            raise ProtocolError(
                ErrorCode.NAME_TAKEN,
                f"the name {name!r}, or one that looks like it, is taken; come back with its token",
            ) from None
        if encoded is not None:
            await self.store.set_password(player.id, encoded)
        return player, token

    async def _check(self, account: AccountRecord, password: str, address: str) -> bool:
        """Accept ``password`` for ``account`` or refuse it, counting a wrong one.

        A one-time code from the host (``--reset-password``) is accepted once,
        in place of a password.

        Returns:
            Whether it was the password (checked against its hash), not the code.
        """
        keys = _keys(account.name, address)
        now = self.clock.time()
        self._held_back(keys, account.name)
        # Counted as wrong before the check and taken back if right: checks under way
        # at once (one per hashing thread and backlog) must not each find the count low.
        self.attempts.failed(keys, now)
        try:
            if account.reset_code is not None and same_code(password, account.reset_code):
                await self.store.set_password(account.id, account.password, None)
                right, by_password = True, False
            else:
                by_password = True
                right = account.password is not None and await self._verify(
                    account.password, password
                )
        except BaseException:
            self.attempts.undo(keys[0], now)
            self.attempts.undo(keys[1], now)
            raise
        if not right:
            raise ProtocolError(
                ErrorCode.BAD_PASSWORD, f"that is not the password of {account.name!r}"
            )
        self.attempts.forget(keys[0])
        self.attempts.undo(keys[1], now)
        return by_password

    async def _rehash(self, account: AccountRecord, password: str) -> None:
        """Hash ``account``'s right ``password`` again if its hash has older parameters.

        Only a sign-in has the password at hand, so new costs reach each name at
        its next one. Best effort: a full pool or a failed write leaves it for a
        later sign-in (this one goes on); a password changed meanwhile on another
        connection stands (the store compares).
        """
        stored = account.password
        if stored is None or not self.hasher.outdated(stored):
            return
        try:
            new = await self.hasher.hash(password)
        except Busy:
            return
        try:
            again = await self.store.rehash_password(account.id, stored, new)
        except StoreUnavailable as exc:  # the sign-in's own write will say if the store is down
            log.warning("player %s: password not hashed again: %s", account.name, exc)
            return
        if again:
            log.info("player %s: password hashed again with today's parameters", account.name)

    def _held_back(self, keys: tuple[str, str], name: str) -> None:
        """Refuse at once while ``keys`` (a name's, an address's) have too many failures."""
        wait = self.attempts.retry_after(keys, self.clock.time())
        if wait > 0:
            raise ProtocolError(
                ErrorCode.TOO_MANY_ATTEMPTS,
                f"too many wrong passwords for {name!r} or from your address;"
                f" try again in {wait:.0f} s",
                retry_after=round(wait, 1),
            )

    async def _hash(self, password: str) -> str:
        try:
            return await self.hasher.hash(password)
        except Busy:
            raise _busy() from None

    async def _verify(self, stored: str, password: str) -> bool:
        try:
            return await self.hasher.verify(stored, password)
        except Busy:
            raise _busy() from None

    def signed_on(self, session: Member, token: str) -> None:
        """``session`` holds ``token`` from now on (``hello`` succeeded)."""
        assert session.player is not None
        self.signed_in.setdefault(session.player.id, {})[session] = hash_token(token)

    def disconnect(self, session: Member) -> None:
        """The connection is gone: forget it here too, then in its rooms."""
        if session.player is not None:
            mine = self.signed_in.get(session.player.id)
            if mine is not None:
                mine.pop(session, None)
                if not mine:
                    del self.signed_in[session.player.id]
        super().disconnect(session)

    # -- requests ---------------------------------------------------------------------

    async def set_password(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """Protect the session's name, or change its password (the old one with it)."""
        assert session.player is not None
        password = check_password(msg["password"])
        account = await self.store.account(session.player.id)
        if account is None:
            raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, "this player is gone")
        if account.password is not None:
            old = msg.get("old_password")
            if old is None:
                raise ProtocolError(
                    ErrorCode.BAD_PASSWORD,
                    "your name has a password already: send it as old_password to change it",
                )
            await self._check(account, old, _address(session))
        await self.store.set_password(account.id, await self._hash(password))
        log.info("player %s set a password", account.name)
        return {"t": "password_set"}

    async def sign_out(self, session: Member, msg: dict[str, Any]) -> None:
        """Take back this session's token, or every token of its player; close the others.

        The reply goes first; this session is closed (1000) right after it.
        """
        assert session.player is not None
        player = session.player.id
        mine = self.signed_in.get(player, {})
        token = mine.get(session)
        everywhere = bool(msg.get("everywhere"))
        if everywhere:
            await self.store.revoke_tokens(player)
        elif token is not None:
            await self.store.revoke_token(token)
        taken = None if everywhere else token
        self.close_signed_in(player, taken, CloseCode.SIGNED_OUT, keep=session)
        if self.bus is not None:
            self.bus.signed_out(player, taken, CloseCode.SIGNED_OUT)
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
            if self.bus is not None:
                self.bus.signed_out(account.id, None, CloseCode.NAME_DISABLED)
        log.warning("player %s %s by the host", account.name, "barred" if disabled else "restored")
        return await self.named(name)

    async def reset_password(self, name: str) -> str:
        """Remove ``name``'s password; return a one-time code its owner may sign in with once.

        Raises:
            KeyError: no player has that name.
        """
        account = await self.named(name)
        code = secrets.token_urlsafe(16)
        await self.store.set_password(account.id, None, code_hash(code))
        log.warning("player %s: password reset by the host", account.name)
        return code

    async def named(self, name: str) -> AccountRecord:
        account = await self.store.account_by_name(name)
        if account is None:
            raise KeyError(name)
        return account


def _not_barred(account: AccountRecord) -> None:
    if account.disabled:
        raise ProtocolError(
            ErrorCode.NAME_DISABLED, f"the host has barred the name {account.name!r}"
        )


def _keys(name: str, address: str) -> tuple[str, str]:
    """What wrong passwords count against: the name (by its key) and the address."""
    return f"name:{name_key(name)}", f"address:{address}"


def _busy() -> ProtocolError:
    return ProtocolError(
        ErrorCode.TOO_MANY_ATTEMPTS,
        "the server is checking many passwords now; try again in a moment",
        retry_after=BUSY_RETRY,
    )


def _address(session: Member) -> str:
    """The address per-address limits count: the client's, through trusted proxies."""
    ip = getattr(session, "ip", None)
    return ip if isinstance(ip, str) else session.peer
