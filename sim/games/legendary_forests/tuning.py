"""How Legendary Forests' tree supply is tuned (``sim tune-trees``, the short name of ``sim
tune-rules legendary-forests --parameter trees_per_colour_per_player``): the words for it, and
colour starvation, the criterion the game adds to fairness and skill.

Every extra tree is a component in the box, so the smallest supply meeting every criterion is
the one recommended. A supply starves the players when a colour they have a zone of is often
gone before their tree phase: ``tree_picks_constrained`` counts such tree phases per player
(``results``), ``tree_phases_without_tree`` those with no tree to place at all, and
``light_tiles_drawn`` is the tree phases a player had.
"""

from __future__ import annotations

from sim.games.base import RulesTuning, TuningCriterion, TuningShare

SUPPLY = "trees_per_colour_per_player"
TREE_PHASES = "light_tiles_drawn"

STARVATION_CONSTRAINED = TuningShare(
    name="starvation_constrained", numerator="tree_picks_constrained", denominator=TREE_PHASES,
    header="Constrained picks (95% CI)", figure_title="Colour starvation",
    figure_unit="tree phases (%)",
    figure_caption="Share of tree phases in which a colour the player had a zone of was already "
                   "gone from the supply",
    note="Constrained picks: tree phases in which a colour the player had a zone of was "
         "already gone from the supply.")
STARVATION_NO_TREE = TuningShare(
    name="starvation_no_tree", numerator="tree_phases_without_tree", denominator=TREE_PHASES,
    header="No tree possible (95% CI)", figure_title="No tree possible",
    figure_unit="tree phases (%)",
    figure_caption="Share of tree phases in which the player could place no tree")

# Constrained tree phases below 10%: a player who builds a zone should mostly find its colour.
UNSTARVED = TuningCriterion(
    share=STARVATION_CONSTRAINED.name, maximum=0.10, adjective="unstarved", noun="starvation",
    failure="starved (constrained tree phases shown at or above {maximum})",
    rule="unstarved (constrained tree phases below {maximum}, the interval's upper end)",
    relax="starvation below {maximum}",
    fact="colour starvation {value} of tree phases ({low}–{high})")

TREE_SUPPLY = RulesTuning(
    parameter=SUPPLY, name="tune-trees", label="trees per colour per player", noun="supply",
    plural="supplies", column="Supply", title="Tree supply tuning",
    metrics_heading="Tree supply metrics", shares=(STARVATION_CONSTRAINED, STARVATION_NO_TREE),
    criteria=(UNSTARVED,))

RULES_TUNINGS = (TREE_SUPPLY,)
