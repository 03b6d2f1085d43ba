"""Pain & Mettle (rules MET-01…MET-20, listed with every Decision in
``rule_book.py``; ``docs/rules/mettle.md`` is generated from it).

One module per concept of the rule text: the Cast Lot and checks, pain and
Test Your Mettle, healing, dying and stabilizing, rattle, injuries, rest.
``system.SYSTEM`` ties them to the engine.
"""
