"""MET-01…MET-20: what the engine does for each rule, and every Decision.

The modules of this package name these ids; their docstrings point here for
the Decisions instead of restating them (see :mod:`vigil.rules.reference`).
"""

from __future__ import annotations

from vigil.rules.reference import Practice, Rule, RuleBook, Section

_CHECK = "vigil.rules.mettle.check"
_PAIN = "vigil.rules.mettle.pain"
_CONDITIONS = "vigil.rules.mettle.conditions"
_DYING = "vigil.rules.mettle.dying"
_RATTLE = "vigil.rules.mettle.rattle"
_INJURIES = "vigil.rules.mettle.injuries"
_REST = "vigil.rules.mettle.rest"
_SYSTEM = "vigil.rules.mettle.system"

RULE_BOOK = RuleBook(
    game="mettle",
    title="Pain & Mettle",
    prefix="MET",
    source=(
        "Pain & Mettle's rules for Pain, Test Your Mettle, Rattle, Injuries and Rest. The text "
        "refers to parts of its game that it does not define (the Cast Lot, CRIT, Effort, Stride, "
        "Hindrance, Kits); those enter the engine as command inputs or table options."
    ),
    state=(
        "Each character has mettle (at least 1), pain, rattle, its injuries (each tracked on its own, "
        "with an id, a label and a penalty of at least 1), a status (active, unconscious, dying or "
        "departed), whether it is stabilized and when it departs, its rest progress, leftover Effort "
        "toward rattle, uses left per kit, and discipline levels (survival, ingenuity, lore, "
        "intuition, or any other name). The table has the clock and whether it is in combat."
    ),
    sections=(
        Section(
            title="Checks and the Cast Lot",
            intro=(
                "Every check of the game (Test Your Mettle, a stabilize attempt, a GM's check) goes "
                "through one function, so all apply the same penalties and the same reading of the lot."
            ),
            rules=(
                Rule(
                    id="MET-01",
                    title="Check",
                    does=(
                        "A check passes when stat + modifiers − rattle − injury penalty is at least "
                        "the target number (TN), unless the Cast Lot says otherwise. The GM may ask "
                        "for any check: Test Your Mettle of anyone not departed, any other check only "
                        "of a character able to act."
                    ),
                    code=(_CHECK, _SYSTEM),
                ),
                Rule(
                    id="MET-02",
                    title="Cast Lot",
                    does=(
                        "Each check has a lot: crit passes whatever the numbers, fail fails whatever "
                        "the numbers, plain leaves the bare comparison."
                    ),
                    decisions=(
                        "The text does not say how lots are cast, so the GM submits the lot the table "
                        "cast with the command that causes the check (pain, a stabilize attempt, any "
                        "check); without one the lot is plain. With table option `lot_weights` the "
                        "server draws the lot instead, and with `manual_dice` the GM may submit the "
                        "lots drawn at the table by number (0 crit, 1 plain, 2 fail).",
                    ),
                    options=("lot_weights", "manual_dice"),
                    code=(_CHECK,),
                ),
                Rule(
                    id="MET-03",
                    title="Injury penalty",
                    does=(
                        "The sum of all injury penalties applies to every check, Test Your Mettle "
                        "included, once: it is subtracted from the roll, never also added to the TN."
                    ),
                    code=(_CHECK,),
                ),
                Rule(
                    id="MET-04",
                    title="Rattle penalty",
                    does=(
                        "Current rattle is subtracted from every check, offensive and defensive "
                        "maneuver and passive defense, except Test Your Mettle."
                    ),
                    code=(_CHECK,),
                ),
            ),
        ),
        Section(
            title="Pain and Test Your Mettle",
            rules=(
                Rule(
                    id="MET-05",
                    title="Taking pain",
                    does=(
                        "Any pain above 0 is added to pain and triggers Test Your Mettle (TYM): a "
                        "check of mettle against the new total pain, with the injury penalty and "
                        "without rattle. New pain also interrupts rest (MET-17)."
                    ),
                    code=(_PAIN,),
                ),
                Rule(
                    id="MET-06",
                    title="Failing TYM while active",
                    does=(
                        "An active character that fails becomes unconscious when pain is at most "
                        "mettle, or dying when pain is above mettle: not stabilized, departing in "
                        "mettle minutes."
                    ),
                    code=(_PAIN, _CONDITIONS),
                ),
                Rule(
                    id="MET-07",
                    title="Unconscious",
                    does=(
                        "An unconscious character cannot perceive or act: shaking off rattle, "
                        "spending Effort, helping to stabilize and checks other than TYM are refused. "
                        "New pain: a crit wakes it, a plain pass leaves it unconscious, a fail makes "
                        "it dying when pain is above mettle."
                    ),
                    code=(_PAIN, _SYSTEM, _DYING),
                ),
                Rule(
                    id="MET-08",
                    title="Waking",
                    does=(
                        "Any reduction of pain (healing or rest) that leaves pain below mettle wakes "
                        "an unconscious character. Healing never takes pain below 0."
                    ),
                    decisions=("Pain equal to mettle keeps the character unconscious.",),
                    code=(_PAIN, _CONDITIONS),
                ),
                Rule(
                    id="MET-09",
                    title="Dying",
                    does=(
                        "A dying character is unconscious and cannot act. New pain triggers TYM: a "
                        "pass (in practice only a crit) keeps it dying with its deadline and "
                        "stabilization unchanged; a fail makes it departed."
                    ),
                    code=(_PAIN,),
                ),
                Rule(
                    id="MET-10",
                    title="Dying clock",
                    does=(
                        "Not stabilized, the character departs mettle minutes after it began dying; "
                        "stabilized, mettle days after it was stabilized. When the clock passes that "
                        "time it departs, whether or not anyone is connected."
                    ),
                    code=(_DYING, _CONDITIONS, _SYSTEM),
                ),
                Rule(
                    id="MET-11",
                    title="Stabilize",
                    does=(
                        "An attempt names a helper able to act, one of its disciplines (survival, "
                        "ingenuity, lore or intuition), a kit with uses left and the TN; one kit use "
                        "is spent, pass or fail. On a pass the dying character is stabilized and "
                        "departs mettle days from now. The GM may also stabilize directly (herbs, "
                        "magic, successful healing aid)."
                    ),
                    decisions=(
                        "Read literally, an attempt lasting the dying character's pain in minutes "
                        "could never finish before the spirit leaves (dying means pain above "
                        "mettle). So the check resolves when the attempt starts, and the helper is "
                        "then busy for the dying character's current pain in minutes of clock time: "
                        "it cannot start another attempt, on anyone, until they have passed.",
                        "The helper's own injury and rattle penalties apply to its check, and a "
                        "discipline it has no level in counts as 0.",
                        "The TN is the GM's input: given with the command, or else table option "
                        "`stabilize_tn`, so that a player can still make the attempt as the helper; "
                        "with neither, the attempt is refused.",
                    ),
                    options=("stabilize_tn",),
                    code=(_DYING, _SYSTEM),
                ),
                Rule(
                    id="MET-12",
                    title="Healing while dying",
                    does=(
                        "Healing a dying character that is not stabilized is wasted: pain does not "
                        "change, and the history says so. Once stabilized, healing works: pain below "
                        "mettle wakes it, pain equal to mettle leaves it unconscious, pain above "
                        "mettle leaves it dying, stabilized, with the same deadline. Leaving dying "
                        "clears the stabilization and the deadline."
                    ),
                    code=(_PAIN, _CONDITIONS),
                ),
                Rule(
                    id="MET-20",
                    title="Departed",
                    does=(
                        "Final: pain, healing and rest have no effect, rest ends, and every command "
                        "naming the character is refused; only a GM correction or revive (rare "
                        "supernatural healing) leaves it."
                    ),
                    code=(_CONDITIONS, _SYSTEM),
                ),
            ),
        ),
        Section(
            title="Rattle",
            intro=(
                "Rattle is stored as a value and the clock time it was last set, so clients draw it "
                "falling without a message per second."
            ),
            rules=(
                Rule(
                    id="MET-13",
                    title="Shake it off",
                    does=(
                        "Spending N Effort on shaking off removes N rattle (not below 0); it is the "
                        "character's whole action, refused when it cannot act or is not rattled. "
                        "Effort spent on any other activity removes 1 rattle per 4 Effort; the "
                        "leftover carries over and is dropped when rattle reaches 0."
                    ),
                    decisions=("Effort spent while not rattled does not bank toward later rattle.",),
                    code=(_SYSTEM, _RATTLE),
                ),
                Rule(
                    id="MET-14",
                    title="Out of combat",
                    does=(
                        "While the table is not in combat, rattle wears off at 1 per whole second of "
                        "clock time; in combat it stops, and it resumes when combat ends. The server "
                        "records one event when it reaches 0."
                    ),
                    code=(_RATTLE, _SYSTEM),
                ),
                Rule(
                    id="MET-15",
                    title="Rattle is one number",
                    does=(
                        "Rattle received adds to it and relief lowers it, never below 0. New rattle "
                        "interrupts rest (MET-17)."
                    ),
                    code=(_RATTLE, _SYSTEM),
                ),
            ),
        ),
        Section(
            title="Injuries and recovery",
            intro=(
                "Rest hours and respites count from the clock time the rest began, so they fall at "
                "the same clock times whether the clock runs or jumps ahead."
            ),
            rules=(
                Rule(
                    id="MET-16",
                    title="Injuries",
                    does=(
                        "Each injury is tracked on its own, with its own penalty and an id that is "
                        "never reused. Esoteric means may remove a whole injury by id, or lower its "
                        "penalty (at 0 it is removed)."
                    ),
                    code=(_INJURIES,),
                ),
                Rule(
                    id="MET-17",
                    title="Adequate rest",
                    does=(
                        "Rest starts and stops by command (player or GM); combat starting does not "
                        "stop it. A resting character loses 1 pain per full hour of rest. Strenuous "
                        "activity (moving under a Hindrance penalty or faster than Stride, as the GM "
                        "or player reports) and any new pain, rattle or injury interrupt it: the "
                        "current hour and the respite count start over, and pain already recovered "
                        "stays recovered. Checks and other downtime activity do not interrupt it "
                        "unless they cause pain, rattle or an injury."
                    ),
                    code=(_REST, _SYSTEM),
                ),
                Rule(
                    id="MET-18",
                    title="Respite",
                    does=(
                        "After 24 hours of rest, each injury's penalty drops by 1 and an injury at 0 "
                        "is removed, while pain keeps dropping 1 per hour; continued rest counts "
                        "toward the next respite."
                    ),
                    decisions=(
                        '"A full 24 hours of Adequate Rest" is read as uninterrupted: an '
                        "interruption (MET-17) starts the 24 hours over.",
                    ),
                    code=(_REST,),
                ),
                Rule(
                    id="MET-19",
                    title="Recovery wakes",
                    does=(
                        "Pain lowered by rest follows MET-08 and MET-12: it can wake the character, "
                        "and a rest hour of a dying character that is not stabilized is wasted."
                    ),
                    code=(_REST, _CONDITIONS),
                ),
            ),
        ),
    ),
    practices=(
        Practice(
            title="Kits and disciplines",
            does=(
                "The GM sets how many uses each of a character's kits has and its discipline levels; "
                "a stabilize attempt (MET-11) reads and spends them."
            ),
            code=(_SYSTEM,),
        ),
    ),
)
