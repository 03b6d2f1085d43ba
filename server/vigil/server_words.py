"""English templates of the codes the server itself emits (beyond the rules)."""

from vigil.rules.words import register

register(
    {
        "undone": "The GM undoes change {rev}.",
        "character_updated": "{char}: {fields} changed.",
        "options_changed": "Table options changed: {options}.",
        "clock_changed": "The clock is {mode} at {rate}× (game time {game}).",
        "clock_auto_paused": "No GM is connected: the clock pauses.",
        "clock_halted": "The clock stopped: catching up would take too much work ({code}).",
        "dice_revealed": (
            "The dice seed of period {period} is revealed: its rolls can be verified. "
            "Period {next_period} is committed, fingerprint {next_fingerprint}."
        ),
    },
    {
        "undo_conflict": "Change {rev} cannot be undone: what it changed has changed since.",
        "nothing_to_undo": "There is nothing left to undo.",
        "not_following": "The clock is not following Foundry's world time.",
        "not_awaiting_gm": "The clock is not paused for want of a GM.",
        "forbidden": "You may not do that.",
        "bad_message": "That message could not be read: {reason}.",
        "bad_input": "{field}: {reason}.",
        "bad_token": "That access token is not valid.",
        "token_expired": "That access token has expired.",
        "token_revoked": "That access token has been revoked.",
        "unknown_table": "There is no table {table}.",
        "wrong_table": "Your token is for another table.",
        "table_full": "This table has too many connections.",
        "spectators_full": "This table has as many spectators as it takes.",
        "link_full": "This spectator link is open in too many places.",
        "rate_limited": "Too many messages; slow down.",
        "hello_first": "Say hello with a token first.",
        "bad_protocol": "This server speaks protocol {server}; the client speaks {client}.",
        "table_exists": "A table with id {table} already exists.",
        "bad_document": "That document is not a Vigil table export: {reason}",
        "shutting_down": "The server is shutting down.",
        "archived": "That table is archived.",
        "internal": "The server failed to apply that; nothing changed.",
        # Many nodes: the table's node went away while it applied a command
        # (clients send it again with the same id first: the owner applies
        # an id once), or the table is moving between nodes.
        "outcome_unknown": "The server could not tell if that was done; check the table before repeating.",
        "table_unavailable": "This table is moving to another server; nothing was done. Try again shortly.",
        # The servers' bus (Redis) is down: the command was not sent on.
        "bus_unavailable": "The servers cannot reach each other; nothing was done. Try again shortly.",
        # The database (PostgreSQL) did not answer in time: nothing was done.
        "store_unavailable": "The server cannot reach its database; nothing was done. Try again shortly.",
    },
)
