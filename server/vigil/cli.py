"""The ``vigil`` command: serve, token, table, schema, rules-doc, verify."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from vigil import dice_verify, event_loop
from vigil.auth import TABLE_ROLES
from vigil.config import Config
from vigil.logs import LOG_LEVELS
from vigil.protocol import PROTOCOL_VERSION
from vigil.rules.games import GAMES
from vigil.store.base import OpenError

STORE_HELP = "where the data is: a postgresql:// URL, or empty for the SQLite file in --data-dir (default)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vigil", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)

    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", dest="address")
    serve.add_argument("--port", type=int)
    serve.add_argument("--data-dir", type=Path)
    serve.add_argument("--store", help=STORE_HELP)
    serve.add_argument("--durability", choices=["normal", "full"])
    serve.add_argument("--public-url", help="URL browsers use to reach Vigil (printed links)")
    serve.add_argument(
        "--origin",
        action="append",
        dest="origins",
        help="allowed browser Origin (repeat); default any",
    )
    serve.add_argument("--no-demo", action="store_const", const=False, dest="demo")
    serve.add_argument("--log-format", choices=["auto", "json", "console"])
    serve.add_argument("--log-level", choices=list(LOG_LEVELS))
    serve.add_argument("--event-loop", choices=list(event_loop.LOOPS))
    serve.add_argument(
        "--metrics-port", type=int, help="serve Prometheus metrics at /metrics on this port (default: off)"
    )
    serve.add_argument(
        "--metrics-host", dest="metrics_address", help="address of the metrics listener (default 127.0.0.1)"
    )
    serve.add_argument("--bus", help="redis://HOST:PORT/DB: run as one node of a cluster (needs --store)")
    serve.add_argument("--node-id", help="this node's name in a cluster (default: host name and port)")
    serve.add_argument(
        "--lease-seconds", type=float, help="a table's lease on its node, seconds (default 10)"
    )

    token = sub.add_parser("token", help="mint an access token (works offline)")
    token.add_argument("--data-dir", type=Path)
    token.add_argument("--store", help=STORE_HELP)
    token.add_argument("--operator", action="store_true")
    token.add_argument("--table")
    token.add_argument("--role", choices=TABLE_ROLES, default="gm")
    token.add_argument("--chars", default="")
    token.add_argument("--label", default="")
    token.add_argument("--days", type=float)

    table = sub.add_parser("table", help="manage tables on a running server")
    table_sub = table.add_subparsers(dest="action", required=True)
    create = table_sub.add_parser("create")
    create.add_argument("--system", required=True, choices=list(GAMES))
    create.add_argument("--name", required=True)
    create.add_argument("--id")
    create.add_argument("--url", default="ws://127.0.0.1:8765/ws")
    create.add_argument("--data-dir", type=Path)
    create.add_argument("--store", help=STORE_HELP)

    schema = sub.add_parser("schema", help="write the JSON Schemas, the code and command catalogues")
    schema.add_argument("--out", type=Path, default=Path("schemas"))
    schema.add_argument(
        "--module",
        type=Path,
        help="where to write the command catalogue's ES module "
        "(default: foundry-module/scripts/core/catalogue.js when that folder exists)",
    )

    rules_doc = sub.add_parser("rules-doc", help="write the rules reference pages (docs/rules/)")
    rules_doc.add_argument("--out", type=Path, default=Path("docs/rules"))

    verify = sub.add_parser(
        "verify", help="verify every die of a table export or downloaded history (offline; docs/dice.md)"
    )
    verify.add_argument("file", type=Path)

    args = parser.parse_args(argv)
    if args.cmd == "verify":
        return _verify(args.file)
    if args.cmd == "serve":
        return _serve(args)
    if args.cmd == "token":
        return _token(args)
    if args.cmd == "table":
        return asyncio.run(_table_create(args))
    if args.cmd == "rules-doc":
        return _rules_doc(args.out)
    return _schema(args.out, args.module)


def _verify(path: Path) -> int:
    """Print a line per roll; exit 0 when nothing failed, 1 when something
    did (a face, a seed, a commitment or the order differs), 2 when the
    file is not a history."""
    try:
        source = dice_verify.read(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"vigil verify: {path}: {exc}", file=sys.stderr)
        return 2
    findings = dice_verify.verify(source)
    for finding in findings:
        print(dice_verify.sentence(finding))
    failed = sum(f.failed for f in findings)
    verified = sum(f.status == "verified" for f in findings)
    unverifiable = sum(f.status in dice_verify.UNVERIFIABLE for f in findings)
    print(f"{verified} verified, {unverifiable} not verifiable, {failed} failed.")
    return 1 if failed else 0


def _config(args: argparse.Namespace, names: list[str]) -> Config:
    return Config.from_env({n: getattr(args, n, None) for n in names})


def _serve(args: argparse.Namespace) -> int:
    from vigil import logs
    from vigil.net.app import run

    config = _config(
        args,
        [
            "address",
            "port",
            "data_dir",
            "store",
            "durability",
            "public_url",
            "origins",
            "demo",
            "log_format",
            "log_level",
            "event_loop",
            "metrics_port",
            "metrics_address",
            "bus",
            "node_id",
            "lease_seconds",
        ],
    )
    try:
        config.check()
        event_loop.factory(config.event_loop)
    except ValueError as exc:
        print(f"vigil serve: {exc}", file=sys.stderr)
        return 2
    logs.configure(config.log_format, LOG_LEVELS[config.log_level])
    try:
        event_loop.run(run(config), config.event_loop)
    except OpenError as exc:
        print(f"vigil serve: {exc}", file=sys.stderr)
        return 2
    return 0


def _token(args: argparse.Namespace) -> int:
    from vigil import table, tokens
    from vigil.store import open_store

    config = _config(args, ["data_dir", "store"])
    try:
        store = open_store(config.store, config.db_path, config.durability)
    except OpenError as exc:
        print(f"vigil token: {exc}", file=sys.stderr)
        return 2
    try:
        if args.operator:
            print(tokens.operator_token(store))
            return 0
        records = {r.id: r for r in store.tables()}
        if args.table not in records:
            print(f"no table {args.table!r}; tables: {', '.join(records) or 'none'}", file=sys.stderr)
            return 2
        days = config.token_days(args.role) if args.days is None else args.days
        chars = [c for c in args.chars.split(",") if c]
        incarnations = table.incarnations(store.load(args.table).doc)
        unknown = [c for c in chars if c not in incarnations]
        if unknown:
            print(f"no character {unknown[0]!r} at table {args.table!r}", file=sys.stderr)
            return 2
        token, _ = tokens.issue(
            store, records[args.table].key, args.table, args.role, chars, args.label, days, incarnations
        )
        print(token)
        return 0
    finally:
        store.close()


async def _table_create(args: argparse.Namespace) -> int:
    from websockets.asyncio.client import connect

    operator = _capture(
        lambda: _token(argparse.Namespace(data_dir=args.data_dir, store=args.store, operator=True))
    )
    async with connect(args.url) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL_VERSION, "token": operator}))
        await ws.recv()
        body: dict[str, Any] = {"type": "table.create", "system": args.system, "name": args.name}
        if args.id:
            body["id"] = args.id
        await ws.send(json.dumps({"type": "cmd", "id": "1", "body": body}))
        reply = json.loads(await ws.recv())
    print(json.dumps(reply.get("result", reply), indent=2))
    return 0 if reply.get("type") == "ack" else 1


def _capture(fn: Any) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue().strip()


def _schema(out: Path, module: Path | None) -> int:
    from vigil.schema_files import CATALOGUE_MODULE, write_all

    if module is None and CATALOGUE_MODULE.parent.is_dir():
        module = CATALOGUE_MODULE
    for path in write_all(out, module):
        print(path)
    return 0


def _rules_doc(out: Path) -> int:
    from vigil.rules_doc import write_all

    for path in write_all(out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
