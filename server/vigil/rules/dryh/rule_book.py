"""DRYH-01…DRYH-25: what the engine does for each rule, and every Decision.

The modules of this package name these ids; their docstrings point here for
the Decisions instead of restating them (see :mod:`vigil.rules.reference`).
"""

from __future__ import annotations

from vigil.rules.reference import Practice, Rule, RuleBook, Section

_ROLL = "vigil.rules.dryh.roll"
_READING = "vigil.rules.dryh.reading"
_DOMINANCE = "vigil.rules.dryh.dominance"
_COINS = "vigil.rules.dryh.coins"
_CONSEQUENCES = "vigil.rules.dryh.consequences"
_RECOVERY = "vigil.rules.dryh.recovery"
_GUARDS = "vigil.rules.dryh.guards"
_SESSION = "vigil.rules.dryh.game_session"

RULE_BOOK = RuleBook(
    game="dryh",
    title='Don\'t Rest Your Head — "Mortal Coils"',
    prefix="DRYH",
    source=(
        'Don\'t Rest Your Head, as played with the house rules of the "Mortal Coils" table. Where '
        "the summary of those rules is silent, the core book's practice is used and marked as a "
        "Decision or made a table option."
    ),
    state=(
        "Each character has discipline (3 at the start), permanent madness (0), exhaustion (0), its "
        "fight and flight responses (how many of the `response_boxes` boxes of each are checked), a "
        "status (awake, crashed or nightmare; when several apply, nightmare beats crashed beats "
        "awake), a snapped mark, and the names of its exhaustion and madness talents (labels only). "
        "The table has the hope and despair coins (both start at 0; the GM may set them), the "
        "session, and the open rolls."
    ),
    sections=(
        Section(
            title="A conflict roll goes through phases",
            intro=(
                "A roll runs open → declared → rolled → adjusted → resolved, one command per step; a "
                "command in the wrong phase is refused with a clear error and changes nothing. The GM "
                "opens; the protagonist's player or the GM declares and rolls; after the roll the GM "
                "and the players may adjust until the GM resolves; a pending choice is made by that "
                "character's player or by the GM. The GM may cancel a roll before it is rolled (no "
                "effect); after that, only undo takes it back."
            ),
            rules=(
                Rule(
                    id="DRYH-01",
                    title="Open",
                    does=(
                        "The GM opens a challenge for one awake character: a number of pain dice "
                        "(0–30) and a kind, environmental or nightmare. Several characters of a "
                        "table may each have a roll open at once."
                    ),
                    decisions=(
                        "A character takes part in at most one open roll at a time, as protagonist "
                        "or as helper, so its dice, its exhaustion and its fallout always belong to "
                        "exactly one roll.",
                    ),
                    code=(_ROLL,),
                ),
                Rule(
                    id="DRYH-02",
                    title="Declare (before the roll)",
                    does=(
                        "Until the dice are rolled, the protagonist's player or the GM may set and "
                        "change the temporary madness (0–6), the once-per-roll +1 exhaustion and a "
                        "talent use (none, minor or major exhaustion talent, madness talent). A "
                        "second +1 in the same roll is refused; the +1 lands on exhaustion when the "
                        "dice are rolled, and can crash the character then (DRYH-17)."
                    ),
                    code=(_ROLL,),
                ),
                Rule(
                    id="DRYH-03",
                    title="Help",
                    does=(
                        "Another awake character that is in no other roll may join before the dice "
                        "are rolled, lending its discipline dice (at most 6 helpers), and may leave "
                        "again. House rule: help is refused on a nightmare challenge."
                    ),
                    code=(_ROLL,),
                ),
                Rule(
                    id="DRYH-04",
                    title="Pools",
                    does=(
                        "Rolling draws all discipline dice, all exhaustion dice after any +1, "
                        "permanent plus temporary madness dice, the pain dice, then each helper's "
                        "discipline dice in joining order; dice the GM submits by hand are taken in "
                        "that order. Temporary madness never changes permanent madness."
                    ),
                    code=(_ROLL,),
                ),
            ),
        ),
        Section(
            title="Reading the dice",
            intro=(
                "The reading (successes, degree, outcome, dominant pool) is stored with the roll and "
                "recomputed after the roll and after every adjustment, so clients never compute it."
            ),
            rules=(
                Rule(
                    id="DRYH-05",
                    title="Successes",
                    does=(
                        "Player successes are the dice showing 1, 2 or 3 in the discipline, "
                        "exhaustion and madness pools and in the helpers' dice; the GM's degree is "
                        "the pain dice showing 1–3. The roll succeeds when player successes meet or "
                        "beat the degree."
                    ),
                    code=(_READING,),
                ),
                Rule(
                    id="DRYH-06",
                    title="Strength",
                    does=(
                        "A pool's strength is its highest die; an empty pool has none and cannot "
                        "dominate. Helper dice never count for strength or dominance."
                    ),
                    code=(_DOMINANCE, _READING),
                ),
                Rule(
                    id="DRYH-07",
                    title="Dominance",
                    does=(
                        "The pool with the highest strength dominates. When no pool has a die, "
                        "nothing dominates and no dominance consequence applies."
                    ),
                    decisions=(
                        "On a tie (the summary is silent), the tied pools' dice are compared sorted "
                        "high to low, position by position, a missing die losing to any die; if "
                        "they are still equal, discipline beats madness, which beats exhaustion, "
                        "which beats pain. So discipline 6, 2 against pain 6, 1: discipline; "
                        "exhaustion 5, 5 against discipline 5, 4: exhaustion; discipline 5, 5 "
                        "against pain 5: discipline; discipline 4 against pain 4: discipline.",
                    ),
                    code=(_DOMINANCE,),
                ),
            ),
        ),
        Section(
            title="After the roll, before resolution",
            intro=(
                "Every coin spent on a rolled roll is listed with it, so the history shows each one "
                "and DRYH-10 can take the GM's spends back out."
            ),
            rules=(
                Rule(
                    id="DRYH-08",
                    title="GM despair spend",
                    does=(
                        "While the roll is rolled or adjusted, the GM may spend 1 despair to add a "
                        "die showing 6 to any of the four pools (an empty one included, never a "
                        "helper's dice) or to remove a 6 from one (refused when it has none). Each "
                        "spend moves the coin from despair to hope and may be repeated while "
                        "despair lasts, up to 64 dice in a pool."
                    ),
                    code=(_COINS,),
                ),
                Rule(
                    id="DRYH-09",
                    title="Hope: improve",
                    does=(
                        "Any player may spend 1 hope to add a die showing 1 to the protagonist's "
                        "discipline pool; it counts as a success and in tie-breaks."
                    ),
                    code=(_COINS,),
                ),
                Rule(
                    id="DRYH-10",
                    title="No-coin rule",
                    does=(
                        "If pain dominates only because of the GM's despair spends in this roll "
                        "(with every despair adjustment undone and the hope additions kept, pain "
                        "would not dominate), no coin is paid into despair for it, and the history "
                        "says so."
                    ),
                    code=(_COINS, _CONSEQUENCES),
                ),
            ),
        ),
        Section(
            title="Talents",
            rules=(
                Rule(
                    id="DRYH-11",
                    title="Minor exhaustion talent",
                    does=(
                        "Needs exhaustion of at least 1 before the roll; the roll's player "
                        "successes are then at least the exhaustion."
                    ),
                    decisions=(
                        "The requirement is checked against exhaustion before the declared +1, "
                        "which only lands when the dice are rolled.",
                        "For both exhaustion talents (this one and DRYH-12) the exhaustion that "
                        "counts is its level when the dice were rolled, after any +1: a hope spend "
                        "later in the roll does not change a talent already used.",
                    ),
                    code=(_ROLL, _READING),
                ),
                Rule(
                    id="DRYH-12",
                    title="Major exhaustion talent",
                    does=(
                        "Raises exhaustion by 1 when the dice are rolled, then adds the exhaustion "
                        "to the player successes. The increase can crash the character (DRYH-17), "
                        "and the roll still resolves."
                    ),
                    decisions=(
                        "The major talent is that roll's once-per-roll +1 exhaustion, so it never "
                        "stacks with a declared +1: declaring both raises exhaustion once, and "
                        "asking for a +1 on top of one already declared is refused.",
                    ),
                    code=(_ROLL, _READING, "vigil.rules.dryh.state"),
                ),
                Rule(
                    id="DRYH-13",
                    title="Madness talent",
                    does=(
                        "Needs 1–6 temporary madness dice, a number the GM chooses for the talent's "
                        "potency; the GM may amend the declared number before the roll."
                    ),
                    code=(_ROLL,),
                ),
            ),
        ),
        Section(
            title="Consequences on resolution",
            intro=(
                "The GM resolves a rolled roll. Consequences that need no choice apply at once; a "
                "choice (DRYH-14, DRYH-16, and each helper's under DRYH-20) waits in the roll, which "
                "stays resolved until the last choice is made and then leaves the table. The roll's "
                "full record, dice faces included, goes into the history."
            ),
            rules=(
                Rule(
                    id="DRYH-14",
                    title="Discipline dominates",
                    does=(
                        "The protagonist's player chooses: uncheck one response, exhaustion −1 (not "
                        "below 0), or nothing. Resolution waits for that choice."
                    ),
                    decisions=(
                        "When no response is checked and exhaustion is 0 there is nothing to "
                        "choose, so nobody is asked.",
                    ),
                    code=(_CONSEQUENCES,),
                ),
                Rule(
                    id="DRYH-15",
                    title="Exhaustion dominates",
                    does="Exhaustion +1, which may crash the character (DRYH-17).",
                    code=(_CONSEQUENCES,),
                ),
                Rule(
                    id="DRYH-16",
                    title="Madness dominates",
                    does=(
                        "The player checks one unchecked response of their choice, fight or flight, "
                        "and resolution waits for that choice; choosing a full kind is refused while "
                        "the other has room. With no unchecked response left, the character snaps "
                        "(DRYH-18)."
                    ),
                    decisions=(
                        "When only one kind still has an unchecked box, that one is checked without asking.",
                    ),
                    code=(_CONSEQUENCES,),
                ),
                Rule(
                    id="DRYH-17",
                    title="Crash",
                    does=(
                        "Whenever exhaustion goes above 6, an awake character becomes crashed "
                        "(asleep, or another serious defeat the GM narrates); a nightmare stays a "
                        "nightmare. A crashed character cannot open a roll, roll or help until the "
                        "GM wakes it (DRYH-24)."
                    ),
                    code=(_CONSEQUENCES, _GUARDS),
                ),
                Rule(
                    id="DRYH-18",
                    title="Snap",
                    does=(
                        "All responses are cleared, discipline −1, madness +1, and the character is "
                        'marked snapped (mad "for a time") until the GM clears the mark. At '
                        "discipline 0 it becomes a nightmare: an NPC that can no longer roll, help "
                        "or spend. That is the game's one final state: every command naming it is "
                        "refused."
                    ),
                    code=(_CONSEQUENCES, _RECOVERY, _GUARDS),
                ),
                Rule(
                    id="DRYH-19",
                    title="Pain dominates",
                    does="One coin is paid into despair, unless DRYH-10 applies.",
                    code=(_CONSEQUENCES,),
                ),
                Rule(
                    id="DRYH-20",
                    title="Helpers share the fallout",
                    does=(
                        "When exhaustion, madness or pain dominates, each helper suffers the same "
                        "consequence as the protagonist: exhaustion +1 each, or each checks a "
                        "response of its own choice or snaps. Discipline dominating gives helpers "
                        "nothing."
                    ),
                    decisions=(
                        "When pain dominates, one despair coin is paid per affected character: the "
                        "protagonist and each helper.",
                    ),
                    code=(_CONSEQUENCES,),
                ),
                Rule(
                    id="DRYH-21",
                    title="Failure consequences",
                    does=(
                        "With table option `failure_consequences` on, the GM resolving a failed "
                        "roll may also add +1 exhaustion or check one of the protagonist's "
                        "responses, but not the kind that dominated (core-book practice). Refused "
                        "when the option is off or the roll succeeded."
                    ),
                    decisions=(
                        "Checking a response counts as the madness kind of consequence and +1 "
                        "exhaustion as the exhaustion kind, so the first is refused when madness "
                        "dominated and the second when exhaustion did.",
                    ),
                    options=("failure_consequences",),
                    code=(_CONSEQUENCES,),
                ),
            ),
        ),
        Section(
            title="Coins outside a roll",
            rules=(
                Rule(
                    id="DRYH-22",
                    title="Hope spends",
                    does=(
                        "A player may spend 1 hope (the table's shared coins) to remove one "
                        "exhaustion from their own character or to uncheck one of its fight or "
                        "flight responses; the GM may do it for anyone. Refused when there is no "
                        "hope or nothing to remove."
                    ),
                    decisions=(
                        "A hope spend never wakes a crashed character, even when exhaustion drops "
                        "back to 6: only the GM does (DRYH-24).",
                    ),
                    code=(_RECOVERY,),
                ),
                Rule(
                    id="DRYH-23",
                    title="Recover discipline",
                    does=(
                        "A player may spend (5 − discipline) hope, never less than 1, to give their "
                        "character +1 discipline and −1 permanent madness. Refused when the "
                        "character has no permanent madness or the table lacks the coins."
                    ),
                    code=(_RECOVERY,),
                ),
                Rule(
                    id="DRYH-24",
                    title="Wake",
                    does=(
                        "The GM wakes a crashed character. With table option `wake_resets` on (the "
                        "default, core-book practice) exhaustion becomes 0 and every response is "
                        "unchecked; with it off, exhaustion is set to 6."
                    ),
                    options=("wake_resets",),
                    code=(_RECOVERY,),
                ),
                Rule(
                    id="DRYH-25",
                    title="End of session",
                    does=(
                        "When the GM ends the session, hope becomes 0 if table option "
                        "`hope_clears_at_session_end` is on, and the dice period's seed is revealed "
                        "(a new period committed) if `reveal_dice_at_session_end` is on."
                    ),
                    decisions=(
                        "The option is off by default: the Mortal Coils text never takes hope away, "
                        "so clearing the players' shared coins is left for a group to opt into.",
                        "The reveal is on by default: a session's end is when a group looks back at "
                        "its rolls, and a reveal then lets anyone verify them.",
                    ),
                    options=("hope_clears_at_session_end", "reveal_dice_at_session_end"),
                    code=(_SESSION,),
                ),
            ),
        ),
    ),
    practices=(
        Practice(
            title="Start of session",
            does=(
                "When the GM starts a session, the GM's despair gains `despair_per_player` coins per "
                "player character (core-book practice) and the session is numbered; starting one "
                "while one is running is refused."
            ),
            decisions=(
                "The coins are added to whatever despair is left, not reset.",
                "GM characters (marked as NPCs) and nightmares are not player characters and bring "
                "no despair.",
            ),
            options=("despair_per_player",),
            code=(_SESSION,),
        ),
        Practice(
            title="Response boxes",
            does=(
                "Each character has `response_boxes` boxes of fight and as many of flight (1–6); a "
                "correction or an option change that would leave more checked than there are boxes "
                "is refused."
            ),
            options=("response_boxes",),
            code=("vigil.rules.dryh.system", _CONSEQUENCES),
        ),
    ),
)
