"""Fields of players: named lineups that all play the same deals.

A balance finding made with one set of bots is a statement about those bots. A *field* is a
named lineup (``strong``: the strongest default in every seat; ``style``: a documented variant
of it; ``mixed``: strong strategies rotating through the seats; ``casual``: greedy), and a
fields run plays every field on the same deals (the same master seed, deals and replicates, so
deal ``d`` is the same shuffle in every field: common random numbers). The report then judges
every headline in every field and says whether it holds for other players
(``sim.stats.field_findings``).

A field is written ``NAME`` (one the game declares in ``Game.field_lineups``; ``default`` is
the game's ``default_fields``) or ``NAME=LINEUP``, where LINEUP is one strategy for every seat
(``expert:space=6,fade=3``), one per seat joined by ``+`` (``expert+greedy+greedy+greedy``), or
``pool:`` and strategies joined by ``+`` (``pool:expert+planner``: they rotate through the
seats). In a config: ``fields = ["strong", "casual", "mine=pool:expert+greedy"]``; on the
command line: ``--field strong --field casual``. Fields become the last axis (``field``) of a
sweep (``sim.sweep``): every field is one batch folder in ``points/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.errors import InputError, did_you_mean
from sim.games.base import Game

FIELD_AXIS = "field"
DEFAULT = "default"
POOL_PREFIX = "pool:"
SEAT_SEPARATOR = "+"


@dataclass(frozen=True)
class FieldSpec:
    """One field: its name, its lineup as written, and the config fields that play it."""

    name: str
    lineup: str
    description: str = ""

    @property
    def rotate(self) -> bool:
        """True when the lineup is a pool rotating through the seats."""
        return self.lineup.startswith(POOL_PREFIX)

    @property
    def strategies(self) -> list[str]:
        """The strategies as written: per seat, one for every seat, or the pool."""
        text = self.lineup[len(POOL_PREFIX):] if self.rotate else self.lineup
        return [part.strip() for part in text.split(SEAT_SEPARATOR)]

    def config_overrides(self) -> dict[str, Any]:
        """What the field sets in a batch config (``pool`` or ``strategies``)."""
        return {"pool" if self.rotate else "strategies": self.strategies}

    def lineup_text(self) -> str:
        """The lineup in words, e.g. "expert in every seat", "pool expert, planner (rotating)"."""
        names = self.strategies
        if self.rotate:
            return f"{', '.join(names)} rotating through the seats"
        if len(names) == 1:
            return f"{names[0]} in every seat"
        return ", ".join(f"seat {seat} {name}" for seat, name in enumerate(names, start=1))


# A field's name is part of its point's folder name and a report column: this long at most.
MAX_FIELD_NAME_CHARACTERS = 100


def _check_name(name: str, where: str) -> str:
    # A field's name becomes part of a folder name and a report column.
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        shown = repr(name) if len(name) <= 40 else f"{name[:40]!r}..."
        raise InputError(f"{where}: field name {shown} must be letters, digits, '-' or '_'")
    if len(name) > MAX_FIELD_NAME_CHARACTERS:
        raise InputError(f"{where}: field name {name[:40]!r}... is {len(name)} characters "
                         f"long; at most {MAX_FIELD_NAME_CHARACTERS}")
    return name


def declared_fields(game: Game) -> dict[str, FieldSpec]:
    """The fields the game declares, by name."""
    return {name: FieldSpec(name, lineup, why) for name, lineup, why in game.field_lineups}


def parse_field(text: Any, game: Game, where: str) -> list[FieldSpec]:
    """One entry of ``fields`` / ``--field``: ``NAME``, ``default`` or ``NAME=LINEUP``."""
    if not isinstance(text, str):
        raise InputError(f"{where}: expected a field such as \"strong\" or "
                         f"\"mine=pool:expert+greedy\", got {text!r}")
    known = declared_fields(game)
    name, equals, lineup = text.strip().partition("=")
    name = name.strip()
    if not equals:
        if name == DEFAULT:
            if not game.default_fields:
                raise InputError(f"{where}: {game.name} declares no default fields; name them "
                                 f"as NAME=LINEUP")
            return [known[field] for field in game.default_fields]
        if name not in known:
            offered = ", ".join([*known, DEFAULT]) or "none"
            raise InputError(f"{where}: {name!r} is not a field {game.name} declares"
                             f"{did_you_mean(name, list(known))} (declared: {offered}; or "
                             f"give NAME=LINEUP)")
        return [known[name]]
    _check_name(name, where)
    lineup = lineup.strip()
    spec = FieldSpec(name, lineup, "")
    if not lineup or any(not part for part in spec.strategies):
        raise InputError(f"{where}: field {name!r} needs a lineup after '=': a strategy, "
                         f"strategies joined by '+', or pool: and strategies joined by '+'")
    return [spec]


def parse_fields(entries: Any, game: Game, where: str) -> list[FieldSpec]:
    """Every field of a config's ``fields`` array or of the ``--field`` options, in order; at
    least two distinct names (a finding is judged across fields)."""
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{where}: expected a non-empty array of fields, e.g. "
                         f"[\"strong\", \"casual\"]")
    specs: list[FieldSpec] = []
    for index, entry in enumerate(entries):
        for spec in parse_field(entry, game, f"{where}[{index}]"):
            if any(other.name == spec.name for other in specs):
                raise InputError(f"{where}: field {spec.name!r} is named twice")
            specs.append(spec)
    if len(specs) < 2:
        raise InputError(f"{where}: give at least two fields (a finding is judged across "
                         f"fields), got {len(specs)}")
    return specs


def field_from_config(name: str, config: dict[str, Any]) -> FieldSpec:
    """The field a batch config (a manifest's ``config``) played, as ``NAME=LINEUP`` writes it."""
    lineup = [str(label) for label in config.get("lineup", [])]
    if config.get("rotate"):
        return FieldSpec(name, POOL_PREFIX + SEAT_SEPARATOR.join(lineup))
    if len(set(lineup)) == 1:
        return FieldSpec(name, lineup[0])
    return FieldSpec(name, SEAT_SEPARATOR.join(lineup))
