"""Rules options for one Harmonies set-up: player count, board side, mountain table, variants.

Options are where RULES.md leaves a choice (or names a variant); every default is the reading
documented in ``data/README.md``. :func:`resolve_mountain_points` turns the ``mountain_points``
option (a preset name from ``scoring.toml`` or a list of 3 points) into the table to use.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.errors import InputError
from sim.games.harmonies.data import SIDE_NAMES, GameData


@dataclass(frozen=True)
class HarmoniesRules:
    """The options of one game set-up.

    ``players``: 1 (solo) to 4. ``side``: "A" (river) or "B" (islands), the same for everyone.
    ``mountain_points``: ``None`` (the table in ``scoring.toml``, the rulebook's 1/3/7), a preset
    name from ``[mountain_points_presets]`` (e.g. "seed-text" = 1/2/3) or 3 integers.
    ``spirits``: the nature spirit variant (off by default).
    """

    players: int = 4
    side: str = "A"
    mountain_points: str | tuple[int, int, int] | list[int] | None = None
    spirits: bool = False


def validate_rules(rules: HarmoniesRules, data: GameData) -> None:
    """Check the options against the data; one-line InputError naming the option on a fault."""
    if rules.players not in data.player_counts:
        known = ", ".join(str(p) for p in sorted(data.player_counts))
        raise InputError(
            f"rules option 'players': {rules.players} is not a player count of "
            f"{data.sources['setup']} ({known})"
        )
    if rules.side not in SIDE_NAMES:
        raise InputError(f"rules option 'side': {rules.side!r} is not A or B")
    if not isinstance(rules.spirits, bool):
        raise InputError("rules option 'spirits': must be true or false")
    if rules.spirits and len(data.spirits) < 2 * rules.players:
        raise InputError(
            f"rules option 'spirits': {data.sources['spirits']} has {len(data.spirits)} spirit "
            f"cards, fewer than 2 per player"
        )
    resolve_mountain_points(rules, data)


def resolve_mountain_points(rules: HarmoniesRules, data: GameData) -> tuple[int, int, int]:
    """The mountain points table (height 1, 2, 3) that ``rules.mountain_points`` selects."""
    option = rules.mountain_points
    if option is None:
        return data.scoring.mountain_points
    if isinstance(option, str):
        presets = data.scoring.mountain_points_presets
        if option not in presets:
            known = ", ".join(sorted(presets)) or "none"
            raise InputError(
                f"rules option 'mountain_points': {option!r} is not a preset of "
                f"{data.sources['scoring']} ({known}) nor a list of 3 integers"
            )
        return presets[option]
    values = tuple(option)
    if len(values) != 3 or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
    ):
        raise InputError(
            f"rules option 'mountain_points': {list(values)!r} must be 3 integers >= 0"
        )
    return values  # type: ignore[return-value]
