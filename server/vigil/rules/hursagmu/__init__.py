"""Hursagmu, chapter "Pain and Suffering" (rules HUR-01 … HUR-14, listed
with every Decision in ``rule_book.py``; ``docs/rules/hursagmu.md`` is
generated from it).

One module per concept of the chapter: the trait roll (roll.py), condition
thresholds and penalties (conditions.py, penalties.py), resisting damage
(resistance.py), resting off stuns (rest.py), daily recovery (recovery.py),
the healer (healing.py), poison (poison.py), falls (falls.py); system.py
wires them to the engine and exports ``SYSTEM``.
"""
