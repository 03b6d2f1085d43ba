"""What each command does: the operator's (tables), a table's
administration (tokens, key, archive, export, history), and everything
else — the rules' commands and the table's own — through the writer.

Every command is checked against the permission table first. Whatever
changes a table is an :class:`~vigil.net.writer.Edit` run by the writer,
admin ones included: it orders, commits and fans out each of them alike.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog

from vigil import auth, permissions, tokens
from vigil.changes import LogEntry
from vigil.close_codes import CloseCode
from vigil.export import BadDocument, export, read_export, table_info
from vigil.history_view import history_page
from vigil.net import metrics, routing
from vigil.net.errors import Refused
from vigil.net.host import Peer, TableHost
from vigil.net.hub import Hub
from vigil.net.relay import Reply
from vigil.net.writer import Acker, Closing, Edit, GivenUp
from vigil.protocol import Ack, Cmd, HistoryPage, HistoryQuery, LegalMoves, LegalQuery, encoder
from vigil.rules.outcome import RuleError
from vigil.store.base import Store
from vigil.table_commands import (
    HistoryReset,
    KeyRotate,
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
)

# How many pages' worth of log one history request reads at most, looking
# for entries a player or spectator may read.
HISTORY_SCAN = 10


async def command(hub: Hub, conn: Peer, msg: Cmd) -> bytes:
    """Run one command; its answer (empty: the ack was sent in order with
    the patches the command caused)."""
    body = msg.body
    tag = str(type(body).__struct_config__.tag)
    plain = msgspec.to_builtins(body)
    structlog.contextvars.bind_contextvars(cmd=tag, msg=msg.id)
    if not permissions.allowed(conn.role, conn.chars, tag, plain):
        raise Refused("forbidden")
    result: Any = None
    match body:
        case TableCreate():
            host = await hub.create_table(body.system, body.name, body.options, body.id)
            result = await _created(hub, host)
        case TableImport():
            result = await _import(hub, body)
        case TableList():
            result = await _tables(hub)
        case TableDelete():
            host = host_for(hub, conn, routing.target(msg))
            await hub.writer.run(host, _delete(hub, host, conn))
        case _:
            reply = await _table_command(hub, conn, host_for(hub, conn, routing.target(msg)), msg, plain)
            metrics.ACCEPTED[tag].inc()
            return reply
    metrics.ACCEPTED[tag].inc()
    return encoder.encode(Ack(id=msg.id, result=result))


async def _tables(hub: Hub) -> list[dict[str, Any]]:
    """Every table: this node's in full; a cluster's others as the store
    knows them (their rev and characters are their owners' to know)."""
    listed = [table_info(h.table, h.record.archived) for h in hub.hosts.values()]
    listed += [
        {
            "id": r.id,
            "system": r.system,
            "name": r.name,
            "archived": r.archived,
            "epoch": r.epoch,
            "rev": None,
            "characters": None,
        }
        for r in await hub.placement.others()
    ]
    return listed


def host_for(hub: Hub, conn: Peer, table: str | None) -> TableHost:
    """The table a request names (its own, for any token but the operator's).
    A connection's own table given up here since it joined (another node
    took it, or its truth is in doubt: the connection is being closed 1013)
    is :class:`GivenUp`: the request is dropped, and its client sends it
    again where the table is served now. Only a table that does not exist
    (or was deleted) is ``unknown_table``."""
    table_id = table or conn.table
    if conn.role != "operator" and table_id != conn.table:
        raise Refused("wrong_table")
    host = hub.hosts.get(table_id or "")
    joined = conn.host
    if joined is not None and host is not joined and not joined.deleted:
        raise GivenUp()
    if host is None:
        raise Refused("unknown_table", table=table_id)
    return host


async def _table_command(hub: Hub, conn: Peer, host: TableHost, msg: Cmd, plain: dict[str, Any]) -> bytes:
    body = msg.body
    table = host.table
    result: Any = None
    if host.record.archived and conn.role not in ("gm", "operator"):
        raise Refused("archived")
    if conn.role == "player":
        seen = table.seen_by(conn.watching)["characters"]
        if not permissions.may_target(conn.chars, plain, seen):
            raise Refused("forbidden")
    match body:
        case TokenMint():
            missing = [c for c in body.chars if c not in table.state.characters]
            if missing:
                raise RuleError("unknown_character", char=missing[0])
            if body.role == "player" and not body.chars:
                raise Refused("bad_message", reason="a player token needs characters")
            token, record = await hub.access.mint(host, body.role, body.chars, body.label, body.ttl_days)
            url = hub.config.page_url(body.role, token)
            result = {"token": token, "token_id": record.token_id, "expires": record.expires, "url": url}
        case TokenList():
            await hub.access.read_tokens(host)
            result = [msgspec.to_builtins(t) for t in host.tokens.values()]
        case TokenRevoke():
            if body.token_id not in host.tokens:
                await hub.access.read_tokens(host)
            if body.token_id not in host.tokens:
                raise Refused("bad_message", reason="unknown token id")
            await hub.writer.run(host, _revoke(host, conn, body.token_id))
        case KeyRotate():
            edit, result = _rotate(hub, host, conn)
            await hub.writer.run(host, edit)
        case TableArchive():
            await hub.writer.run(host, _archive(host, conn, body.archived))
        case TableExport():
            result = export(table, host.record.archived, await hub.history.all(host))
        case HistoryReset():
            await hub.writer.run(host, _reset(host, conn))
            result = {"epoch": table.epoch}
        case Undo():
            top = table.next_undo()
            if top is None:
                raise RuleError("nothing_to_undo")
            entry = await hub.history.entry(host, top)
            edit = Edit(
                actor=conn.actor,
                make=lambda t, w, c: t.undo(entry, c),
                request=routing.request_key(conn.token_id, conn.session, msg.id),
            )
            await hub.writer.run(host, edit, _acker(conn, msg))
            return b""
        case _:
            edit = Edit(
                actor=conn.actor,
                make=lambda t, w, c: t.prepare(body, w, c, plain),
                request=routing.request_key(conn.token_id, conn.session, msg.id),
            )
            await hub.writer.run(host, edit, _acker(conn, msg))
            return b""
    return encoder.encode(Ack(id=msg.id, rev=table.rev, result=result))


def _acker(conn: Peer, msg: Cmd) -> Acker:
    """The ack of ``msg`` once its change is durable: the writer sends it
    with the patches of that change (FanOut.publish)."""

    def ack(rev: int, result: Any) -> Reply:
        return Reply(conn, msg.id, encoder.encode(Ack(id=msg.id, rev=rev, result=result)))

    return ack


# -- admin edits: durable beyond the log, then kept, then connections ended ------


def _delete(hub: Hub, host: TableHost, conn: Peer) -> Edit:
    table_id = host.record.id
    return Edit(
        actor=conn.actor,
        advance=False,
        write=lambda store: store.delete(table_id),
        keep=lambda: hub.drop(host),
        close=Closing(CloseCode.TABLE_DELETED, "table deleted", lambda other: True),
    )


def _revoke(host: TableHost, conn: Peer, token_id: str) -> Edit:
    table_id = host.record.id

    def keep() -> None:
        host.tokens[token_id].revoked = True

    return Edit(
        actor=conn.actor,
        advance=False,
        write=lambda store: store.revoke(table_id, token_id),
        keep=keep,
        close=Closing(CloseCode.TOKEN_REVOKED, "token revoked", lambda other: other.token_id == token_id),
    )


def _rotate(hub: Hub, host: TableHost, conn: Peer) -> tuple[Edit, dict[str, Any]]:
    """A new signing key: every token of the table dies, the sender stays
    connected and gets a new GM token."""
    table_id = host.record.id
    key = auth.new_key()
    dead = list(host.tokens)
    gm = tokens.new_record(table_id, "gm", [], "gm", hub.config.token_days("gm"))

    def write(store: Store) -> None:
        store.set_key(table_id, key)
        for token_id in dead:
            store.revoke(table_id, token_id)
        store.add_token(gm)

    def keep() -> None:
        host.record.key = key
        for token_id in dead:
            host.tokens[token_id].revoked = True
        host.tokens[gm.token_id] = gm

    edit = Edit(
        actor=conn.actor,
        advance=False,
        write=write,
        keep=keep,
        close=Closing(CloseCode.TOKEN_REVOKED, "key rotated", lambda other: other is not conn),
    )
    return edit, {"token": tokens.sign(key, gm), "token_id": gm.token_id}


def _archive(host: TableHost, conn: Peer, archived: bool) -> Edit:
    table_id = host.record.id

    def keep() -> None:
        host.record.archived = archived

    # An archived table is the GM's alone.
    closing = Closing(CloseCode.TABLE_ARCHIVED, "table archived", lambda other: other.role != "gm")
    return Edit(
        actor=conn.actor,
        advance=False,
        write=lambda store: store.set_archived(table_id, archived),
        keep=keep,
        close=closing if archived else None,
    )


def _reset(host: TableHost, conn: Peer) -> Edit:
    """A new epoch: the log emptied, the state kept (the store is given the
    table as the new epoch starts it)."""
    table = host.table
    return Edit(
        actor=conn.actor,
        advance=False,
        new_epoch=True,
        write=lambda store: store.reset(table.id, table.epoch, table.doc),
    )


# -- tables and history -----------------------------------------------------------


async def _created(hub: Hub, host: TableHost) -> dict[str, Any]:
    token, record = await hub.access.mint(host, "gm", [], "gm", None)
    return {
        "table": host.record.id,
        "gm_token": token,
        "token_id": record.token_id,
        "url": hub.config.page_url("gm", token),
    }


async def _import(hub: Hub, body: TableImport) -> dict[str, Any]:
    try:
        imported = read_export(body.document)
    except BadDocument as exc:
        raise Refused("bad_document", reason=str(exc)) from None
    host = await hub.create_table(imported.system.name, imported.name, {}, body.id, doc=imported.doc)
    return await _created(hub, host)


async def legal(hub: Hub, conn: Peer, msg: LegalQuery) -> bytes:
    """The moves this connection is offered in the table's current state
    (vigil.moves), found once per state for everyone who asks."""
    host = host_for(hub, conn, msg.table)
    if conn.role == "operator":
        raise Refused("forbidden")
    table = host.table
    offered = table.legal(conn.watching)
    return encoder.encode(
        LegalMoves(id=msg.id, table=table.id, epoch=table.epoch, rev=table.rev, legal=offered)
    )


async def history(hub: Hub, conn: Peer, msg: HistoryQuery) -> bytes:
    """A page of the table's history as this connection's viewer may read it."""
    host = host_for(hub, conn, msg.table)
    if conn.role == "operator":
        raise Refused("forbidden")
    table = host.table
    # A player's or spectator's page leaves out the entries it may read
    # nothing of, so the log is read on until the page is full, for at most
    # HISTORY_SCAN pages' worth of entries (a page may then hold fewer
    # than ``limit``; ``next_before`` says where the next one starts).
    entries: list[LogEntry] = []
    before = msg.before
    for _ in range(HISTORY_SCAN):
        batch = await hub.history.page(host, before, msg.limit)
        entries += batch
        before = batch[-1].rev if len(batch) == msg.limit else None
        if before is None or len(history_page(entries, table, conn.viewer)) >= msg.limit:
            break
    page = history_page(entries, table, conn.viewer)
    next_before = before
    if len(page) > msg.limit:
        page = page[: msg.limit]
        next_before = page[-1].rev
    return encoder.encode(
        HistoryPage(id=msg.id, table=table.id, epoch=table.epoch, entries=page, next_before=next_before)
    )
