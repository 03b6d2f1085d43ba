"""One WebSocket connection: hello, then commands, history and pings.

Every frame is decoded by the typed decoder; anything it refuses, anything
the permission table refuses and anything the rules refuse becomes an
``error`` answer, and nothing changes. No input ends this loop except the
connection closing. What a request does is :mod:`vigil.net.requests`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import msgspec
import structlog
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from vigil import __version__, auth, tokens
from vigil.close_codes import CloseCode
from vigil.net import admission, metrics, rate, requests, routing
from vigil.net.errors import Refused, error_message
from vigil.net.host import Conn, Peer, RemoteConn, TableHost
from vigil.net.hub import Hub
from vigil.net.writer import GivenUp
from vigil.plain_errors import refusal
from vigil.protocol import (
    PROTOCOL_VERSION,
    Hello,
    HistoryQuery,
    LegalQuery,
    Ping,
    Pong,
    TableRequest,
    Welcome,
    client_decoder,
    encoder,
)
from vigil.rules.outcome import RuleError
from vigil.store.base import TokenRecord, Unavailable

log = structlog.get_logger("vigil")
SERVER = f"vigil/{__version__}"


async def handle(hub: Hub, ws: ServerConnection) -> None:
    conn = Conn(ws=ws, sockets=hub.fanout, bucket=rate.full(hub.config.rate_burst, time.monotonic()))
    expiry: asyncio.TimerHandle | None = None
    connected = None
    try:
        if not await _hello(hub, conn):
            return
        connected = metrics.CONNECTED[conn.role]
        connected.inc()
        if conn.expires is not None:
            # A token's life ends its connections too, not only new hellos.
            delay = max(0.0, conn.expires - time.time())
            expiry = asyncio.get_running_loop().call_later(
                delay, lambda: asyncio.ensure_future(ws.close(CloseCode.TOKEN_EXPIRED, "token expired"))
            )
        await _serve(hub, conn)
    except ConnectionClosed:
        pass
    finally:
        if connected is not None:
            connected.dec()
        if expiry is not None:
            expiry.cancel()
        hub.unsubscribe(conn)


async def _serve(hub: Hub, conn: Conn) -> None:
    """Read frames until the connection closes. Requests are handled one at
    a time, in order, by a worker of their own (an answer never overtakes
    the one before it); a ping is answered as it is read, so that a client
    waiting on a slow request (one forwarded to another node, the store
    slow) still learns its connection is alive. At most ``QUEUED`` frames
    wait: past that, reading waits too (the client's own backpressure)."""
    queue: asyncio.Queue[Request | bytes | None] = asyncio.Queue(QUEUED)
    worker = asyncio.create_task(_work(hub, conn, queue))
    cancelled = False
    try:
        async for frame in conn.ws:
            passed, conn.bucket = rate.take(
                conn.bucket, time.monotonic(), hub.config.rate_per_s, hub.config.rate_burst
            )
            if not passed:
                await _answer(conn, error_message("rate_limited", {}, _peek_id(frame)))
                continue
            decoded = _decode(frame)
            if isinstance(decoded, Ping):
                await _answer(conn, encoder.encode(Pong(id=decoded.id)))
            else:
                await queue.put(decoded)
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        if cancelled:
            worker.cancel()
        elif not worker.done():
            # What was read is still handled (as it was when each request
            # was awaited in this loop), then the connection leaves.
            await queue.put(None)
            await asyncio.shield(worker)


async def _work(hub: Hub, conn: Conn, queue: asyncio.Queue[Request | bytes | None]) -> None:
    """The connection's requests, one after the other. A failure nothing
    answered (a bug) closes the connection 1011, as a handler's would."""
    while (decoded := await queue.get()) is not None:
        try:
            if isinstance(decoded, bytes):
                await _answer(conn, decoded)
            else:
                await _message(hub, conn, *decoded)
        except Exception:
            log.exception("connection_failed")
            await conn.ws.close(CloseCode.INTERNAL_ERROR, "internal error")
            return


# A request read, with its frame (forwarded as it came to another node).
Request = tuple[TableRequest | Hello, bytes]
# The most frames a connection may have read and not yet handled.
QUEUED = 64


def _decode(frame: str | bytes) -> Ping | Request | bytes:
    """What a frame is (pure: no state, no I/O): a ping, a request, or the
    error answer to a frame that is no request."""
    try:
        msg = client_decoder.decode(frame)
    except msgspec.ValidationError as exc:
        # A well-formed message with a bad value: said in plain words, with
        # the field it is about (plain_errors), so a page can mark that field.
        code, params = refusal(str(exc))
        return error_message(code, params, _peek_id(frame))
    except (msgspec.DecodeError, RecursionError) as exc:
        return error_message("bad_message", {"reason": admission.reason(exc)}, _peek_id(frame))
    if isinstance(msg, Ping):
        return msg
    return msg, frame.encode() if isinstance(frame, str) else frame


async def _answer(conn: Conn, data: bytes) -> None:
    await conn.sockets.reply(conn, data)


async def _hello(hub: Hub, conn: Conn) -> bool:
    try:
        frame = await asyncio.wait_for(conn.ws.recv(), hub.config.hello_timeout)
    except (TimeoutError, ConnectionClosed):
        await conn.ws.close(CloseCode.HELLO_EXPECTED, "hello expected")
        return False
    greeting = admission.read_hello(frame)
    if isinstance(greeting, admission.Refusal):
        await _refuse_hello(conn, greeting)
        return False
    msg, scope = greeting.hello, greeting.scope
    if scope != auth.OPERATOR_SCOPE and not hub.placement.serves(scope):
        # Another node's table (or nobody's yet): attached to its owner.
        refused = await hub.placement.hello(conn, msg, scope)
        if refused is None:
            _bind(conn)
            return True
        if refused != "local":
            await _refuse_hello(conn, admission.refused(refused))
            return False
    refusal = await enter(hub, conn, msg.token, greeting.resume, msg.session)
    if refusal is not None:
        close, code, data = refusal
        await _answer(conn, data)
        await conn.ws.close(close, code)
        return False
    _bind(conn)
    return True


def _bind(conn: Conn) -> None:
    structlog.contextvars.bind_contextvars(table=conn.table, token=conn.token_id)
    log.info("connected", role=conn.role)


async def enter(
    hub: Hub,
    peer: Peer,
    token: str,
    resume: tuple[int, int] | None,
    session: str,
    attached: Callable[[], None] | None = None,
) -> tuple[CloseCode, str, bytes] | None:
    """Let ``peer`` in with ``token`` (and its client's ``session``), on the
    node that owns its table (its own connection, or one another node
    holds): who it is, what it controls, its welcome, its place among the
    table's connections and its view brought up to date. None once it is
    in; else the close code, the code and the error answer it is refused
    with. ``attached`` hears of a remote connection taken, before its
    welcome is sent."""
    try:
        claims, record = await hub.access.authenticate(token)
    except auth.TokenError as exc:
        return CloseCode.REFUSED, exc.code, error_message(exc.code, {}, None)
    except Unavailable:  # a token id not known yet, and the store unreachable
        return CloseCode.TRY_AGAIN_LATER, "store_unavailable", error_message("store_unavailable", {}, None)
    peer.role, peer.token_id, peer.label = claims.role, claims.token_id, claims.label
    peer.expires = claims.expires
    peer.record = record
    peer.session = session
    if claims.role == "operator":
        welcome = Welcome(protocol=PROTOCOL_VERSION, server=SERVER, role="operator", token_id=claims.token_id)
        hub.fanout.send(peer, encoder.encode(welcome))
        return None
    host = hub.hosts.get(claims.table)
    if host is None:  # moved meanwhile
        return _unavailable()
    if not hub.placement.holding():
        # Its leases may have run out (it was paused or cut off): another
        # node may own the table by now, and its view here may be stale.
        return _unavailable()
    # Under the table's lock: an edit holds it from its change in memory to
    # its patches sent, so the view a newcomer is sent (a snapshot, or a
    # replay up to the table's rev) is of published revs only — never of an
    # edit still committing, whose patch would then come after the
    # snapshot that already had it (or be taken as replayed when it was
    # not), and which may yet fail.
    async with host.lock:
        if hub.hosts.get(claims.table) is not host:  # moved or deleted meanwhile
            return _unavailable()
        return _join(hub, host, peer, claims, record, resume, attached)


def _join(
    hub: Hub,
    host: TableHost,
    peer: Peer,
    claims: auth.Claims,
    record: TokenRecord,
    resume: tuple[int, int] | None,
    attached: Callable[[], None] | None,
) -> tuple[CloseCode, str, bytes] | None:
    """The rest of :func:`enter`, the table's lock held."""
    if host.record.archived and claims.role != "gm":
        return CloseCode.REFUSED, "archived", error_message("archived", {}, None)
    peer.table = claims.table
    peer.host = host
    # A player controls the characters its token was minted for, each in
    # the incarnation it was minted for (never a later one with its id).
    peer.chars = tokens.owned(record, host.table.incarnations()) if claims.role == "player" else frozenset()
    peer.audience = peer.viewer.audience
    welcome = Welcome(
        protocol=PROTOCOL_VERSION,
        server=SERVER,
        role=claims.role,
        table=claims.table,
        characters=sorted(peer.chars),
        token_id=claims.token_id,
    )
    try:
        # The welcome only once the table has a place for it (subscribe
        # admits again, nothing awaited since); a remote connection's node
        # hears it was taken first.
        hub.watching.make_room(host, peer)
        if attached is not None:
            attached()
        hub.watching.subscribe(host, peer, encoder.encode(welcome), resume)
    except Refused as exc:
        return CloseCode.TRY_AGAIN_LATER, exc.code, error_message(exc.code, exc.params, None)
    return None


def _unavailable() -> tuple[CloseCode, str, bytes]:
    """The refusal of a hello whose table is not served here now (moved, or
    this node's leases in doubt): try again (1013). Made only when sent:
    making an error answer counts it (vigil.net.errors)."""
    return CloseCode.TRY_AGAIN_LATER, "table_unavailable", error_message("table_unavailable", {}, None)


async def _refuse_hello(conn: Conn, refusal: admission.Refusal) -> None:
    await _answer(conn, error_message(refusal.code, refusal.params, None))
    await conn.ws.close(refusal.close, refusal.code)


async def _message(hub: Hub, conn: Conn, msg: TableRequest | Hello, data: bytes) -> None:
    """One request of a connection of this node, routed
    (:func:`vigil.net.routing.route`); a request for a table another node
    owns goes there (``data``: its frame)."""
    way = routing.route(
        msg, conn.role, conn.attached, conn.attached and hub.placement.remote(conn), hub.placement.serves
    )
    if isinstance(way, routing.Local):
        await _request(hub, conn, way.request)
    elif isinstance(way, routing.Forward):
        await hub.placement.forward(conn, way.id, data, way.table)
    elif isinstance(way, routing.Refuse):
        await _answer(conn, error_message("bad_message", {"reason": way.reason}, None))


async def dispatch(hub: Hub, peer: RemoteConn, frame: bytes) -> None:
    """A request another node forwarded for one of its connections to a
    table this node owns: run as this node's own connections' are."""
    try:
        msg = client_decoder.decode(frame)
    except admission.UNREADABLE:
        return  # the forwarding node decoded it already
    if isinstance(msg, TableRequest):
        await _request(hub, peer, msg)


async def _request(hub: Hub, conn: Peer, msg: TableRequest) -> None:
    if isinstance(msg, HistoryQuery):
        await _guarded(hub, conn, msg.id, requests.history(hub, conn, msg))
    elif isinstance(msg, LegalQuery):
        await _guarded(hub, conn, msg.id, requests.legal(hub, conn, msg))
    else:
        await _guarded(hub, conn, msg.id, requests.command(hub, conn, msg))


async def _guarded(hub: Hub, conn: Peer, msg_id: str, work: Awaitable[bytes]) -> None:
    """Run one request; every failure becomes an error answer. An empty
    reply means the answer was sent already (a command's ack, queued in
    order with the patches it caused), or that none is due (the table
    moved: the connection is closed and its client sends it again)."""
    try:
        reply = await work
    except GivenUp:
        return
    except Unavailable as exc:  # a read the store could not answer in time: nothing done
        log.warning("store_unavailable", error=str(exc))
        reply = error_message("store_unavailable", {}, msg_id)
    except Refused as exc:
        log.info("refused", code=exc.code)
        reply = error_message(exc.code, exc.params, msg_id)
    except RuleError as exc:
        log.info("refused", code=exc.code, rule=exc.rule)
        reply = error_message(exc.code, exc.params, msg_id, exc.english())
    except Exception:
        log.exception("internal_error", msg=msg_id)
        reply = error_message("internal", {}, msg_id)
    if reply:
        await conn.respond(msg_id, reply)


def _peek_id(frame: str | bytes) -> str | None:
    try:
        data = msgspec.json.decode(frame)
    except admission.UNREADABLE:
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and len(value) <= 64 else None
