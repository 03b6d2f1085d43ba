"""A request's address without a node: the table it is about, the key that
names it across reconnects, and every way a request read from one of this
node's connections can go (vigil.net.routing)."""

from __future__ import annotations

from vigil.net import routing
from vigil.protocol import Cmd, Hello, HistoryQuery, LegalQuery
from vigil.table_commands import TableCreate, TableDelete, TableImport, TableList, TokenList

HERE = {"here"}


def serves(table: str) -> bool:
    return table in HERE


def test_a_request_is_about_the_table_it_names() -> None:
    assert routing.target(HistoryQuery(id="h", table="t1")) == "t1"
    assert routing.target(LegalQuery(id="l", table="t2")) == "t2"
    assert routing.target(Cmd(id="c", table="t3", body=TokenList())) == "t3"


def test_table_delete_is_about_the_table_its_body_names() -> None:
    assert routing.target(Cmd(id="c", body=TableDelete(table="gone"))) == "gone"


def test_the_operators_commands_about_no_one_table_have_none() -> None:
    bodies = (TableCreate(system="dryh", name="Night"), TableImport(document={}), TableList())
    assert [routing.target(Cmd(id="c", body=body)) for body in bodies] == [None, None, None]


def test_a_command_is_named_by_its_token_session_and_id() -> None:
    assert routing.request_key("tok", "s1", "m7") == "tok/s1/m7"
    # Sent again from the same client, after a reconnect: the same name.
    assert routing.request_key("tok", "s1", "m7") == routing.request_key("tok", "s1", "m7")
    assert routing.request_key("tok", "s2", "m7") != routing.request_key("tok", "s1", "m7")


def test_a_client_naming_no_session_is_not_deduplicated() -> None:
    assert routing.request_key("tok", "", "m7") is None


def test_a_second_hello_is_refused() -> None:
    hello = Hello(protocol=1, token="x")
    for role, attached in (("gm", False), ("player", True), ("operator", False)):
        way = routing.route(hello, role, attached, attached, serves)
        assert way == routing.Refuse("already said hello")


def test_a_request_of_a_table_served_here_runs_here() -> None:
    msg = HistoryQuery(id="h", table="here")
    assert routing.route(msg, "gm", False, False, serves) == routing.Local(msg)


def test_a_connection_attached_elsewhere_forwards_to_its_tables_owner() -> None:
    msg = LegalQuery(id="l", table="far")
    assert routing.route(msg, "player", True, True, serves) == routing.Forward("l", None)


def test_a_connection_let_go_by_the_owner_drops_what_it_still_sends() -> None:
    msg = Cmd(id="c", table="far", body=TokenList())
    assert routing.route(msg, "player", True, False, serves) == routing.Drop()


def test_an_operators_request_for_another_nodes_table_goes_to_it() -> None:
    msg = Cmd(id="c", body=TableDelete(table="far"))
    assert routing.route(msg, "operator", False, False, serves) == routing.Forward("c", "far")


def test_an_operators_request_for_a_table_here_or_for_none_runs_here() -> None:
    for msg in (Cmd(id="c", body=TableDelete(table="here")), Cmd(id="d", body=TableList())):
        assert routing.route(msg, "operator", False, False, serves) == routing.Local(msg)


def test_only_an_operators_table_is_looked_up() -> None:
    """A table's own connection runs its requests here without asking
    where the table is served (its join asked already)."""
    asked: list[str] = []

    def recording(table: str) -> bool:
        asked.append(table)
        return False

    msg = HistoryQuery(id="h", table="far")
    assert routing.route(msg, "gm", False, False, recording) == routing.Local(msg)
    assert asked == []
