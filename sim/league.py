"""The league: a population of strategies rated by winning, on common deals.

Members: every built-in strategy at its defaults, every previous shipped default (a parameters
file in the ``defaults/`` folder of the game's strategy package; the member is named after the
file) and every documented variant (``Strategy.variants``, e.g. ``expert:space=0``). The game's
strongest strategy (``Strategy.strongest``) is the one whose default must top the league.

Design, every game on the deals ``0 .. D - 1`` of one seed, so that all pairings meet the same
luck (common random numbers):

1. **Head to head**: every pair of members plays two-strategy games with the seats rotated
   (``sim.tournament.play_rotations``: at 4 players A,B,A,B and B,A,B,A). The entry (a, b) of the
   matrix is a's **win share**: the share of those games won by a seat of a (the game's win
   share per seat: ties as the game breaks them, shared only when it leaves them tied), with a
   95% clustered Wilson interval by deal (``sim.stats.intervals.proportion_interval``).
2. **Mixed field** (3 or more players and more than 2 members): one rotated tournament of all
   members, as ``sim ladder`` plays it; each member's mean finishing position (1 + the seats
   that ranked above it, ties half) and win rate, 95% CIs by deal.
3. **Rating**: one Bradley-Terry fit (``sim.tournament.bradley_terry``) on the pairwise outcomes
   by rank within every game of both designs: a seat with a win share beats every seat without
   one (two seats sharing a win tie), and among the others the higher score wins (ties half).
   Elo scale, mean 0; 95% intervals from resampling deals, a deal of both designs being one
   cluster (``sim.tournament.rating_intervals``).
4. **The check**: the lower end of the strongest strategy's default's 95% interval must be >=
   50% against every previous default and every documented variant (shown to win at least half:
   no step back, no habit its variants punish), and no other member may be shown to beat it
   (the upper end of its interval below 50%). Against another member whose interval contains
   50% the pair is undecided: the check passes and names it, since a point estimate below or
   above 50% is a coin toss between equals, not evidence either way.

``league_document`` is the machine-readable result (``league.json``: sorted keys, no timings, so
the same inputs give the same bytes); ``check_document`` evaluates the check on such a document
(stored results are checked without playing, ``check_league_file``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from sim.distributed import backend_session, check_backend
from sim.errors import InputError
from sim.files import read_user_json
from sim.games.base import Game, StrategyInfo, StrategySpec
from sim.seating import lineup_count
from sim.stats.clustered import ratio_means, t_critical
from sim.stats.intervals import proportion_interval
from sim.stats.ratings import bradley_terry, elo_ratings, rating_intervals, seat_pair_sums
from sim.strategy_spec import parse_strategy, split_parameters_file
from sim.tournament import RotationGames, play_rotations

LEAGUE_FORMAT = 1
# Member kinds: a strategy at its defaults, a documented variant, a previous shipped default
# (or any parameters file), and settings that are neither.
KIND_DEFAULT = "default"
KIND_VARIANT = "variant"
KIND_PREVIOUS = "previous default"
KIND_OTHER = "other settings"
# The check needs a lower bound >= 50% against these kinds; against the rest, an upper bound.
STRICT_KINDS = (KIND_VARIANT, KIND_PREVIOUS)
HALF = 0.5


@dataclass(frozen=True)
class Member:
    """A member of the league: the name shown in tables, the strategy it plays, its kind, and
    whether it is the default of the game's strongest strategy. ``label`` spells out every
    parameter value, so a stored league can tell whether today's defaults are the ones rated."""

    name: str
    spec: StrategySpec
    kind: str
    label: str
    strongest: bool = False


def full_label(spec: StrategySpec, info: StrategyInfo) -> str:
    """``spec``'s label with every parameter of the strategy spelled out (defaults filled)."""
    values = {p.name: float(spec.parameters.get(p.name, p.default)) for p in info.parameters}
    return StrategySpec(spec.name, values).label()


def _member(name: str, spec: StrategySpec, kind: str, info: StrategyInfo) -> Member:
    return Member(name, spec, kind, full_label(spec, info),
                  strongest=kind == KIND_DEFAULT and info.strongest)


def default_members(registry) -> list[Member]:
    """The default population: every registered built-in strategy at its defaults, then every
    previous default and every documented variant of each strategy (in the registry's order)."""
    names = [name for name in registry if registry.strategy_class(name).builtin]
    members = [_member(name, StrategySpec(name), KIND_DEFAULT, registry[name]) for name in names]
    for name in names:
        info = registry[name]
        for stem, path in info.previous_defaults:
            members.append(member_from_text(f"{name}@{path}", registry, "league", stem))
        for settings in info.variants:
            members.append(member_from_text(f"{name}:{settings}", registry, "league"))
    return members


def member_from_text(text: str, registry, source: str, name: str | None = None) -> Member:
    """A member from a label (``expert``, ``expert:space=0``) or ``name@file.toml``: a file
    member is named after the file and counts as a previous default; settings that are one of
    the strategy's documented variants make a variant."""
    spec = parse_strategy(text, registry, source)
    info = registry[spec.name]
    _, file, _ = split_parameters_file(text)
    if file is not None:
        return _member(name or Path(file).stem, spec, KIND_PREVIOUS, info)
    if not spec.parameters:
        return _member(name or spec.name, spec, KIND_DEFAULT, info)
    documented = {parse_strategy(f"{spec.name}:{variant}", registry, source).label()
                  for variant in info.variants}
    kind = KIND_VARIANT if spec.label() in documented else KIND_OTHER
    return _member(name or spec.label(), spec, kind, info)


def choose_members(registry, members: list[str] | None = None, exclude: list[str] | None = None,
                   add: list[str] | None = None) -> tuple[list[Member], list[str]]:
    """The population (``members`` replaces the default one, ``exclude`` drops members by name,
    ``add`` adds some) and notes on what was left out: a member that plays exactly as an earlier
    one (e.g. a previous default equal to today's) is dropped, as a second copy adds nothing."""
    chosen = ([member_from_text(text, registry, "--members") for text in members]
              if members else default_members(registry))
    chosen += [member_from_text(text, registry, "--add") for text in add or []]
    names = [member.name for member in chosen]
    for name in exclude or []:
        if name not in names:
            raise InputError(f"--exclude: '{name}' is not in the league ({', '.join(names)})")
    chosen = [member for member in chosen if member.name not in (exclude or [])]
    kept: list[Member] = []
    notes: list[str] = []
    for member in chosen:
        same = [other for other in kept if other.name == member.name]
        if same:
            raise InputError(f"--members: '{member.name}' is in the league twice")
        twin = [other for other in kept if other.label == member.label]
        if twin:
            notes.append(f"{member.name} (plays exactly as {twin[0].name})")
            continue
        kept.append(member)
    if len(kept) < 2:
        raise InputError(f"--members: a league needs at least two members, got "
                         f"{', '.join(m.name for m in kept) or 'none'}")
    return kept, notes


@dataclass
class HeadToHead:
    """The row member's win share against the column member (two-strategy games)."""

    point: float
    low: float
    high: float
    games: int


@dataclass
class MixedRow:
    """A member in the mixed field: mean finishing position and win rate, 95% CIs by deal."""

    name: str
    seat_games: int
    mean_rank: float
    mean_rank_low: float
    mean_rank_high: float
    win_rate: float
    win_low: float
    win_high: float


@dataclass
class RatingRow:
    """A member's rating (Elo scale, 95% deal-bootstrap interval) and its win share against the
    field of pairs (the mean of its head-to-head win shares, 95% CI by deal)."""

    name: str
    rating: float
    low: float
    high: float
    field_share: float
    field_low: float
    field_high: float


@dataclass
class LeagueResult:
    """Everything a league measured (``league_document`` for the JSON)."""

    game: str
    game_title: str
    players: int
    rules: dict[str, int]
    seed: int
    members: list[Member]
    pair_deals: int
    pair_games: int  # per pair
    mixed_deals: int
    mixed_games: int
    head_to_head: dict[tuple[str, str], HeadToHead]
    mixed: list[MixedRow]
    ratings: list[RatingRow]  # strongest first
    played: RotationGames  # every game of both designs, seats indexing ``members``
    seconds: float
    left_out: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        """Every game played."""
        pairs = len(self.members) * (len(self.members) - 1) // 2
        return pairs * self.pair_games + self.mixed_games


def rank_outcomes(scores: np.ndarray, wins: np.ndarray) -> np.ndarray:
    """``outcome[g, i, j]``: 1 when seat i ranks above seat j in game g, 1/2 on a tie, 0 below
    (and 0 on the diagonal). A seat with a win share ranks above every seat without one (two
    seats sharing a win tie: the game left them tied); among seats without one the higher
    score ranks above. (The game's own rank is not kept in ``RotationGames``.)"""
    won = wins > 0
    both_won = won[:, :, None] & won[:, None, :]
    neither = ~won[:, :, None] & ~won[:, None, :]
    by_score = np.where(scores[:, :, None] > scores[:, None, :], 1.0,
                        np.where(scores[:, :, None] == scores[:, None, :], HALF, 0.0))
    outcome = np.where(both_won, HALF, np.where(neither, by_score,
                                                won[:, :, None].astype(float)))
    players = scores.shape[1]
    outcome[:, np.arange(players), np.arange(players)] = 0.0
    return outcome


def rank_pair_outcomes(strategies: int, seat_strategy: np.ndarray, deal_of_game: np.ndarray,
                       scores: np.ndarray, wins: np.ndarray,
                       deals: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, the pairwise outcomes by rank (``rank_outcomes``) of every two seats of
    different strategies: (deals, S, S) sums and counts, as ``sim.stats.ratings.pair_outcomes``
    gives them by score alone."""
    return seat_pair_sums(strategies, seat_strategy, deal_of_game,
                          rank_outcomes(scores, wins), deals)


def _share_interval(per_deal_sum: np.ndarray, per_deal_count: np.ndarray):
    """(point, low, high) of a share from per-deal sums and counts (deals x K): ratio means
    with their cluster-robust SE, clustered Wilson interval."""
    means = ratio_means(per_deal_sum, per_deal_count)
    low, high = proportion_interval(means.means, means.standard_errors, means.clusters,
                                    means.counts)
    return means.means, low, high


def _head_to_head(played: RotationGames) -> tuple[float, float, float, np.ndarray]:
    """Lineup entry 0's win share in a pair's games: point, 95% bounds, per-deal shares."""
    share = np.where(played.seat_strategy == 0, played.wins, 0.0).sum(axis=1)
    per_deal = np.bincount(played.deal_of_game, weights=share, minlength=played.deals)
    count = np.bincount(played.deal_of_game, minlength=played.deals).astype(float)
    point, low, high = _share_interval(per_deal[:, None], count[:, None])
    return float(point[0]), float(low[0]), float(high[0]), per_deal / count


def _mixed_rows(names: list[str], played: RotationGames) -> list[MixedRow]:
    """Mean finishing position and win rate of every member in the mixed field."""
    s = len(names)
    # Seat i's position: 1 + the seats ranked above it (ties half), i.e. 1 + the sum over
    # j != i of 1 - outcome[g, i, j]; the diagonal (outcome 0) supplies the 1.
    position = (1.0 - rank_outcomes(played.scores, played.wins)).sum(axis=2)
    position_sum = np.zeros((played.deals, s))
    win_sum = np.zeros((played.deals, s))
    seats = np.zeros((played.deals, s))
    players = played.seat_strategy.shape[1]
    for p in range(players):
        index = (played.deal_of_game, played.seat_strategy[:, p])
        np.add.at(position_sum, index, position[:, p])
        np.add.at(win_sum, index, played.wins[:, p])
        np.add.at(seats, index, 1.0)
    ranks = ratio_means(position_sum, seats)
    half_width = t_critical(ranks.clusters) * ranks.standard_errors
    win, win_low, win_high = _share_interval(win_sum, seats)
    # A position lies in 1..players, and so does its mean: the interval is cut to that range.
    low = np.clip(ranks.means - half_width, 1.0, players)
    high = np.clip(ranks.means + half_width, 1.0, players)
    return [MixedRow(name, int(seats[:, a].sum()), float(ranks.means[a]), float(low[a]),
                     float(high[a]), float(win[a]), float(win_low[a]), float(win_high[a]))
            for a, name in enumerate(names)]


def run_league(game: Game, data, players: int, rules: dict[str, int], members: list[Member],
               games: int, mixed_games: int, seed: int, workers: int = 1,
               progress: Callable[[int, int], None] | None = None, backend: str = "local",
               scheduler: str | None = None) -> LeagueResult:
    """Play the league (module docstring): ``games`` per pair and ``mixed_games`` in the mixed
    field, each rounded up to whole deals x seat rotations (at least 2 deals).
    ``progress(done, total)`` counts games over both designs. Every pair and the mixed field
    play on ``workers`` local processes or on one dask cluster (``backend``, ``scheduler``:
    ``sim.tournament.play_rotations``); the league does not depend on where it was played."""
    check_backend(backend, scheduler)
    s = len(members)
    names = [member.name for member in members]
    if s < 2:
        raise InputError("--members: a league needs at least two members")
    if len(set(names)) != s:
        raise InputError(f"--members: a member is listed twice ({', '.join(names)})")
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    if mixed_games < 1:
        raise InputError(f"--mixed-games: must be at least 1, got {mixed_games}")
    if workers < 1:
        raise InputError(f"--workers: must be at least 1, got {workers}")
    with backend_session(backend, workers, scheduler):
        return _play_league(game, data, players, rules, members, games, mixed_games, seed,
                            workers, progress, backend, scheduler)


def _play_league(game: Game, data, players: int, rules: dict[str, int], members: list[Member],
                 games: int, mixed_games: int, seed: int, workers: int,
                 progress: Callable[[int, int], None] | None, backend: str,
                 scheduler: str | None) -> LeagueResult:
    """``run_league`` once its inputs are checked."""
    s = len(members)
    names = [member.name for member in members]
    pair_lineups = lineup_count(2, players)
    pair_deals = max(2, math.ceil(games / pair_lineups))
    pair_games = pair_deals * pair_lineups
    mixed = players >= 3 and s > 2
    mixed_lineups = lineup_count(s, players)
    mixed_deals = max(2, math.ceil(mixed_games / mixed_lineups)) if mixed else 0
    pairs = [(a, b) for a in range(s) for b in range(a + 1, s)]
    total = len(pairs) * pair_games + mixed_deals * mixed_lineups
    deals = max(pair_deals, mixed_deals)
    done = 0

    def report(offset: int) -> Callable[[int, int], None]:
        def update(finished: int, _total: int) -> None:
            if progress is not None:
                progress(offset + finished, total)
        return update

    head: dict[tuple[str, str], HeadToHead] = {}
    pair_shares = np.full((pair_deals, s, s), np.nan)
    pair_sum = np.zeros((deals, s, s))
    pair_count = np.zeros((deals, s, s))
    parts: list[RotationGames] = []
    for a, b in pairs:
        played = play_rotations(game, data, players, rules, [members[a].spec, members[b].spec],
                                pair_deals, seed, workers, progress=report(done),
                                backend=backend, scheduler=scheduler)
        done += pair_games
        point, low, high, per_deal = _head_to_head(played)
        # Row + column = 1 game by game (win shares of a game sum to 1), so b's interval is
        # a's mirrored.
        head[(names[a], names[b])] = HeadToHead(point, low, high, pair_games)
        head[(names[b], names[a])] = HeadToHead(1.0 - point, 1.0 - high, 1.0 - low, pair_games)
        pair_shares[:, a, b] = per_deal
        pair_shares[:, b, a] = 1.0 - per_deal
        # Seats re-indexed from the pair's lineup to the members, for the combined games.
        parts.append(replace(played, seat_strategy=np.array([a, b])[played.seat_strategy]))
    mixed_rows: list[MixedRow] = []
    if mixed:
        played = play_rotations(game, data, players, rules, [m.spec for m in members],
                                mixed_deals, seed, workers, progress=report(done),
                                backend=backend, scheduler=scheduler)
        mixed_rows = _mixed_rows(names, played)
        parts.append(played)
    for part in parts:
        part_sum, part_count = rank_pair_outcomes(s, part.seat_strategy, part.deal_of_game,
                                                  part.scores, part.wins, part.deals)
        pair_sum[:part.deals] += part_sum
        pair_count[:part.deals] += part_count
    ratings = elo_ratings(bradley_terry(pair_sum.sum(axis=0), pair_count.sum(axis=0)))
    low, high = rating_intervals(pair_sum, pair_count)
    # Against the field of pairs: per deal, the mean of a member's win shares over opponents.
    with np.errstate(invalid="ignore"):
        field_per_deal = np.nanmean(pair_shares, axis=2)
    field_share, field_low, field_high = _share_interval(
        field_per_deal, np.ones_like(field_per_deal))
    rows = [RatingRow(name, float(ratings[a]), float(low[a]), float(high[a]),
                      float(field_share[a]), float(field_low[a]), float(field_high[a]))
            for a, name in enumerate(names)]
    rows.sort(key=lambda row: (-row.rating, row.name))
    played_all = replace(
        parts[0], seat_strategy=np.concatenate([p.seat_strategy for p in parts]),
        deal_of_game=np.concatenate([p.deal_of_game for p in parts]),
        scores=np.concatenate([p.scores for p in parts]),
        wins=np.concatenate([p.wins for p in parts]), deals=deals,
        seconds=sum(p.seconds for p in parts),
        compile_seconds=[t for p in parts for t in p.compile_seconds],
        profile={name: np.concatenate([p.profile[name] for p in parts])
                 for name in parts[0].profile},
        players=players, rules=dict(rules))
    return LeagueResult(game.name, game.title, players, dict(rules), seed, list(members),
                        pair_deals, pair_games, mixed_deals, mixed_deals * mixed_lineups, head,
                        mixed_rows, rows, played_all, played_all.seconds)


def _number(value: float) -> float | None:
    """A float for JSON: None for NaN (JSON has no NaN)."""
    return None if math.isnan(value) else float(value)


def league_document(result: LeagueResult) -> dict:
    """The machine-readable league (``league.json``): settings, members, ratings, the
    head-to-head matrix, the mixed field and the check; no timings, so it is reproducible."""
    document = {
        "format": LEAGUE_FORMAT,
        "settings": {"game": result.game, "players": result.players, "rules": result.rules,
                     "seed": result.seed, "games_per_pair": result.pair_games,
                     "deals_per_pair": result.pair_deals, "mixed_games": result.mixed_games,
                     "mixed_deals": result.mixed_deals},
        "members": [{"name": m.name, "label": m.label, "kind": m.kind,
                     "strongest": m.strongest} for m in result.members],
        "left_out": list(result.left_out),
        "ratings": [{"name": r.name, "rating": _number(r.rating), "low": _number(r.low),
                     "high": _number(r.high), "field_share": _number(r.field_share),
                     "field_low": _number(r.field_low), "field_high": _number(r.field_high)}
                    for r in result.ratings],
        "head_to_head": [{"row": row, "column": column, "point": _number(cell.point),
                          "low": _number(cell.low), "high": _number(cell.high),
                          "games": cell.games}
                         for (row, column), cell in sorted(result.head_to_head.items())],
        "mixed_field": [{"name": r.name, "seat_games": r.seat_games,
                         "mean_rank": _number(r.mean_rank), "mean_rank_low": _number(
                             r.mean_rank_low), "mean_rank_high": _number(r.mean_rank_high),
                         "win_rate": _number(r.win_rate), "win_low": _number(r.win_low),
                         "win_high": _number(r.win_high)} for r in result.mixed],
    }
    # What a stored file leaves out depends on the files beside it (check_league_file), not
    # on this league: kept out of its bytes.
    document["check"] = {key: value for key, value in vars(check_document(document)).items()
                         if key != "left_out"}
    return document


def league_json(result: LeagueResult) -> str:
    """``league.json``'s text: sorted keys, so the same league gives the same bytes."""
    return json.dumps(league_document(result), sort_keys=True, indent=1) + "\n"


@dataclass
class LeagueCheck:
    """The check's verdict: whether the strongest strategy's default tops the league, and the
    member closest to failing it (its kind decides whether the bound or the point counts)."""

    strongest: str | None
    on_top: bool
    worst: str | None = None
    worst_low: float | None = None
    worst_point: float | None = None
    failures: list[str] = field(default_factory=list)
    reason: str = ""
    undecided: list[str] = field(default_factory=list)
    # Today's built-ins that the stored league does not hold, each with where it is rated
    # instead (``check_league_file``); the verdict is about the members it holds.
    left_out: list[str] = field(default_factory=list)

    def line(self) -> str:
        """``shipped default on top: yes/no (worst: MEMBER lower bound X%)``, the members
        against which it is undecided, and the built-ins left out of the league."""
        verdict = "yes" if self.on_top else "no"
        left_out = (f"; left out: {'; '.join(self.left_out)}" if self.left_out else "")
        if self.worst is None:
            return f"shipped default on top: {verdict} ({self.reason}{left_out})"
        return (f"shipped default on top: {verdict} (worst: {self.worst} lower bound "
                f"{_percent(self.worst_low)}, win share {_percent(self.worst_point)}"
                + (f"; fails against {', '.join(self.failures)}" if self.failures else "")
                + (f"; undecided against {', '.join(self.undecided)} (95% interval contains "
                   f"50%)" if self.undecided else "")
                + left_out + ")")


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def check_document(document: dict) -> LeagueCheck:
    """The check (module docstring) on a league document: lower bound >= 50% against every
    previous default and documented variant, upper bound >= 50% against the rest (members
    whose interval contains 50% are listed as undecided). A stored file
    with no strongest member, or missing fields, fails with the reason (``InputError`` for a
    malformed document)."""
    try:
        members = document["members"]
        cells = {(cell["row"], cell["column"]): cell for cell in document["head_to_head"]}
        strongest = [m["name"] for m in members if m["strongest"]]
        kinds = {m["name"]: m["kind"] for m in members}
    except (KeyError, TypeError) as error:
        raise InputError(f"not a league document: missing or malformed {error}") from None
    if not strongest:
        return LeagueCheck(None, False, reason="the strongest strategy's default is not in the "
                                               "league")
    top = strongest[0]
    worst = None
    failures = []
    undecided = []
    for name in sorted(kinds):
        if name == top:
            continue
        cell = cells.get((top, name))
        if cell is None or cell.get("point") is None:
            raise InputError(f"not a league document: no head-to-head of {top} against {name}")
        low = cell.get("low")
        high = cell.get("high")
        low = -math.inf if low is None else low
        high = -math.inf if high is None else high
        strict = kinds[name] in STRICT_KINDS
        # How far above its bar: the lower bound for a strict member, the upper bound (not
        # shown to lose) for the rest.
        slack = (low if strict else high) - HALF
        if slack < 0:
            failures.append(name)
        elif not strict and low < HALF:
            undecided.append(name)
        closeness = low - HALF  # the member closest to beating it, whatever its kind
        if worst is None or closeness < worst[0]:
            worst = (closeness, name, cell.get("low"), cell["point"])
    if worst is None:
        return LeagueCheck(top, True, reason="no other member")
    return LeagueCheck(top, not failures, worst[1], worst[2], worst[3], failures,
                       undecided=undecided)


def check_league_file(path: str | Path, registry_of: Callable[[str], object]) -> LeagueCheck:
    """The check of a stored ``league.json`` (no games played), and whether it is current: the
    strongest member's label must equal today's default of the game's strongest strategy
    (``registry_of(game name)`` gives the game's strategy registry), else it is stale. Today's
    built-ins that the league does not hold (a strategy added after it was played, or one too
    slow to play at its size) are listed in ``left_out`` with the other stored leagues beside
    it (``../*/league.json``) that rate them; the verdict stays about the members it holds. A
    file that cannot be read or is not a league is an ``InputError``."""
    document = read_user_json(path, "league results")
    if not isinstance(document, dict) or document.get("format") != LEAGUE_FORMAT:
        raise InputError(f"league results '{path}': not a league.json of format "
                         f"{LEAGUE_FORMAT}")
    try:
        check = check_document(document)
        game = document["settings"]["game"]
    except (KeyError, TypeError) as error:
        raise InputError(f"league results '{path}': missing {error}") from None
    except InputError as error:
        raise InputError(f"league results '{path}': {error}") from None
    if not isinstance(game, str):
        raise InputError(f"league results '{path}': settings.game: expected a game's name")
    registry = registry_of(game)
    today = strongest_default_label(registry)
    stored = {m["name"]: m["label"] for m in document["members"]}
    if check.strongest is not None and stored[check.strongest] != today:
        return LeagueCheck(check.strongest, False,
                           reason=f"stale: re-run the league ({check.strongest} was rated as "
                                  f"{stored[check.strongest]}, today's default is {today})")
    check.left_out = left_out_builtins(Path(path), document, registry)
    return check


def left_out_builtins(path: Path, document: dict, registry) -> list[str]:
    """Today's built-in strategies that the league ``document`` (stored at ``path``) has no
    member of that name for, each with the stored leagues beside it (``path``'s grandparent
    folder, ``*/league.json``, same game) that hold it, and their games per pair: ``search
    (not in this league; rated in GAME-2p-search, 400 games per pair against 2,000
    here)``."""
    held = {member["name"] for member in document["members"]}
    missing = [name for name in registry
               if registry.strategy_class(name).builtin and name not in held]
    if not missing:
        return []
    settings = document["settings"]
    here = settings.get("games_per_pair")
    # Every other stored league of the game: (folder, its members' names, its games per pair).
    others: list[tuple[str, set[str], int]] = []
    for other in sorted(path.resolve().parent.parent.glob("*/league.json")):
        if other.resolve() == path.resolve():
            continue
        try:
            text = json.loads(other.read_text(encoding="utf-8"))
            if text["settings"]["game"] == settings["game"]:
                others.append((other.parent.name, {m["name"] for m in text["members"]},
                               int(text["settings"]["games_per_pair"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a readable league: it rates nothing here
    notes = []
    for name in missing:
        rated = [f"{folder}, {games:,} games per pair" for folder, names, games in others
                 if name in names]
        where = (f"rated in {'; '.join(rated)}" + (f" against {here:,} here" if here else "")
                 if rated else "in no stored league of the game")
        notes.append(f"{name} (not in this league; {where})")
    return notes


def strongest_default_label(registry) -> str | None:
    """The full label of today's default of the game's strongest strategy (None: none is)."""
    for name in registry:
        info = registry[name]
        if info.strongest and registry.strategy_class(name).builtin:
            return full_label(StrategySpec(name), info)
    return None


def _share_cell(cell: HeadToHead) -> str:
    """``62.3% (60.1–64.4)``: the point and its 95% interval."""
    if math.isnan(cell.low):
        return f"{100 * cell.point:.1f}% (no CI)"
    return f"{100 * cell.point:.1f}% ({100 * cell.low:.1f}–{100 * cell.high:.1f})"


def rules_label(rules: dict[str, int]) -> str:
    """``name=value, ...`` of the rules, sorted by name ("" for none)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(rules.items()))


def league_markdown(result: LeagueResult, profile: str | None = None,
                    rules_text: str | None = None, command: str | None = None) -> str:
    """``league.md``: the settings, the rating table, the head-to-head matrix, the check line
    and (when given) the section on what the bots play like. ``rules_text`` says the rules in
    the game's words (default: ``rules_label``); ``command``, when given, is the command line
    that plays this league again, shown under the settings."""
    rules = rules_text or rules_label(result.rules) or "defaults"
    rate = result.games / max(result.seconds, 1e-9)
    check = check_document(league_document(result))
    mixed = {row.name: row for row in result.mixed}
    lines = [f"# {result.game_title} league, {result.players} players", "",
             f"{result.game_title}, {result.players} players, rules {rules}, seed {result.seed}; "
             f"{result.pair_games:,} games per pair ({result.pair_deals:,} deals x "
             f"{result.pair_games // result.pair_deals} seat rotations)"
             + (f", mixed field {result.mixed_games:,} games ({result.mixed_deals:,} deals)"
                if result.mixed else ", no mixed field")
             + f"; {result.games:,} games in {result.seconds:.1f} s ({rate:,.0f} games/s).", ""]
    if command:
        # A league played at a size of its own (not the stored one) must say how to replay it.
        lines += [f"Played by: `{command}`", ""]
    lines += [f"**{check.line()}**", "",
              "Members: " + "; ".join(f"{m.name} ({m.kind}"
                                      + (", the strongest strategy's default" if m.strongest
                                         else "") + ")" for m in result.members) + ".", ""]
    if result.left_out:
        lines += ["Left out: " + "; ".join(result.left_out) + ".", ""]
    lines += ["## Ratings", "",
              "Bradley-Terry on pairwise outcomes by rank within every game of both designs (a "
              "seat that wins beats every other seat, among the others the higher score; ties "
              "half), Elo scale, mean 0, 95% interval from resampled deals. Mean rank: mean "
              "finishing position in the mixed field (1 is first, 95% CI by deal). Win share "
              "vs the field: the mean of the member's head-to-head win shares (95% CI by "
              "deal).", "",
              "| rank | member | rating (95% CI) | mean rank in the mixed field | "
              "win share vs the field |", "|---:|---|---:|---:|---:|"]
    for place, row in enumerate(result.ratings, start=1):
        mixed_row = mixed.get(row.name)
        rank_text = (f"{mixed_row.mean_rank:.2f} ({mixed_row.mean_rank_low:.2f}–"
                     f"{mixed_row.mean_rank_high:.2f})" if mixed_row else "—")
        field_text = _share_cell(HeadToHead(row.field_share, row.field_low, row.field_high, 0))
        lines.append(f"| {place} | {row.name} | {row.rating:.0f} ({row.low:.0f} to "
                     f"{row.high:.0f}) | {rank_text} | {field_text} |")
    order = [row.name for row in result.ratings]
    lines += ["", "## Head to head", "",
              "Win share of the row against the column in two-strategy games, seats rotated, "
              "95% CI by deal (the row's seats won that share of the games; ties as the game "
              "breaks them).", "",
              "| row \\ column | " + " | ".join(order) + " |",
              "|---|" + "---:|" * len(order)]
    for row in order:
        cells = ["—" if row == column else _share_cell(result.head_to_head[(row, column)])
                 for column in order]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    if result.mixed:
        lines += ["", "## Mixed field", "",
                  f"One rotated tournament of all {len(result.members)} members on the first "
                  f"{result.mixed_deals:,} deals; 95% CIs by deal. With {result.players} seats "
                  f"a member as strong as the field wins {100 / result.players:.1f}% and "
                  f"finishes {(result.players + 1) / 2:.1f} on average.", "",
                  "| member | seat-games | mean rank (95% CI) | win rate (95% CI) |",
                  "|---|---:|---:|---:|"]
        for row in sorted(result.mixed, key=lambda r: (r.mean_rank, r.name)):
            lines.append(f"| {row.name} | {row.seat_games:,} | {row.mean_rank:.2f} "
                         f"({row.mean_rank_low:.2f}–{row.mean_rank_high:.2f}) | "
                         + _share_cell(HeadToHead(row.win_rate, row.win_low, row.win_high, 0))
                         + " |")
    lines += ["", "![league](league.png)", ""]
    if profile:
        # The hook of sim.profile: its section, under this heading unless it brings its own.
        heading = [] if profile.lstrip().startswith("## ") else ["## What the bots play like",
                                                                   ""]
        lines += [*heading, profile.strip(), ""]
    return "\n".join(lines)


def league_plot(result: LeagueResult) -> bytes:
    """PNG: one bar per member, its rating with the 95% interval, strongest at the top."""
    from sim.report.plots import png_bytes, styled_figure

    rows = list(reversed(result.ratings))
    with styled_figure(1) as (figure, (axis,)):
        positions = np.arange(len(rows))
        ratings = np.array([row.rating for row in rows])
        errors = np.array([[row.rating - row.low for row in rows],
                           [row.high - row.rating for row in rows]])
        colours = ["#d62728" if any(m.strongest and m.name == row.name
                                    for m in result.members) else "#1f77b4" for row in rows]
        axis.barh(positions, ratings, xerr=errors, color=colours, capsize=4)
        axis.axvline(0.0, color="black", linewidth=0.8)
        axis.set_yticks(positions)
        axis.set_yticklabels([row.name for row in rows])
        axis.set_xlabel("Bradley-Terry rating by rank, Elo scale, mean 0 (95% interval)")
        axis.set_title(f"{result.game_title} league, {result.players} players")
        axis.text(0.99, 0.01, "red: the shipped default", transform=axis.transAxes,
                  ha="right", va="bottom", color="#d62728")
        return png_bytes(figure)
