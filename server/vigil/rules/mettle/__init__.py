"""Pain & Mettle (rules MET-01…MET-20 in ``shared/rules/mettle.md``).

One module per concept of the rule text: the Cast Lot and checks, pain and
Test Your Mettle, healing, dying and stabilizing, rattle, injuries, rest.
``system.SYSTEM`` ties them to the engine.
"""
