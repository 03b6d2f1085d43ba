"""One WebSocket connection: hello, then commands, history and pings.

Every frame is decoded by the typed decoder; anything it refuses, anything
the permission table refuses and anything the rules refuse becomes an
``error`` answer, and nothing changes. No input ends this loop except the
connection closing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from vigil import auth, permissions
from vigil.anchor import Anchor
from vigil.close_codes import CloseCode
from vigil.net.hub import Conn, Hub, Refused, TableHost
from vigil.plain_errors import refusal
from vigil.protocol import (
    PROTOCOL_VERSION,
    Ack,
    Cmd,
    Hello,
    HistoryEntry,
    HistoryPage,
    HistoryQuery,
    Ping,
    Pong,
    Welcome,
    client_decoder,
    encoder,
)
from vigil.rules.outcome import RuleError
from vigil.rules.systems import SYSTEMS
from vigil.store.base import LogEntry
from vigil.table import Change, Table
from vigil.table_commands import (
    ForeignId,
    HistoryReset,
    KeyRotate,
    Kind,
    Name,
    Notes,
    SystemName,
    TableArchive,
    TableCreate,
    TableDelete,
    TableExport,
    TableImport,
    TableList,
    TokenList,
    TokenMint,
    TokenRevoke,
    Undo,
    Visibility,
)
from vigil.views import GM_AUDIENCE, PUBLIC_AUDIENCE, Audience

log = structlog.get_logger("vigil")
EXPORT_FORMAT = "vigil-table"


async def handle(hub: Hub, ws: ServerConnection) -> None:
    conn = Conn(ws=ws, tokens=float(hub.config.rate_burst), refilled=time.monotonic())
    expiry: asyncio.TimerHandle | None = None
    try:
        if not await _hello(hub, conn):
            return
        if conn.expires is not None:
            # A token's life ends its connections too, not only new hellos.
            delay = max(0.0, conn.expires - time.time())
            expiry = asyncio.get_running_loop().call_later(
                delay, lambda: asyncio.ensure_future(ws.close(CloseCode.TOKEN_EXPIRED, "token expired"))
            )
        async for frame in ws:
            if not _take_token(hub, conn):
                await _answer(conn, hub.error("rate_limited", {}, _peek_id(frame)))
                continue
            await _message(hub, conn, frame)
    except ConnectionClosed:
        pass
    finally:
        if expiry is not None:
            expiry.cancel()
        hub.unsubscribe(conn)


async def _answer(conn: Conn, data: bytes) -> None:
    with contextlib.suppress(ConnectionClosed):
        await conn.ws.send(data, text=True)


def _take_token(hub: Hub, conn: Conn) -> bool:
    """Token bucket: ``rate_per_s`` sustained, ``rate_burst`` at once."""
    now = time.monotonic()
    conn.tokens = min(
        float(hub.config.rate_burst), conn.tokens + (now - conn.refilled) * hub.config.rate_per_s
    )
    conn.refilled = now
    if conn.tokens < 1:
        return False
    conn.tokens -= 1
    return True


async def _hello(hub: Hub, conn: Conn) -> bool:
    try:
        frame = await asyncio.wait_for(conn.ws.recv(), hub.config.hello_timeout)
    except (TimeoutError, ConnectionClosed):
        await conn.ws.close(CloseCode.HELLO_EXPECTED, "hello expected")
        return False
    try:
        msg = client_decoder.decode(frame)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        await _refuse_hello(hub, conn, "bad_message", {"reason": str(exc)})
        return False
    if not isinstance(msg, Hello):
        await _refuse_hello(hub, conn, "hello_first", {})
        return False
    if msg.protocol != PROTOCOL_VERSION:
        await _refuse_hello(hub, conn, "bad_protocol", {"server": PROTOCOL_VERSION, "client": msg.protocol})
        return False
    try:
        claims = hub.authenticate(msg.token)
    except auth.TokenError as exc:
        await _refuse_hello(hub, conn, exc.code, {})
        return False
    conn.role, conn.token_id, conn.label = claims.role, claims.token_id, claims.label
    conn.expires = claims.expires
    conn.chars = frozenset(claims.chars)
    if claims.role == "operator":
        await _answer(
            conn,
            encoder.encode(
                Welcome(
                    protocol=PROTOCOL_VERSION,
                    server=_version(),
                    role="operator",
                    token_id=claims.token_id,
                )
            ),
        )
        return True
    host = hub.hosts[claims.table]
    if host.record.archived and claims.role != "gm":
        await _refuse_hello(hub, conn, "archived", {})
        return False
    conn.table = claims.table
    conn.audience = {"gm": GM_AUDIENCE, "spectator": PUBLIC_AUDIENCE}.get(
        claims.role, Audience("player", conn.chars)
    )
    await _answer(
        conn,
        encoder.encode(
            Welcome(
                protocol=PROTOCOL_VERSION,
                server=_version(),
                role=claims.role,
                table=claims.table,
                characters=sorted(conn.chars),
                token_id=claims.token_id,
            )
        ),
    )
    resume = None
    if msg.resume is not None and msg.resume.table == claims.table:
        resume = (msg.resume.epoch, msg.resume.rev)
    try:
        hub.subscribe(host, conn, resume)
    except Refused as exc:
        await _refuse_hello(hub, conn, exc.code, exc.params, close=CloseCode.TRY_AGAIN_LATER)
        return False
    structlog.contextvars.bind_contextvars(table=conn.table, token=conn.token_id)
    log.info("connected", role=conn.role)
    return True


async def _refuse_hello(
    hub: Hub, conn: Conn, code: str, params: dict[str, Any], close: CloseCode = CloseCode.REFUSED
) -> None:
    await _answer(conn, hub.error(code, params, None))
    await conn.ws.close(close, code)


def _version() -> str:
    from vigil import __version__

    return f"vigil/{__version__}"


async def _message(hub: Hub, conn: Conn, frame: str | bytes) -> None:
    try:
        msg = client_decoder.decode(frame)
    except msgspec.ValidationError as exc:
        code, params = refusal(str(exc))
        await _answer(conn, hub.error(code, params, _peek_id(frame)))
        return
    except msgspec.DecodeError as exc:
        await _answer(conn, hub.error("bad_message", {"reason": str(exc)}, _peek_id(frame)))
        return
    if isinstance(msg, Ping):
        await _answer(conn, encoder.encode(Pong(id=msg.id)))
    elif isinstance(msg, Hello):
        await _answer(conn, hub.error("bad_message", {"reason": "already said hello"}, None))
    elif isinstance(msg, HistoryQuery):
        await _guarded(hub, conn, msg.id, _history(hub, conn, msg))
    elif isinstance(msg, Cmd):
        await _guarded(hub, conn, msg.id, _command(hub, conn, msg))


async def _guarded(hub: Hub, conn: Conn, msg_id: str, work: Any) -> None:
    """Run one request; every failure becomes an error answer."""
    try:
        reply = await work
    except Refused as exc:
        log.info("refused", code=exc.code)
        reply = hub.error(exc.code, exc.params, msg_id)
    except RuleError as exc:
        log.info("refused", code=exc.code, rule=exc.rule)
        reply = hub.error(exc.code, exc.params, msg_id, exc.english())
    except Exception:
        log.exception("internal_error", msg=msg_id)
        reply = hub.error("internal", {}, msg_id)
    if reply:
        await _answer(conn, reply)


def _peek_id(frame: str | bytes) -> str | None:
    try:
        data = msgspec.json.decode(frame)
    except msgspec.DecodeError:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and len(value) <= 64 else None


def _host_for(hub: Hub, conn: Conn, table: str | None) -> TableHost:
    table_id = table or conn.table
    if conn.role != "operator" and table_id != conn.table:
        raise Refused("wrong_table")
    host = hub.hosts.get(table_id or "")
    if host is None:
        raise Refused("unknown_table", table=table_id)
    return host


async def _command(hub: Hub, conn: Conn, msg: Cmd) -> bytes:
    body = msg.body
    tag = type(body).__struct_config__.tag
    plain = msgspec.to_builtins(body)
    structlog.contextvars.bind_contextvars(cmd=str(tag), msg=msg.id)
    if not permissions.allowed(conn.role, conn.chars, str(tag), plain):
        raise Refused("forbidden")
    result: Any = None
    match body:
        case TableCreate():
            host = await hub.create_table(body.system, body.name, body.options, body.id)
            result = _created(hub, host)
        case TableImport():
            result = await _import(hub, body)
        case TableList():
            result = [_table_info(h) for h in hub.hosts.values()]
        case TableDelete():
            host = _host_for(hub, conn, body.table)
            async with host.lock:
                await asyncio.to_thread(hub.store.delete, host.record.id)
                for other in list(host.conns()):
                    await other.ws.close(CloseCode.TABLE_DELETED, "table deleted")
                if host.timer:
                    host.timer.cancel()
                hub.hosts.pop(host.record.id, None)
        case _:
            host = _host_for(hub, conn, msg.table)
            return await _table_command(hub, conn, host, msg)
    return encoder.encode(Ack(id=msg.id, result=result))


def _check_targets(conn: Conn, host: TableHost, body: dict[str, Any]) -> None:
    """A player may name only characters it may see: its own, or ones shown
    to it in full or by status. A hidden or unknown id gets the same
    ``forbidden``, so a player can neither probe nor touch what it cannot
    see (DESIGN "Visibility")."""
    if conn.role != "player":
        return
    seen = host.views.get((conn.audience or PUBLIC_AUDIENCE).key, {}).get("characters", {})
    for name in permissions.TARGET_FIELDS:
        value = body.get(name)
        if isinstance(value, str) and value not in conn.chars and value not in seen:
            raise Refused("forbidden")


async def _table_command(hub: Hub, conn: Conn, host: TableHost, msg: Cmd) -> bytes:
    body = msg.body
    result: Any = None
    if host.record.archived and conn.role not in ("gm", "operator"):
        raise Refused("archived")
    _check_targets(conn, host, msgspec.to_builtins(body))
    match body:
        case TokenMint():
            missing = [c for c in body.chars if c not in host.table.state.characters]
            if missing:
                raise RuleError("unknown_character", char=missing[0])
            if body.role == "player" and not body.chars:
                raise Refused("bad_message", reason="a player token needs characters")
            token, record = hub.mint(host, body.role, body.chars, body.label, body.ttl_days)
            result = {
                "token": token,
                "token_id": record.token_id,
                "expires": record.expires,
                "url": _url(hub, body.role, token),
            }
        case TokenList():
            result = [msgspec.to_builtins(t) for t in host.tokens.values()]
        case TokenRevoke():
            if body.token_id not in host.tokens:
                raise Refused("bad_message", reason="unknown token id")
            await asyncio.to_thread(hub.store.revoke, host.record.id, body.token_id)
            host.tokens[body.token_id].revoked = True
            for other in list(host.conns()):
                if other.token_id == body.token_id:
                    await other.ws.close(CloseCode.TOKEN_REVOKED, "token revoked")
        case KeyRotate():
            host.record.key = auth.new_key()
            await asyncio.to_thread(hub.store.set_key, host.record.id, host.record.key)
            for token_id in list(host.tokens):
                await asyncio.to_thread(hub.store.revoke, host.record.id, token_id)
                host.tokens[token_id].revoked = True
            token, record = hub.mint(host, "gm", [], "gm", None)
            for other in list(host.conns()):
                if other is not conn:
                    await other.ws.close(CloseCode.TOKEN_REVOKED, "key rotated")
            result = {"token": token, "token_id": record.token_id}
        case TableArchive():
            await asyncio.to_thread(hub.store.set_archived, host.record.id, body.archived)
            host.record.archived = body.archived
            if body.archived:  # an archived table is the GM's alone
                for other in list(host.conns()):
                    if other.role != "gm":
                        await other.ws.close(CloseCode.TABLE_ARCHIVED, "table archived")
        case TableExport():
            result = await _export(hub, host)
        case HistoryReset():
            async with host.lock:
                table = host.table
                table.reset_epoch()
                await asyncio.to_thread(hub.store.reset, table.id, table.epoch, table.doc)
                host.record.epoch = table.epoch
                host.replay.clear()
                for key, audience in host.audiences.items():
                    host.views[key] = table.view(audience)
                for other in list(host.conns()):
                    hub.send_snapshot(host, other)
            result = {"epoch": host.table.epoch}
        case Undo():
            stack = host.table.doc.get("undo", [])
            if not stack:
                raise RuleError("nothing_to_undo")
            entry = await asyncio.to_thread(hub.store.entry, host.table.id, host.table.epoch, stack[-1])
            await hub.run(host, conn.actor, lambda t, w, c: _undo(t, c, entry), _acker(hub, conn, msg))
            return b""
        case _:
            await hub.run(host, conn.actor, lambda t, w, c: t.prepare(body, w, c), _acker(hub, conn, msg))
            return b""
    return encoder.encode(Ack(id=msg.id, rev=host.table.rev, result=result))


def _acker(hub: Hub, conn: Conn, msg: Cmd) -> Callable[[Change], None]:
    def ack(change: Change) -> None:
        hub.send(conn, encoder.encode(Ack(id=msg.id, rev=change.rev, result=change.result)))

    return ack


def _undo(table: Table, ctx: Any, entry: LogEntry | None) -> Change:
    """Compensate the newest undoable GM change; ``entry`` was read before
    the lock, so it must still be the top of the stack."""
    stack = table.doc.get("undo", [])
    if not stack or entry is None or entry.rev != stack[-1] or entry.epoch != table.epoch:
        raise RuleError("undo_conflict", rev=stack[-1] if stack else 0)
    return table.undo_change(entry.ops, entry.inverse, entry.rev, ctx.actor.id, 0.0)


def _url(hub: Hub, role: str, token: str) -> str:
    page = "/watch" if role == "spectator" else "/"
    return f"{hub.config.base_url}{page}#token={token}"


def _created(hub: Hub, host: TableHost) -> dict[str, Any]:
    token, record = hub.mint(host, "gm", [], "gm", None)
    return {
        "table": host.record.id,
        "gm_token": token,
        "token_id": record.token_id,
        "url": _url(hub, "gm", token),
    }


def _table_info(host: TableHost) -> dict[str, Any]:
    return {
        "id": host.record.id,
        "system": host.record.system,
        "name": host.table.name,
        "archived": host.record.archived,
        "epoch": host.table.epoch,
        "rev": host.table.rev,
        "characters": len(host.table.state.characters),
    }


async def _export(hub: Hub, host: TableHost) -> dict[str, Any]:
    table = host.table
    entries = await asyncio.to_thread(hub.store.history, table.id, table.epoch, None, 10**9)
    return {
        "format": EXPORT_FORMAT,
        "version": 1,
        "table": {**_table_info(host)},
        "doc": table.doc,
        "history": [msgspec.to_builtins(e) for e in reversed(entries)],
    }


class CharacterMetaDoc(msgspec.Struct, kw_only=True):
    name: Name
    kind: Kind = "pc"
    visibility: Visibility = "full"
    notes: Notes = ""
    actor_id: ForeignId | None = None
    token_id: ForeignId | None = None


class ExportedDoc(msgspec.Struct, kw_only=True):
    """The table document of an export, checked whole before an import."""

    name: Name
    system: SystemName
    state: dict[str, Any]
    meta: dict[str, CharacterMetaDoc]
    clock: Anchor
    settings: dict[str, bool] = {}
    undo: list[int] = []


async def _import(hub: Hub, body: TableImport) -> dict[str, Any]:
    document = body.document
    try:
        if document.get("format") != EXPORT_FORMAT:
            raise ValueError("not a vigil-table export")
        doc = msgspec.convert(document["doc"], ExportedDoc)
        system = SYSTEMS[doc.system]
        state = msgspec.convert(doc.state, system.table_type)
        system.validate(state)
        if set(doc.meta) - set(state.characters):
            raise ValueError("names for characters that do not exist")
        name = doc.name
        plain = {**msgspec.to_builtins(doc), "undo": []}
    except (KeyError, TypeError, ValueError, msgspec.ValidationError) as exc:
        raise Refused("bad_document", reason=str(exc)) from None
    except RuleError as exc:
        raise Refused("bad_document", reason=exc.english()) from None
    host = await hub.create_table(system.name, name, {}, body.id, doc=plain)
    return _created(hub, host)


async def _history(hub: Hub, conn: Conn, msg: HistoryQuery) -> bytes:
    host = _host_for(hub, conn, msg.table)
    if conn.role == "operator":
        raise Refused("forbidden")
    table = host.table
    entries = await asyncio.to_thread(hub.store.history, table.id, table.epoch, msg.before, msg.limit)
    undone = {int(e.events[0]["params"]["rev"]) for e in entries if e.kind == "undo" and e.events}
    view = host.views.get((conn.audience or PUBLIC_AUDIENCE).key) or table.view(
        conn.audience or PUBLIC_AUDIENCE
    )
    hidden = set(table.state.characters) - set(view["characters"]) - set(conn.chars)
    page = [_visible_entry(e, conn, view, e.rev in undone, hidden) for e in entries]
    next_before = entries[-1].rev if len(entries) == msg.limit else None
    return encoder.encode(
        HistoryPage(id=msg.id, table=table.id, epoch=table.epoch, entries=page, next_before=next_before)
    )


# Table-level events (no character) that any viewer may read; the rest of
# them (options, corrections of table fields…) are the GM's.
PUBLIC_TABLE_EVENTS = frozenset(
    {
        "combat_started",
        "combat_ended",
        "round_advanced",
        "clock_changed",
        "clock_auto_paused",
        "clock_halted",
        "session_started",
        "session_ended",
    }
)


# Event parameters about kit contents: like the sheet's kits, only for the
# GM and the character's own player (DESIGN "Visibility").
KIT_PARAMS = frozenset({"kit", "kit_uses"})


def _mentions(value: Any, ids: set[str]) -> bool:
    if isinstance(value, str):
        return value in ids
    if isinstance(value, dict):
        return any(_mentions(k, ids) or _mentions(v, ids) for k, v in value.items())
    if isinstance(value, list):
        return any(_mentions(v, ids) for v in value)
    return False


def _visible_entry(
    entry: LogEntry, conn: Conn, view: dict[str, Any], undone: bool, hidden: set[str]
) -> HistoryEntry:
    """The history obeys the view: hidden characters' events are dropped,
    status-only characters' events lose their numbers, an event that names
    a hidden character (a helper, a healer) loses its parameters and text,
    table-level events are public only when listed, commands are GM-only."""
    is_gm = conn.role == "gm"
    events: list[dict[str, Any]] = []
    for event in entry.events:
        char = event.get("char")
        if is_gm:
            events.append(event)
            continue
        if char is None:
            if event.get("code") not in PUBLIC_TABLE_EVENTS:
                continue
        elif char not in conn.chars and char not in view["characters"]:
            continue
        seen = view["characters"].get(char) if char is not None else None
        status_only = char is not None and char not in conn.chars and "sheet" not in (seen or {})
        kits = char not in conn.chars and bool(KIT_PARAMS & set(event.get("params", {})))
        if status_only or kits or _mentions(event.get("params"), hidden):
            # Numbers, kit contents or hidden names: the bare event only.
            events.append({k: event[k] for k in ("code", "at", "char", "rule") if k in event})
        else:
            events.append(event)
    return HistoryEntry(
        rev=entry.rev,
        at=entry.game,
        wall=entry.wall,
        actor=entry.actor if is_gm else entry.actor.split("#")[0],
        kind=entry.kind,
        events=events,
        command=entry.command if is_gm else None,
        undone=undone,
    )
