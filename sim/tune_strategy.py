"""Tuning a strategy's declared parameters, by default for winning: ``sim tune-strategy``.

The optimiser is optuna's CMA-ES sampler (the ``cmaes`` package underneath), driven trial by
trial with optuna's ask-and-tell interface, its state in an SQLite file in the output folder.

How noise is handled:

- **Common random numbers.** Every trial plays the same deals with the same strategy seeds and
  the same seat rotations (``sim.tournament.play_rotations``): the candidate (the strategy at the
  trial's values) and every strategy of the field take every seat of every deal in turn. Two
  trials then differ by their parameters, not by their luck.
- **Enough games per evaluation** (``games``), and every value stored with its cluster-robust
  standard error (the deal is the cluster: ``sim.stats.clustered``).
- **Re-evaluation on fresh deals.** The best few trials by their tuning value (which is biased
  upwards: the maximum of noisy values) and the starting values are played again on deals no
  trial saw; the tuned values are the best of them there, and their gain over the start comes
  with simultaneous intervals over all re-evaluated candidates, which covers that choice.
- **A final head-to-head** of the tuned values against the starting values (with the field, if
  any), a tournament on a third set of fresh deals, so its intervals owe nothing to the choice.

**A gain shown, or none.** ``tuned.toml`` is written only when the chosen trial's gain over the
start on the re-evaluation's fresh deals is shown: the lower end of its simultaneous 95%
interval is above 0 (and, with a guard, the chosen share meets the guard's minimum there, as
``guard_by`` judges it). Otherwise nothing named ``tuned.toml`` is written: the best
re-evaluated trial's values go to ``candidate.toml``, whose first line says no gain was shown,
so the work is kept and nobody mistakes it for a result; the report and the file's ``[tuning]``
table say which (``gain_shown``).

**Values as written.** A sampled value is played rounded to 4 significant digits
(``SIGNIFICANT_DIGITS``; the start's values as given) and stored with its trial, so the files,
the report and a tuned strategy's label hold exactly the values that were measured.

Picking the best, and what corrects for it: the candidates re-evaluated were picked on the
tuning's deals, which the re-evaluation does not reuse; there the chosen trial is again the
best of several, on the same deals its gain is measured on, so its point estimate is biased
upwards (the largest of several noisy gains), but its interval is one of a simultaneous
(max-|t|) family over every re-evaluated candidate, and all of them hold together with 95%
probability, whichever is picked: that interval, not the point estimate, decides whether a gain
is shown. The final head-to-head plays a third set of deals, so its numbers owe nothing to the
choice either. Not corrected for: the re-evaluation's candidates are the best ``reevaluate``
trials by their biased tuning values, so a trial outside them that is better is missed (a
question of power, not of validity).

The objective (what a trial's value is), in the games of the candidate against the field:

- ``wins`` (the default of new runs): the candidate meets each member of the field on its own,
  in two-strategy games with seats rotated (``play_rotations`` of [candidate, member]), every
  member on the same deals and seeds (common random numbers); its win share against a member is
  the share of those games its seats won, by the game's own ``wins`` (ties as the game breaks
  them). The value is the mean over the members, its standard error clustered by deal with the
  members' per-deal sums averaged before the cluster variance (``wins_evaluation``); each
  member's share is kept with its 95% interval (``proportion_interval``). ``games`` is split
  evenly over the members;
- ``wins-min``: the smallest of those shares (the candidate must beat every member); its
  interval runs from the smallest lower to the smallest upper end of the members' simultaneous
  (max-|t|) 95% intervals, so it covers the smallest true share whichever member that is;
- ``head-to-head``: how often a seat of the candidate outscores a seat of the field in the same
  game (ties half), over every such pair;
- ``margin``: the candidate's mean score minus the field's mean score in the same games;
- ``score``: the candidate's mean score;
- ``self-play``: the mean score per seat when the candidate takes every seat of every game (the
  field is 'self' and plays no part): how well the strategy plays against its equal. Never the
  default: a shared habit (slowing the game down) raises it while losing to other players. With
  a wins objective the final comparison reports the tuned and start mean scores instead.

With a wins objective the final comparison plays the tuned values against the start and against
every member of the field (and the guard's rival), each in two-strategy games on the same third
set of fresh deals, and reports each win share with its 95% interval.

**A growing field** (``league``): round 1 runs in the output folder; when its gain is shown, the
chosen values join the field and round 2 starts from them in ``OUT/round-2`` (a normal run
folder, on a master seed of its own), and so on up to ``rounds``, stopping at the first round
with no gain shown. ``OUT/tuned.toml`` is then the last accepted round's, and ``OUT/report.md``
lists the rounds.

A **guard** keeps a rival in view while the objective is chased, since an objective such as
``self-play`` rewards habits that lose to other players (a strategy that slows the game down
scores more against itself and less against a fast opponent). With ``guard`` a rival and
``guard_share`` a minimum, every evaluation also plays the candidate against the rival in every
seat rotation on the same deals, and the trial's value is the objective less ``guard_penalty``
objective units for each percentage point of head to head below the minimum (a penalty, since
optuna's CMA-ES sampler takes no constraints). On fresh deals the chosen values are the best
of the start and the re-evaluated trials that meet the minimum there: the start always stands
(tuning keeps the starting values unless a trial both scores more and meets the guard; a trial
that scores less is never taken for its share alone, even when the start's share falls short
by chance), and the rival sits at the final head-to-head. How a share meets the minimum on
fresh deals is ``guard_by``: ``lower-bound`` (the default of new runs) asks the lower end of
its 95% interval to reach it, since the candidates that pass a point estimate are a selection
and their shares on further deals fall back (measured: 66.6% on the re-evaluation's deals,
64.8% on 4,000 more); ``estimate`` asks only the point estimate. The search itself always
penalises the point estimate: a trial's interval is wide, and the lower bound would only raise
the minimum.

Determinism: trial ``k`` is asked from a sampler seeded by (seed, k), and the CMA-ES state is
restored from the study, so the same settings give the same trials, values and result whether
the run was interrupted and resumed or not, and whatever the worker count.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sim.distributed import backend_session, check_backend
from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.base import Game, StrategyParameter, StrategySpec
from sim.games.registry import get_game
from sim.stats.clustered import contrast_intervals, ratio_means, t_critical
from sim.stats.intervals import proportion_interval
from sim.strategy_spec import format_parameters_file, parse_strategy
from sim.tournament import (
    TournamentResult,
    lineup_count,
    pair_outcomes,
    play_rotations,
    run_tournament,
)

OBJECTIVES = ("wins", "wins-min", "head-to-head", "margin", "score", "self-play")
# The objectives by winning: the candidate meets each member of the field on its own.
WIN_OBJECTIVES = ("wins", "wins-min")
# New runs maximise the win share; runs stored before it existed name their own objective.
DEFAULT_OBJECTIVE = "wins"
# Rounds of a growing field (``--league``) when none is given.
DEFAULT_ROUNDS = 3
# How a candidate's share against the guard's rival is judged on fresh deals.
GUARD_JUDGEMENTS = ("lower-bound", "estimate")
# Objective units lost per percentage point of head to head below the guard's minimum, by
# default: a point of score per point of share, or a share for a share.
DEFAULT_GUARD_PENALTY = {"wins": 0.01, "wins-min": 0.01, "head-to-head": 0.01, "margin": 1.0,
                         "score": 1.0, "self-play": 1.0}
SELF_FIELD = "self"
SETTINGS_FILE = "settings.json"
STUDY_FILE = "study.sqlite3"
REEVALUATION_FILE = "reevaluation.json"
FINAL_FILE = "final.json"
PARAMETERS_FILE = "tuned.toml"
# The best trial's values when no gain was shown on fresh deals (never named like a result).
CANDIDATE_FILE = "candidate.toml"
REPORT_FILE = "report.md"
CURVE_FILE = "progress.png"
_STUDY_NAME = "tune-strategy"
# Spawn keys of the master seeds of the re-evaluation and the final head-to-head: deals that
# no trial played.
_REEVALUATION_STREAM = 1
_FINAL_STREAM = 2
# Spawn key of a league round's master seed: (_ROUND_STREAM, round).
_ROUND_STREAM = 4
# A league's later rounds run in OUT/round-2, OUT/round-3, ...
ROUND_FOLDER = "round-{}"


@dataclass(frozen=True)
class TuneSettings:
    """Everything that decides a tuning run (stored in the output folder as JSON)."""

    game: str
    strategy: str  # the strategy's registered name
    start: dict[str, float]  # the values the search starts from (defaults or a given spec)
    tuned: tuple[str, ...]  # the parameters searched (the others stay at their start value)
    field: tuple[str, ...]  # strategy labels of the opponents; () means self-play
    players: int
    rules: dict[str, int]
    data_file: str | None
    games: int  # games per trial (rounded up to whole deals x rotations)
    trials: int
    seed: int
    objective: str = "head-to-head"
    reevaluate: int = 3  # best trials played again on fresh deals
    reevaluate_games: int = 0  # 0: 2 x games
    final_games: int = 0  # 0: 4 x games
    command: str = ""
    guard: str = ""  # strategy label of the rival to keep in view; "" for none
    guard_share: float = 0.5  # the candidate's minimum head to head against the rival
    guard_penalty: float = 1.0  # objective units per percentage point below the minimum
    guard_games: int = 0  # games against the rival per evaluation; 0: as many as ``games``
    # "lower-bound" or "estimate" (runs stored before the choice existed judged the estimate)
    guard_by: str = "estimate"
    # A growing field: after the run, values whose gain is shown join the field and a new
    # round starts from them (runs stored before leagues existed are single rounds).
    league: bool = False
    rounds: int = DEFAULT_ROUNDS  # the most rounds of a league, the first included
    league_round: int = 0  # this run's round in a league (1 the first); 0 outside a league

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict."""
        document = asdict(self)
        document["tuned"] = list(self.tuned)
        document["field"] = list(self.field)
        return document

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> TuneSettings:
        """The settings stored by ``to_json``."""
        values = dict(document)
        values["tuned"] = tuple(values["tuned"])
        values["field"] = tuple(values["field"])
        return cls(**values)

    @property
    def self_play(self) -> bool:
        """True when the field is the strategy itself at its starting values."""
        return not self.field

    @property
    def by_wins(self) -> bool:
        """True when the objective is a win share against each member of the field."""
        return self.objective in WIN_OBJECTIVES

    @property
    def every_seat(self) -> bool:
        """True when the objective plays the candidate in every seat (no field at the table)."""
        return self.objective == "self-play"

    def comparable(self) -> dict[str, Any]:
        """The fields a resumed run must share with the stored one (all but the trial count
        and the command line)."""
        document = self.to_json()
        document.pop("trials")
        document.pop("command")
        return document


@dataclass
class Evaluation:
    """The objective of one candidate against the field: value, standard error, 95% interval,
    and the per-deal sums it came from (for contrasts on the same deals)."""

    value: float
    standard_error: float
    low: float
    high: float
    deals: int
    games: int
    per_deal_values: np.ndarray = field(repr=False)
    per_deal_counts: np.ndarray = field(repr=False)
    penalty: float = 0.0  # the guard's penalty (objective units) for this value
    guard_share: float = math.nan  # head to head against the guard's rival, and its 95% CI
    guard_low: float = math.nan
    guard_high: float = math.nan
    # wins objectives: per member of the field, its label, the candidate's win share against
    # it with its 95% interval (clustered by deal) and the games played
    members: list[dict[str, Any]] | None = None

    @property
    def tuning_value(self) -> float:
        """The objective less the guard's penalty: what the optimiser maximises."""
        return self.value - self.penalty


@dataclass
class TrialRecord:
    """One finished trial."""

    number: int
    values: dict[str, float]
    value: float
    standard_error: float
    low: float
    high: float
    objective_value: float = math.nan  # before the guard's penalty (the value without a guard)
    guard_share: float = math.nan  # head to head against the guard's rival
    guard_low: float = math.nan
    guard_high: float = math.nan
    members: list[list[float]] | None = None  # wins objectives: [share, low, high] per member


@dataclass
class TuneResult:
    """Everything a tuning run found; ``report_markdown`` writes it up."""

    settings: TuneSettings
    trials: list[TrialRecord]
    reevaluated: list[dict[str, Any]]  # per candidate: trial, values, value, gain, intervals
    best_values: dict[str, float]
    final: dict[str, Any] | None  # the final head-to-head tournament (document + table)
    seconds: float
    out: Path

    @property
    def best_trial(self) -> int:
        """The trial whose values were chosen."""
        return next(row["trial"] for row in self.reevaluated if row["chosen"])

    @property
    def chosen_row(self) -> dict[str, Any]:
        """The re-evaluation's row of the chosen values (the start's when it stood)."""
        return next(row for row in self.reevaluated if row["chosen"])

    @property
    def gain_shown(self) -> bool:
        """Whether the chosen values are shown to gain over the start on fresh deals
        (``gain_shown``): only then is ``tuned.toml`` written."""
        return gain_shown(self.settings, self.chosen_row)

    @property
    def kept_row(self) -> dict[str, Any] | None:
        """The row whose values are written: the chosen one when its gain is shown, else the
        best re-evaluated trial (``candidate_row``), None when no trial differs from the
        start."""
        if self.gain_shown:
            return self.chosen_row
        return candidate_row(self.reevaluated)


def gain_shown(settings: TuneSettings, row: dict[str, Any]) -> bool:
    """Whether a re-evaluated candidate is shown to gain over the start on fresh deals: a trial
    (not the start itself) whose gain's simultaneous 95% interval lies wholly above 0 and, with
    a guard, whose share against the rival meets the minimum there (``meets_guard``)."""
    if row["trial"] is None:
        return False
    low = row["gain_low"]
    if low is None or math.isnan(low) or low <= 0.0:
        return False
    return not settings.guard or bool(row["meets_guard"])


def candidate_row(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The trial kept when no gain is shown: the chosen one when it is a trial, else the
    re-evaluated trial best on fresh deals (the earlier on a tie); None when no trial was
    re-evaluated (every trial had the starting values)."""
    trials = [row for row in rows if row["trial"] is not None]
    chosen = [row for row in trials if row["chosen"]]
    if chosen:
        return chosen[0]
    if not trials:
        return None
    return max(trials, key=lambda row: (row["value"], -trials.index(row)))


def gain_text(settings: TuneSettings, row: dict[str, Any]) -> str:
    """A candidate's gain over the start on fresh deals with its simultaneous 95% interval and,
    when that is what falls short, its share against the guard's rival."""
    text = (f"{row['gain']:+.4g} ({row['gain_low']:+.4g} to {row['gain_high']:+.4g}, "
            f"simultaneous 95% CI) in {settings.objective}")
    if settings.guard and row["gain_low"] > 0.0 and not row["meets_guard"]:
        text += (f", but {_share(row['guard_share'])} ({_share(row['guard_low'])} to "
                 f"{_share(row['guard_high'])}) against {settings.guard} does not meet the "
                 f"{100 * settings.guard_share:.4g}% minimum (judged by "
                 f"{guard_judgement_text(settings)})")
    return text


def outcome_text(result: TuneResult) -> str:
    """One line: the gain shown on fresh deals, or that none is, with the candidate's gain and
    ``tuned.toml not written``."""
    row = result.kept_row
    if row is None:
        return (f"no gain shown on fresh deals: no trial differs from the start; "
                f"{PARAMETERS_FILE} not written")
    if result.gain_shown:
        return f"gain shown on fresh deals: {gain_text(result.settings, row)}"
    return (f"no gain shown on fresh deals: {gain_text(result.settings, row)}; "
            f"{PARAMETERS_FILE} not written")


def derived_seed(seed: int, stream: int) -> int:
    """A master seed for deals no trial played (``SeedSequence(seed, spawn_key=(stream,))``)."""
    state = np.random.SeedSequence(seed, spawn_key=(stream,)).generate_state(2, np.uint32)
    return int(state[0]) | (int(state[1]) << 32)


def tunable_parameters(parameters: tuple[StrategyParameter, ...],
                       names: list[str] | None, source: str) -> tuple[str, ...]:
    """The parameters to search: ``names`` (checked), or every declared one whose search range
    is not a single point."""
    known = {p.name: p for p in parameters}
    if names:
        for name in names:
            if name not in known:
                raise InputError(f"{source}: no parameter '{name}' (known: "
                                 f"{', '.join(known) or 'none'})")
        chosen = list(dict.fromkeys(names))
    else:
        chosen = list(known)
    chosen = [name for name in chosen
              if known[name].search_range()[0] < known[name].search_range()[1]]
    if not chosen:
        raise InputError(f"{source}: the strategy declares no parameter that can be tuned")
    return tuple(chosen)


def make_settings(game_name: str, strategy_text: str, field_text: str, players: int,
                  rules: dict[str, int], data_file: str | None, games: int, trials: int,
                  seed: int, objective: str = DEFAULT_OBJECTIVE,
                  parameters: list[str] | None = None, reevaluate: int = 3,
                  reevaluate_games: int = 0, final_games: int = 0, command: str = "",
                  guard: str | None = None, guard_share: float | None = None,
                  guard_penalty: float | None = None, guard_games: int | None = None,
                  guard_by: str | None = None, league: bool = False,
                  rounds: int | None = None) -> TuneSettings:
    """Settings from command-line style inputs, every one checked (one-line errors)."""
    game = get_game(game_name)
    game.check_players(players, "--players")
    registry = game.strategies()
    start_spec = parse_strategy(strategy_text, registry, "STRATEGY")
    info = registry[start_spec.name]
    start = {p.name: float(start_spec.parameters.get(p.name, p.default))
             for p in info.parameters}
    tuned = tunable_parameters(info.parameters, parameters, "--parameters")
    if objective not in OBJECTIVES:
        raise InputError(f"--objective: '{objective}' is not one of {', '.join(OBJECTIVES)}")
    field_items = _split_field(field_text)
    if not field_items:
        raise InputError("--field: give 'self' or at least one strategy")
    if field_items == [SELF_FIELD]:
        field_labels: tuple[str, ...] = ()
    else:
        if SELF_FIELD in field_items:
            raise InputError("--field: 'self' stands alone (the strategy at its starting "
                             "values); list other strategies without it")
        field_labels = tuple(parse_strategy(item, registry, "--field").label()
                             for item in field_items)
    if league and objective == "self-play":
        raise InputError("--league: the self-play objective has no field to grow; use "
                         "--objective wins (or another objective against a field)")
    if rounds is not None and not league:
        raise InputError("--rounds: needs --league (the rounds of a growing field)")
    league_rounds = DEFAULT_ROUNDS if rounds is None else rounds
    if league_rounds < 1:
        raise InputError(f"--rounds: must be at least 1, got {rounds}")
    if objective == "self-play" and field_labels:
        raise InputError("--field: the self-play objective seats the candidate everywhere, so "
                         "the field is 'self'; keep a rival in view with --guard instead")
    guard_label = ""
    if guard is not None and guard.strip():
        guard_label = parse_strategy(guard.strip(), registry, "--guard").label()
    else:
        for name, value in (("--guard-share", guard_share), ("--guard-penalty", guard_penalty),
                            ("--guard-games", guard_games), ("--guard-by", guard_by)):
            if value is not None:
                raise InputError(f"{name}: needs --guard (the rival to keep in view)")
    share = 0.5 if guard_share is None else float(guard_share)
    if not 0.0 < share < 1.0:
        raise InputError(f"--guard-share: must be between 0 and 1 (a share of pairs of seats, "
                         f"e.g. 0.65), got {guard_share}")
    penalty = DEFAULT_GUARD_PENALTY[objective] if guard_penalty is None else float(guard_penalty)
    if not (penalty > 0.0 and math.isfinite(penalty)):
        raise InputError(f"--guard-penalty: must be a positive number, got {guard_penalty}")
    judgement = GUARD_JUDGEMENTS[0] if guard_by is None else guard_by
    if judgement not in GUARD_JUDGEMENTS:
        raise InputError(f"--guard-by: '{guard_by}' is not one of {', '.join(GUARD_JUDGEMENTS)}")
    if guard_games is not None and guard_games < 0:
        raise InputError(f"--guard-games: must be at least 0 (0: as many as --games), got "
                         f"{guard_games}")
    for name, value, low in (("--games", games, 2), ("--trials", trials, 1),
                             ("--reevaluate", reevaluate, 1)):
        if value < low:
            raise InputError(f"{name}: must be at least {low}, got {value}")
    for name, value in (("--reevaluate-games", reevaluate_games),
                        ("--final-games", final_games)):
        if value < 0:
            raise InputError(f"{name}: must be at least 0 (0: the default), got {value}")
    if not 0 <= seed <= 2**64 - 1:
        raise InputError(f"--seed: must be from 0 to 2**64 - 1, got {seed}")
    game.load_data(data_file)  # a bad data file fails now, not in a worker
    return TuneSettings(game=game.name, strategy=start_spec.name, start=start, tuned=tuned,
                        field=field_labels, players=players, rules=dict(rules),
                        data_file=data_file, games=games, trials=trials, seed=seed,
                        objective=objective, reevaluate=reevaluate,
                        reevaluate_games=reevaluate_games, final_games=final_games,
                        command=command, guard=guard_label, guard_share=share,
                        guard_penalty=penalty, guard_games=guard_games or 0,
                        guard_by=judgement if guard_label else "estimate", league=league,
                        rounds=league_rounds, league_round=1 if league else 0)


def _split_field(text: str) -> list[str]:
    from sim.tournament import parse_strategy_list

    return parse_strategy_list(text)


def _spec(settings: TuneSettings, values: dict[str, float]) -> StrategySpec:
    """The strategy at ``values`` (only the ones that differ from the declared defaults are
    written in its label)."""
    info = get_game(settings.game).strategies()[settings.strategy]
    defaults = {p.name: float(p.default) for p in info.parameters}
    return StrategySpec(settings.strategy, {k: float(v) for k, v in values.items()
                                            if float(v) != defaults.get(k)})


def field_specs(settings: TuneSettings) -> list[StrategySpec]:
    """The opponents: the field's strategies, or the strategy at its starting values."""
    registry = get_game(settings.game).strategies()
    if settings.self_play:
        return [_spec(settings, settings.start)]
    return [parse_strategy(label, registry, "field") for label in settings.field]


def objective_sums(objective: str, played, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, the sums whose ratio is the objective for lineup entry 0 (the candidate)
    against the rest (the field): (values, counts), both float64[deals]."""
    deals = played.deals
    seat_strategy = played.seat_strategy
    deal_of_game = played.deal_of_game
    scores = played.scores.astype(np.float64)
    if objective in WIN_OBJECTIVES:
        # The game's own win shares (ties as the game breaks them), summed over the
        # candidate's seats: its share of each game, of which every game counts one.
        share = (played.wins * (seat_strategy == 0)).sum(axis=1)
        values = np.bincount(deal_of_game, weights=share, minlength=deals)
        counts = np.bincount(deal_of_game, minlength=deals).astype(np.float64)
        return values, counts
    if objective == "head-to-head":
        entries = int(seat_strategy.max()) + 1
        pair_sum, pair_count = pair_outcomes(entries, seat_strategy, deal_of_game,
                                             played.scores, deals)
        return pair_sum[:, 0, 1:].sum(axis=1), pair_count[:, 0, 1:].sum(axis=1)
    candidate = seat_strategy == 0
    # self-play: the lineup is the candidate alone, so its score is every seat's.
    if objective in ("score", "self-play"):
        values = np.bincount(deal_of_game, weights=(scores * candidate).sum(axis=1),
                             minlength=deals)
        counts = np.bincount(deal_of_game, weights=candidate.sum(axis=1), minlength=deals)
        return values, counts
    # margin: games with both the candidate and the field at the table.
    mine = candidate.sum(axis=1)
    theirs = players - mine
    both = (mine > 0) & (theirs > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = ((scores * candidate).sum(axis=1) / mine
                  - (scores * ~candidate).sum(axis=1) / theirs)
    margin = np.where(both, margin, 0.0)
    values = np.bincount(deal_of_game, weights=margin, minlength=deals)
    counts = np.bincount(deal_of_game, weights=both.astype(float), minlength=deals)
    return values, counts


def _play_objective(game: Game, data, settings: TuneSettings, lineup: list[StrategySpec],
                    objective: str, games: int, seed: int, workers: int,
                    progress: Callable[[int], None] | None, backend: str = "local",
                    scheduler: str | None = None) -> Evaluation:
    """``objective`` of lineup entry 0 against the rest over ``games`` games (whole deals x
    rotations) of master seed ``seed``."""
    deals = deals_per_lineup(len(lineup), settings.players, games)

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(done)

    played = play_rotations(game, data, settings.players, settings.rules, lineup, deals, seed,
                            workers, progress=report, backend=backend, scheduler=scheduler)
    sums, counts = objective_sums(objective, played, settings.players)
    means = ratio_means(sums[:, None], counts[:, None])
    value = float(means.means[0])
    standard_error = float(means.standard_errors[0])
    half = float(t_critical(means.clusters)) * standard_error
    return Evaluation(value, standard_error, value - half, value + half, deals,
                      int(played.scores.shape[0]), sums, counts)


def wins_evaluation(objective: str, sums: np.ndarray, counts: np.ndarray,
                    labels: list[str]) -> Evaluation:
    """The win objective from per-deal sums against each member of the field: ``sums`` and
    ``counts`` are (deals, members), the candidate's win share summed over each member's games
    of a deal and those games' number, every member on the same deals (common random numbers).

    Each member's share comes with its 95% interval clustered by deal (Wilson at the effective
    sample size, ``proportion_interval``). ``wins`` is the mean of the members' shares: the
    members' sums are averaged within each deal before the cluster variance, so the covariance
    the shared deals induce between members is counted. ``wins-min`` is the smallest share; its
    interval runs from the smallest lower to the smallest upper end of the members' simultaneous
    (max-|t|) 95% intervals, which all hold together with 95% probability, so it covers the
    smallest true share whichever member that is. Its per-deal sums (for the re-evaluation's
    contrasts) are those of the member smallest here, taken as fixed."""
    sums = np.asarray(sums, dtype=float)
    counts = np.asarray(counts, dtype=float)
    members = sums.shape[1]
    means = ratio_means(sums, counts)
    shares = means.means
    games = counts.sum(axis=0)
    low, high = proportion_interval(shares, means.standard_errors, means.clusters, games)
    rows = [{"label": label, "share": float(shares[m]), "low": float(low[m]),
             "high": float(high[m]), "games": int(games[m])}
            for m, label in enumerate(labels)]
    if objective == "wins":
        per_deal_values, per_deal_counts = sums.mean(axis=1), counts.mean(axis=1)
        overall = ratio_means(per_deal_values[:, None], per_deal_counts[:, None])
        value = float(overall.means[0])
        standard_error = float(overall.standard_errors[0])
        value_low, value_high = (float(bound) for bound in proportion_interval(
            value, standard_error, overall.clusters, float(games.sum())))
    else:
        smallest = int(np.argmin(shares))  # the first on a tie
        per_deal_values, per_deal_counts = sums[:, smallest], counts[:, smallest]
        value = float(shares[smallest])
        standard_error = float(means.standard_errors[smallest])
        if members == 1:
            value_low, value_high = float(low[0]), float(high[0])
        else:
            family = contrast_intervals(means, np.eye(members), simultaneous=True)
            # a share lies in [0, 1]: cutting the family's bounds there loses no coverage
            value_low = float(np.clip(family.low, 0.0, 1.0).min())
            value_high = float(np.clip(family.high, 0.0, 1.0).min())
    return Evaluation(value, standard_error, value_low, value_high, means.clusters,
                      int(games.sum()), per_deal_values, per_deal_counts, members=rows)


def _play_wins(game: Game, data, settings: TuneSettings, candidate: StrategySpec,
               games: int, seed: int, workers: int,
               progress: Callable[[int], None] | None, backend: str = "local",
               scheduler: str | None = None) -> Evaluation:
    """The win objective of ``candidate`` against each member of the field in two-strategy
    games, seats rotated, every member on the same deals of master seed ``seed``
    (``member_games`` each)."""
    members = field_specs(settings)
    deals = deals_per_lineup(2, settings.players, member_games(settings, games))
    sums, counts = [], []
    for index, member in enumerate(members):
        base = index * deals * lineup_count(2, settings.players)

        def report(done: int, total: int, base=base) -> None:
            if progress is not None:
                progress(base + done)

        played = play_rotations(game, data, settings.players, settings.rules,
                                [candidate, member], deals, seed, workers, progress=report,
                                backend=backend, scheduler=scheduler)
        member_sums, member_counts = objective_sums(settings.objective, played,
                                                    settings.players)
        sums.append(member_sums)
        counts.append(member_counts)
    return wins_evaluation(settings.objective, np.stack(sums, axis=1),
                           np.stack(counts, axis=1), member_labels(settings))


def member_labels(settings: TuneSettings) -> list[str]:
    """The labels of the field's members (the start's when the field is 'self')."""
    return [spec.label() for spec in field_specs(settings)]


def member_games(settings: TuneSettings, games: int) -> int:
    """Games against each member in an evaluation of ``games`` games: split evenly over the
    field (before rounding up to whole deals x rotations)."""
    return math.ceil(games / max(1, len(settings.field)))


def guard_penalty(settings: TuneSettings, share: float) -> float:
    """Objective units taken off a value whose head to head against the guard's rival is
    ``share``: ``guard_penalty`` per percentage point below ``guard_share`` (0 without a guard
    or at the minimum and above)."""
    if not settings.guard:
        return 0.0
    return settings.guard_penalty * 100.0 * max(0.0, settings.guard_share - share)


def judged_share(settings: TuneSettings, evaluation: Evaluation, fresh: bool) -> float:
    """The share against the guard's rival that is held to its minimum: the point estimate
    while searching, and on fresh deals the lower end of its 95% interval when ``guard_by`` is
    ``lower-bound``."""
    if fresh and settings.guard_by == "lower-bound":
        return evaluation.guard_low
    return evaluation.guard_share


def meets_guard(settings: TuneSettings, evaluation: Evaluation) -> bool:
    """Whether a candidate re-evaluated on fresh deals meets the guard's minimum."""
    return judged_share(settings, evaluation, fresh=True) >= settings.guard_share


def evaluate(game: Game, data, settings: TuneSettings, values: dict[str, float], games: int,
             seed: int, workers: int, progress: Callable[[int], None] | None = None,
             fresh: bool = False, backend: str = "local",
             scheduler: str | None = None) -> Evaluation:
    """The objective of the strategy at ``values`` over ``games`` games (whole deals x
    rotations) of master seed ``seed``: against the field, or in every seat for ``self-play``.
    With a guard, also its head to head against the rival (``_guard_games``) on the same
    deals, and the penalty that costs (``Evaluation.tuning_value``; on ``fresh`` deals the
    share judged is ``judged_share``'s). The games play on ``workers`` local processes or on a
    dask cluster (``backend``, ``scheduler``: ``sim.tournament.play_rotations``)."""
    where = {"backend": backend, "scheduler": scheduler}
    candidate = _spec(settings, values)
    if settings.by_wins:
        evaluation = _play_wins(game, data, settings, candidate, games, seed, workers,
                                progress, **where)
    else:
        lineup = [candidate] if settings.every_seat else [candidate, *field_specs(settings)]
        evaluation = _play_objective(game, data, settings, lineup, settings.objective, games,
                                     seed, workers, progress, **where)
    if not settings.guard:
        return evaluation
    played_games = objective_games(settings, games)
    rival = parse_strategy(settings.guard, game.strategies(), "guard")

    def report(done: int) -> None:
        if progress is not None:
            progress(played_games + done)

    guarded = _play_objective(game, data, settings, [candidate, rival], "head-to-head",
                              _guard_games(settings, games), seed, workers, report, **where)
    evaluation.guard_share = guarded.value
    evaluation.guard_low = guarded.low
    evaluation.guard_high = guarded.high
    evaluation.penalty = guard_penalty(settings, judged_share(settings, evaluation, fresh))
    return evaluation


def deals_per_lineup(entries: int, players: int, games: int) -> int:
    """Deals that ``games`` games of a lineup of ``entries`` at ``players`` seats are played on
    (whole deals, at least 2, each in every rotation of ``sim.seating.seat_schedule``)."""
    return max(2, math.ceil(games / lineup_count(entries, players)))


def games_per_lineup(entries: int, players: int, games: int) -> int:
    """Games that ``games`` games of a lineup of ``entries`` at ``players`` seats really are
    (``deals_per_lineup`` x the rotations)."""
    return deals_per_lineup(entries, players, games) * lineup_count(entries, players)


def objective_entries(settings: TuneSettings) -> int:
    """Lineup entries of an evaluation's objective games: the candidate alone in every seat,
    the candidate and one member at a time (wins objectives), or the candidate and the field
    (the start when the field is 'self')."""
    if settings.by_wins:
        return 2
    return 1 if settings.every_seat else 1 + max(1, len(settings.field))


def objective_games(settings: TuneSettings, games: int) -> int:
    """Games an evaluation of ``games`` plays for its objective (whole deals x rotations; for
    wins objectives, against every member in turn)."""
    if settings.by_wins:
        members = max(1, len(settings.field))
        return members * games_per_lineup(2, settings.players, member_games(settings, games))
    return games_per_lineup(objective_entries(settings), settings.players, games)


def _guard_games(settings: TuneSettings, games: int) -> int:
    """Games against the guard's rival in an evaluation of ``games`` objective games."""
    if settings.guard_games:
        # The re-evaluation's are scaled as its objective games are.
        return max(2, round(settings.guard_games * games / settings.games))
    return games


def games_per_evaluation(settings: TuneSettings, games: int) -> int:
    """Games an evaluation of ``games`` really plays (whole deals x rotations), with the
    guard's games."""
    total = objective_games(settings, games)
    if settings.guard:
        total += games_per_lineup(2, settings.players, _guard_games(settings, games))
    return total


def reevaluate_games(settings: TuneSettings) -> int:
    """Games per re-evaluated candidate."""
    return settings.reevaluate_games or 2 * settings.games


def final_games(settings: TuneSettings) -> int:
    """Games of the final head-to-head."""
    return settings.final_games or 4 * settings.games


def _distributions(settings: TuneSettings):
    import optuna

    info = get_game(settings.game).strategies()[settings.strategy]
    known = {p.name: p for p in info.parameters}
    distributions = {}
    for name in settings.tuned:
        parameter = known[name]
        low, high = parameter.search_range()
        log = parameter.log and low > 0
        if parameter.integer:
            distributions[name] = optuna.distributions.IntDistribution(
                int(math.ceil(low)), int(math.floor(high)), log=log)
        else:
            distributions[name] = optuna.distributions.FloatDistribution(low, high, log=log)
    return distributions


def _sampler(settings: TuneSettings, trial_number: int):
    """A CMA-ES sampler for trial ``trial_number``: seeded by (seed, trial) so that a resumed
    run asks the same trials; the optimiser state itself lives in the study."""
    import optuna

    distributions = _distributions(settings)
    x0 = {}
    for name, distribution in distributions.items():
        value = min(max(settings.start[name], distribution.low), distribution.high)
        x0[name] = int(round(value)) if isinstance(
            distribution, optuna.distributions.IntDistribution) else float(value)
    seed = int(np.random.SeedSequence(settings.seed, spawn_key=(3, trial_number))
               .generate_state(1, np.uint32)[0])
    with warnings.catch_warnings():
        # x0 is deprecated in optuna 4.9 (kept until 6.0, which pyproject excludes); it is how
        # the search starts from the strategy's own values instead of the middle of the range.
        warnings.simplefilter("ignore")
        return optuna.samplers.CmaEsSampler(x0=x0, seed=seed, n_startup_trials=1,
                                            warn_independent_sampling=False)


def _open_study(out: Path, settings: TuneSettings, sampler=None):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{(out / STUDY_FILE).resolve()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return optuna.create_study(study_name=_STUDY_NAME, storage=storage,
                                   direction="maximize", load_if_exists=True,
                                   sampler=sampler or _sampler(settings, 0))


# A sampled value is played rounded to this many significant digits, so the values a trial
# plays are the ones its label, the report and tuned.toml show, and a tuned strategy's label
# (`sim tournament --strategies NAME@tuned.toml`) has a few digits per parameter, not 17.
SIGNIFICANT_DIGITS = 4


def rounded_value(value: float, low: float, high: float) -> float:
    """``value`` to ``SIGNIFICANT_DIGITS`` significant digits, kept inside [low, high]."""
    return min(max(float(f"{value:.{SIGNIFICANT_DIGITS}g}"), low), high)


def _trial_values(settings: TuneSettings, params: dict[str, Any],
                  distributions: dict[str, Any] | None = None) -> dict[str, float]:
    """The values a trial plays: the start's, with the sampled ``params`` over them. With
    ``distributions`` (a trial about to be played) a sampled float that is not the start's
    own value is rounded (``rounded_value``); the start's values are played as given."""
    values = dict(settings.start)
    for name, value in params.items():
        value = float(value)
        distribution = (distributions or {}).get(name)
        if (distribution is not None and isinstance(params[name], float)
                and value != float(settings.start.get(name, math.nan))):
            value = rounded_value(value, distribution.low, distribution.high)
        values[name] = value
    return values


def _records(study, settings: TuneSettings) -> list[TrialRecord]:
    import optuna

    records = []
    for trial in study.get_trials(deepcopy=False):
        if trial.state != optuna.trial.TrialState.COMPLETE:
            continue
        attrs = trial.user_attrs
        # The values played, as stored when the trial was told; a trial of a run started
        # before values were rounded has none stored and played its sampled values.
        played = attrs.get("values") or _trial_values(settings, trial.params)
        records.append(TrialRecord(trial.number, {k: float(v) for k, v in played.items()},
                                   float(trial.value), attrs.get("standard_error", math.nan),
                                   attrs.get("low", math.nan), attrs.get("high", math.nan),
                                   attrs.get("objective_value", float(trial.value)),
                                   attrs.get("guard_share", math.nan),
                                   attrs.get("guard_low", math.nan),
                                   attrs.get("guard_high", math.nan),
                                   attrs.get("members")))
    return sorted(records, key=lambda r: r.number)


def check_output_folder(out: Path, settings: TuneSettings, resume: bool) -> TuneSettings:
    """A new run needs an empty (or new) folder; a resumed one the folder's own settings (the
    trial count may grow). Returns the settings to run with."""
    stored_path = out / SETTINGS_FILE
    if resume:
        if not stored_path.is_file():
            raise InputError(f"--resume {out}: no {SETTINGS_FILE} there (not a tune-strategy "
                             f"folder)")
        try:
            stored = TuneSettings.from_json(json.loads(stored_path.read_text(encoding="utf-8")))
        except (ValueError, TypeError, KeyError) as error:
            raise InputError(f"{stored_path}: damaged settings ({error})") from None
        return stored
    if out.exists() and any(out.iterdir()):
        raise InputError(f"--out {out}: the folder is not empty; use --resume {out} to go on "
                         f"with it, or another folder")
    return settings


def run_tuning(settings: TuneSettings, out: str | Path, workers: int = 1,
               progress: Callable[[int, int, str], None] | None = None, backend: str = "local",
               scheduler: str | None = None) -> TuneResult:
    """Run (or go on with) the tuning of ``settings`` in folder ``out`` (module docstring).
    ``progress(games_done, games_total, status)`` is called as games finish. Every trial, the
    re-evaluation and the final play on ``workers`` local processes or on one dask cluster
    (``backend``, ``scheduler``: ``sim.tournament.play_rotations``), with the same results."""
    check_backend(backend, scheduler)
    with backend_session(backend, workers, scheduler):
        return _run_tuning(settings, out, workers, progress,
                           {"backend": backend, "scheduler": scheduler})


def _run_tuning(settings: TuneSettings, out: str | Path, workers: int,
                progress: Callable[[int, int, str], None] | None,
                where: dict[str, Any]) -> TuneResult:
    """``run_tuning`` inside its backend session; ``where`` holds the backend and scheduler
    that every ``play_rotations`` call is given."""
    import optuna

    started = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    settings_path = out / SETTINGS_FILE
    if settings_path.is_file():
        stored = TuneSettings.from_json(json.loads(settings_path.read_text(encoding="utf-8")))
        if stored.comparable() != settings.comparable():
            raise InputError(f"{out}: holds a run with other settings; use another folder")
        if settings.trials < stored.trials:
            raise InputError(f"--trials: the run in {out} asks for {stored.trials} trials; "
                             f"give at least that many")
    write_text_atomic(settings_path, json.dumps(settings.to_json(), indent=1) + "\n")
    game = get_game(settings.game)
    data = game.load_data(settings.data_file)
    per_trial = games_per_evaluation(settings, settings.games)
    per_candidate = games_per_evaluation(settings, reevaluate_games(settings))
    final_total = final_total_games(settings)
    total = (settings.trials * per_trial + (settings.reevaluate + 1) * per_candidate
             + final_total)

    study = _open_study(out, settings)
    distributions = _distributions(settings)
    trials = {t.number: t for t in study.get_trials(deepcopy=False)}
    done_games = sum(per_trial for t in trials.values()
                     if t.state == optuna.trial.TrialState.COMPLETE)
    best = max((t.value for t in trials.values()
                if t.state == optuna.trial.TrialState.COMPLETE), default=None)

    def tell(status: str, base: int) -> Callable[[int], None]:
        def update(done: int) -> None:
            if progress is not None:
                progress(base + done, total, status)
        return update

    if not trials:
        # Trial 0 is the starting point itself: the baseline of the curve.
        study.enqueue_trial({name: _start_value(settings, name, distributions)
                             for name in settings.tuned})
    for number in range(settings.trials):
        existing = trials.get(number)
        if existing is not None and existing.state == optuna.trial.TrialState.COMPLETE:
            continue
        if existing is not None and existing.state == optuna.trial.TrialState.RUNNING:
            # Asked before an interruption: play it with the values it was given.
            trial = optuna.trial.Trial(study, existing._trial_id)
            params = existing.params
        else:
            study.sampler = _sampler(settings, number)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                trial = study.ask(distributions)
            if trial.number != number:
                raise InputError(f"{out / STUDY_FILE}: trial numbers out of order (found "
                                 f"{trial.number}, expected {number}); the study is damaged")
            params = trial.params
        status = f"trial {number + 1}/{settings.trials}" + (
            f", best {best:.4g}" if best is not None else "")
        values = _trial_values(settings, params, distributions)
        evaluation = evaluate(game, data, settings, values, settings.games, settings.seed,
                              workers, tell(status, done_games), **where)
        trial.set_user_attr("values", values)
        # The stored interval is the objective's, shifted by the penalty with the value.
        trial.set_user_attr("standard_error", evaluation.standard_error)
        trial.set_user_attr("low", evaluation.low - evaluation.penalty)
        trial.set_user_attr("high", evaluation.high - evaluation.penalty)
        if settings.guard:
            trial.set_user_attr("objective_value", evaluation.value)
            trial.set_user_attr("guard_share", evaluation.guard_share)
            trial.set_user_attr("guard_low", evaluation.guard_low)
            trial.set_user_attr("guard_high", evaluation.guard_high)
        if evaluation.members is not None:
            trial.set_user_attr("members", [[row["share"], row["low"], row["high"]]
                                            for row in evaluation.members])
        study.tell(trial, evaluation.tuning_value)
        done_games += per_trial
        best = (evaluation.tuning_value if best is None
                else max(best, evaluation.tuning_value))
    records = _records(study, settings)
    records = [r for r in records if r.number < settings.trials]

    reevaluated = _reevaluation(out, settings, records, game, data, workers,
                                tell("re-evaluating the best trials", done_games), where)
    done_games += (settings.reevaluate + 1) * per_candidate
    chosen = next(row for row in reevaluated if row["chosen"])
    best_values = {k: float(v) for k, v in chosen["values"].items()}
    final = _final(out, settings, best_values, game, data, workers,
                   tell("final head-to-head", done_games), where)
    result = TuneResult(settings, records, reevaluated, best_values, final,
                        time.perf_counter() - started, out)
    write_outputs(result)
    if progress is not None:
        progress(total, total, "done")
    return result


def _start_value(settings: TuneSettings, name: str, distributions) -> float | int:
    import optuna

    value = settings.start[name]
    if isinstance(distributions[name], optuna.distributions.IntDistribution):
        return int(round(value))
    return float(value)


def _reevaluation(out: Path, settings: TuneSettings, records: list[TrialRecord], game, data,
                  workers: int, progress, where: dict[str, Any]) -> list[dict[str, Any]]:
    """The best ``reevaluate`` distinct trials and the start, on fresh deals (stored, so a
    resumed run does not play them again)."""
    path = out / REEVALUATION_FILE
    key = {"trials": [[r.number, r.value] for r in records],
           "lineups": lineup_count(objective_entries(settings), settings.players)}
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            return stored["rows"]
    seen: set[tuple] = set()
    start_key = tuple(sorted(settings.start.items()))
    candidates: list[TrialRecord] = []
    for record in sorted(records, key=lambda r: (-r.value, r.number)):
        values_key = tuple(sorted(record.values.items()))
        if values_key in seen or values_key == start_key:
            continue
        seen.add(values_key)
        candidates.append(record)
        if len(candidates) == settings.reevaluate:
            break
    seed = derived_seed(settings.seed, _REEVALUATION_STREAM)
    games = reevaluate_games(settings)
    per_candidate = games_per_evaluation(settings, games)
    entries = [("start", None, dict(settings.start))] + [
        (f"trial {r.number}", r.number, r.values) for r in candidates]
    evaluations = []
    for index, (_, _, values) in enumerate(entries):
        base = index * per_candidate

        def update(done: int, base=base) -> None:
            progress(base + done)

        evaluations.append(evaluate(game, data, settings, values, games, seed, workers, update,
                                    fresh=True, **where))
    means = ratio_means(np.stack([e.per_deal_values for e in evaluations], axis=1),
                        np.stack([e.per_deal_counts for e in evaluations], axis=1))
    rows = []
    contrasts = None
    if len(entries) > 1:
        matrix = np.zeros((len(entries) - 1, len(entries)))
        for row in range(len(entries) - 1):
            matrix[row, row + 1], matrix[row, 0] = 1.0, -1.0
        contrasts = contrast_intervals(means, matrix, simultaneous=True)
    best_index = chosen_index(settings, evaluations)
    for index, ((label, number, values), evaluation) in enumerate(zip(entries, evaluations,
                                                                        strict=True)):
        row = {"label": label, "trial": number, "values": values,
               "tuning_value": next((r.value for r in records if r.number == number), None)
               if number is not None else next((r.value for r in records if r.number == 0),
                                               None),
               "value": evaluation.value, "low": evaluation.low, "high": evaluation.high,
               "gain": 0.0 if index == 0 else float(contrasts.estimates[index - 1]),
               "gain_low": math.nan if index == 0 else float(contrasts.low[index - 1]),
               "gain_high": math.nan if index == 0 else float(contrasts.high[index - 1]),
               "deals": evaluation.deals, "games": evaluation.games,
               "chosen": index == best_index}
        if evaluation.members is not None:
            row["members"] = evaluation.members
        if settings.guard:
            row.update({"guard_share": evaluation.guard_share,
                        "guard_low": evaluation.guard_low, "guard_high": evaluation.guard_high,
                        "meets_guard": meets_guard(settings, evaluation),
                        "tuning_value_fresh": evaluation.tuning_value})
        rows.append(row)
    write_text_atomic(path, json.dumps({"key": key, "rows": rows}, indent=1,
                                       default=_json_number) + "\n")
    return rows


def chosen_index(settings: TuneSettings, evaluations: list[Evaluation]) -> int:
    """The re-evaluated candidate to keep: the best objective on fresh deals; with a guard, the
    best of the start (entry 0, always a candidate) and the trials meeting its minimum there
    (``meets_guard``). Ties go to the earlier entry."""
    indices = range(len(evaluations))
    if settings.guard:
        indices = [0] + [i for i in indices[1:] if meets_guard(settings, evaluations[i])]
    return max(indices, key=lambda i: (evaluations[i].value, -i))


def final_lineup_labels(settings: TuneSettings, tuned: str, start: str) -> list[str]:
    """The final tournament's lineup: tuned, start, the field, and the guard's rival when it is
    not among them."""
    labels = [tuned, start]
    # a league's field holds earlier rounds' values, the start among them: each plays once
    for label in [*settings.field, *([settings.guard] if settings.guard else [])]:
        if label not in labels:
            labels.append(label)
    return labels


def final_total_games(settings: TuneSettings) -> int:
    """Games of the final comparison (for the progress bar): one tournament, or for wins
    objectives a two-strategy match against each opponent."""
    labels = final_lineup_labels(settings, "tuned", "start")
    if settings.by_wins:
        return (len(labels) - 1) * games_per_lineup(2, settings.players, final_games(settings))
    return games_per_lineup(len(labels), settings.players, final_games(settings))


def _json_number(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON: {value!r}")


def _final(out: Path, settings: TuneSettings, best_values: dict[str, float], game, data,
           workers: int, progress, where: dict[str, Any]) -> dict[str, Any] | None:
    """The tournament of the tuned values against the start (and the field) on fresh deals;
    None when the start itself was best (nothing to compare)."""
    path = out / FINAL_FILE
    tuned_spec = _spec(settings, best_values)
    start_spec = _spec(settings, settings.start)
    entries = len(final_lineup_labels(settings, tuned_spec.label(), start_spec.label()))
    # the lineup count marks the seat schedule: finals stored before the mirrored rotations
    # (strategies outnumbering seats) are played again
    key = {"tuned": tuned_spec.label(), "start": start_spec.label(),
           "lineups": lineup_count(entries, settings.players)}
    if settings.by_wins:
        # two-strategy matches against each opponent, not one tournament
        key.update({"objective": settings.objective, "lineups": lineup_count(2,
                                                                              settings.players)})
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key:
            return stored["final"]
    if tuned_spec.label() == start_spec.label():
        final = None
    elif settings.by_wins:
        final = _final_wins(settings, tuned_spec, start_spec, game, data, workers, progress,
                            where)
    else:
        registry = game.strategies()
        lineup = [tuned_spec, start_spec] + [
            parse_strategy(label, registry, "field")
            for label in final_lineup_labels(settings, tuned_spec.label(),
                                             start_spec.label())[2:]]
        seed = derived_seed(settings.seed, _FINAL_STREAM)

        def update(done: int, total: int) -> None:
            progress(done)

        result: TournamentResult = run_tournament(game, data, settings.players, settings.rules,
                                                  lineup, final_games(settings), seed, workers,
                                                  progress=update, **where)
        # the table names the two by their role (the tuned values are in the report above)
        shown = ["tuned", "start", *result.labels[2:]]
        named = replace(result, labels=shown,
                        rows=[replace(row, label=shown[index])
                              for index, row in enumerate(result.rows)])
        final = {"seed": seed, "document": result.document(), "table": named.table(),
                 "head_to_head": float(result.head_to_head[0, 1]),
                 "head_to_head_ci": float(result.head_to_head_ci[0, 1]),
                 "score_gain": float(result.rows[0].score_mean - result.rows[1].score_mean)}
        if settings.guard:
            rival = [spec.label() for spec in lineup].index(settings.guard)
            final["guard"] = {"tuned": float(result.head_to_head[0, rival]),
                              "tuned_ci": float(result.head_to_head_ci[0, rival]),
                              "start": float(result.head_to_head[1, rival]),
                              "start_ci": float(result.head_to_head_ci[1, rival])}
    write_text_atomic(path, json.dumps({"key": key, "final": final}, indent=1,
                                       default=_json_number) + "\n")
    return final


def _final_wins(settings: TuneSettings, tuned_spec: StrategySpec, start_spec: StrategySpec,
                game, data, workers: int, progress, where: dict[str, Any]) -> dict[str, Any]:
    """The tuned values against the start and against every member of the field (and the
    guard's rival), each in two-strategy games with seats rotated, all on the same fresh deals
    (``final_games`` games each): the win share of the tuned seats with its 95% interval
    (clustered by deal) and the mean scores of both sides."""
    registry = game.strategies()
    labels = final_lineup_labels(settings, tuned_spec.label(), start_spec.label())
    opponents = [start_spec] + [parse_strategy(label, registry, "field") for label in labels[2:]]
    roles = ["start"] + [label for label in labels[2:]]
    seed = derived_seed(settings.seed, _FINAL_STREAM)
    deals = deals_per_lineup(2, settings.players, final_games(settings))
    per_opponent = deals * lineup_count(2, settings.players)
    rows = []
    for index, (role, opponent) in enumerate(zip(roles, opponents, strict=True)):
        base = index * per_opponent

        def update(done: int, total: int, base=base) -> None:
            progress(base + done)

        played = play_rotations(game, data, settings.players, settings.rules,
                                [tuned_spec, opponent], deals, seed, workers, progress=update,
                                **where)
        sums, counts = objective_sums("wins", played, settings.players)
        member = wins_evaluation("wins", sums[:, None], counts[:, None], [role]).members[0]
        tuned_seats = played.seat_strategy == 0
        member.update({"opponent": opponent.label(), "deals": deals,
                       "tuned_score": float(played.scores[tuned_seats].mean()),
                       "opponent_score": float(played.scores[~tuned_seats].mean())})
        rows.append(member)
    start_row = rows[0]
    table = ["| opponent | tuned's win share (95% CI) | games | mean score, tuned | "
             "mean score, opponent |", "| --- | --- | --- | --- | --- |"]
    for row in rows:
        table.append(f"| {row['label']} | {_share(row['share'])} ({_share(row['low'])} to "
                     f"{_share(row['high'])}) | {row['games']:,} | {row['tuned_score']:.2f} | "
                     f"{row['opponent_score']:.2f} |")
    return {"seed": seed, "kind": "wins", "members": rows, "table": "\n".join(table),
            "head_to_head": start_row["share"], "head_to_head_low": start_row["low"],
            "head_to_head_high": start_row["high"],
            "head_to_head_ci": max(start_row["share"] - start_row["low"],
                                   start_row["high"] - start_row["share"]),
            "tuned_score": start_row["tuned_score"], "start_score": start_row["opponent_score"],
            "score_gain": start_row["tuned_score"] - start_row["opponent_score"],
            "games": sum(row["games"] for row in rows)}


def _format(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4g}"


def guard_judgement_text(settings: TuneSettings) -> str:
    """How a share on fresh deals is held to the guard's minimum, in words."""
    if settings.guard_by == "lower-bound":
        return "the lower end of its 95% interval"
    return "its point estimate"


def objective_text(settings: TuneSettings) -> str:
    """What a trial's value is, in words."""
    against = ("the strategy at its starting values" if settings.self_play
               else ", ".join(settings.field))
    if settings.every_seat:
        return "the mean score per seat when the candidate takes every seat of every game"
    members = ("the strategy at its starting values" if settings.self_play
               else "each of " + ", ".join(settings.field))
    match = (f"the candidate's win share against {members} in two-strategy games, seats "
             f"rotated (the game's own win shares: ties as the game breaks them), every member "
             f"on the same deals")
    if settings.objective == "wins":
        return f"the mean over the members of {match}"
    if settings.objective == "wins-min":
        return (f"the smallest over the members of {match} (its interval: from the smallest "
                f"lower to the smallest upper end of the members' simultaneous max-|t| 95% "
                f"intervals)")
    return {"head-to-head": f"share of pairs of seats in which the candidate outscores "
                            f"{against} (ties half)",
            "margin": f"the candidate's mean score minus that of {against} in the same games",
            "score": f"the candidate's mean score against {against}"}[settings.objective]


def _share(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def result_lines(result: TuneResult) -> list[str]:
    """The report's result: the gain shown (and the file holding the values), or that none
    is, why, and where the best trial's values were kept instead."""
    s = result.settings
    kept = result.kept_row
    rule = ("A gain is shown when the chosen trial's gain over the start on the "
            "re-evaluation's fresh deals has the lower end of its simultaneous 95% interval "
            "above 0" + (f", and its share against `{s.guard}` meets the guard's minimum "
                         f"there" if s.guard else "") + f"; only then is `{PARAMETERS_FILE}` "
            "written. The interval is simultaneous over every re-evaluated candidate, so it "
            "holds for the one picked as the best of them; its point estimate, the best of "
            "several, is biased upwards.")
    if result.gain_shown:
        head = (f"**Gain shown** on fresh deals: {kept['label']}, {gain_text(s, kept)}. The "
                f"values are in `{PARAMETERS_FILE}`.")
    elif kept is None:
        head = ("**No gain shown** on fresh deals: no trial differs from the start; no "
                "parameters file was written.")
    else:
        head = (f"**No gain shown** on fresh deals: {kept['label']}, the best re-evaluated "
                f"trial, {gain_text(s, kept)}; `{PARAMETERS_FILE}` was not written. Its values "
                f"are kept in `{CANDIDATE_FILE}`, marked as not shown to gain; the starting "
                f"values stay the ones to use.")
    return [head, "", rule]


def report_markdown(result: TuneResult, league: LeagueResult | None = None) -> str:
    """The short report: what was tuned and how, the values found, the re-evaluation, the
    final head-to-head, the progress curve; with ``league``, its rounds first."""
    s = result.settings
    game = get_game(s.game)
    info = game.strategies()[s.strategy]
    lines = [f"# Tuning `{s.strategy}` ({game.title}, {s.players} players)", ""]
    if s.command:
        lines += ["Command:", "", "```", s.command, "```", ""]
    if league is not None:
        lines += [*league_lines(league), ""]
    if s.league_round > 1:
        lines += [f"League round {s.league_round}: it starts from the values the round before "
                  f"accepted, which joined the field.", ""]
    rules = ", ".join(f"{k}={v}" for k, v in s.rules.items()) or "defaults"
    if s.every_seat:
        field_text = "none: the candidate takes every seat"
    elif s.self_play:
        field_text = "self-play (the strategy at its starting values)"
    else:
        field_text = ", ".join(s.field)
    lines += [
        f"- Field: {field_text}",
        f"- Rules: {rules}; data: {s.data_file or 'shipped'}",
        f"- Objective ({s.objective}): {objective_text(s)}.",
        *([f"- Guard: head to head against `{s.guard}` of at least {100 * s.guard_share:.4g}% "
           f"(every evaluation also plays {_guard_games(s, s.games):,} games against it on the "
           f"same deals; a trial's value loses {s.guard_penalty:.4g} per percentage point "
           f"below; on fresh deals the chosen values must meet it with "
           f"{guard_judgement_text(s)})."] if s.guard else []),
        f"- {s.trials} trials of {games_per_evaluation(s, s.games):,} games each, all on the "
        f"same deals and seat rotations (common random numbers), master seed {s.seed}; "
        f"optimiser: optuna CMA-ES sampler started from the starting values (trial 0).",
        f"- Re-evaluation: the best {s.reevaluate} trials and the start on "
        f"{games_per_evaluation(s, reevaluate_games(s)):,} fresh games each (seed "
        f"{derived_seed(s.seed, _REEVALUATION_STREAM)}); gains with simultaneous 95% intervals "
        f"(cluster-robust by deal, max-|t| over the candidates).",
        f"- Took {result.seconds:,.0f} s in this session.", "",
        "## Result", "", *result_lines(result), "",
        "## Parameters", "",
    ]
    kept = result.kept_row
    shown_values = result.best_values if kept is None else kept["values"]
    column = "tuned" if result.gain_shown else (
        "best trial (no gain shown)" if kept is not None else "chosen")
    lines += [f"| parameter | start | {column} | searched range | what it does |",
              "| --- | --- | --- | --- | --- |"]
    for parameter in info.parameters:
        searched = parameter.name in s.tuned
        low, high = parameter.search_range()
        scale = " (log)" if parameter.log else ""
        lines.append(f"| `{parameter.name}` | {_format(s.start[parameter.name])} | "
                     f"{_format(shown_values[parameter.name])} | "
                     f"{f'{_format(low)} .. {_format(high)}{scale}' if searched else 'fixed'} "
                     f"| {parameter.help} |")
    if result.gain_shown:
        lines += ["", f"Use them with `--strategy {s.strategy}@{result.out / PARAMETERS_FILE}` "
                      f"(or copy `{PARAMETERS_FILE}` anywhere)."]
    lines += ["", "## Re-evaluation on fresh deals", ""]
    guard_header = f" against `{s.guard}` (95% CI) |" if s.guard else ""
    lines += ["| candidate | value in tuning | value on fresh deals (95% CI) | gain over start "
              f"(simultaneous 95% CI) |{guard_header} chosen |",
              "| --- | --- | --- | --- |" + (" --- |" if s.guard else "") + " --- |"]
    for row in result.reevaluated:
        gain = ("-" if row["trial"] is None else
                f"{row['gain']:+.4g} ({row['gain_low']:+.4g} to {row['gain_high']:+.4g})")
        guard = (f" {_share(row['guard_share'])} ({_share(row['guard_low'])} to "
                 f"{_share(row['guard_high'])}){'' if row['meets_guard'] else ', below'} |"
                 if s.guard else "")
        # The start against itself head to head is 0.5 in every deal: no interval to give.
        fresh = (f"{row['value']:.4g} (no interval: the same in every deal)"
                 if row["low"] == row["high"] else
                 f"{row['value']:.4g} ({row['low']:.4g} to {row['high']:.4g})")
        lines.append(f"| {row['label']} | {_format(row['tuning_value'])} | {fresh} | {gain} |"
                     f"{guard} {'yes' if row['chosen'] else ''} |")
    if s.by_wins:
        lines += ["", "Win shares against each member on these fresh deals (95% CI, clustered "
                      "by deal):", "",
                  "| candidate | " + " | ".join(f"`{label}`" for label in member_labels(s))
                  + " |", "| --- |" + " --- |" * len(member_labels(s))]
        for row in result.reevaluated:
            lines.append(f"| {row['label']} | " + " | ".join(
                f"{_share(m['share'])} ({_share(m['low'])} to {_share(m['high'])})"
                for m in row.get("members", [])) + " |")
    if s.guard:
        lines += ["", "Values in tuning are after the guard's penalty; values and gains on "
                      "fresh deals are the objective alone. The chosen values are the best "
                      f"re-evaluated ones at {100 * s.guard_share:.4g}% or more against "
                      f"`{s.guard}` on these deals, judged by {guard_judgement_text(s)}, or the "
                      "start when none of them scores more."]
    lines += ["", "## Final head-to-head: tuned against the start", ""]
    if result.final is None:
        lines.append("The starting values were best on fresh deals: nothing was tuned.")
    else:
        final = result.final
        if not result.gain_shown:
            lines += [f"No gain was shown on fresh deals: 'tuned' below is the chosen trial "
                      f"(kept in `{CANDIDATE_FILE}`), not values to use.", ""]
        if final.get("kind") == "wins":
            lines += [f"Tuned against start: win share {_share(final['head_to_head'])} "
                      f"({_share(final['head_to_head_low'])} to "
                      f"{_share(final['head_to_head_high'])}, 95% CI clustered by deal); mean "
                      f"score {final['tuned_score']:.2f} (tuned) against "
                      f"{final['start_score']:.2f} (start) in those games. Each row below is "
                      f"a two-strategy match, seats rotated, on the same deals no trial or "
                      f"re-evaluation played (seed {final['seed']}):", "", final["table"]]
        else:
            lines += [f"Tuned against start: {100 * final['head_to_head']:.1f}% ± "
                      f"{100 * final['head_to_head_ci']:.1f}% head to head (95% CI, by deal); "
                      f"mean score {final['score_gain']:+.2f}."]
        if final.get("guard"):
            guard = final["guard"]
            lines += [f"Against `{s.guard}`: tuned {100 * guard['tuned']:.1f}% ± "
                      f"{100 * guard['tuned_ci']:.1f}%, start {100 * guard['start']:.1f}% ± "
                      f"{100 * guard['start_ci']:.1f}% (the guard's minimum: "
                      f"{100 * s.guard_share:.4g}%)."]
        if final.get("kind") != "wins":
            lines += [f"A tournament on deals no trial or re-evaluation played (seed "
                      f"{final['seed']}):", "", "```", final["table"], "```"]
    lines += ["", "## Progress", "", f"![progress]({CURVE_FILE})", "",
              "| trial | value (95% CI) | "
              + (f"objective | against `{s.guard}` | " if s.guard else "")
              + ("win share by member | " if s.by_wins else "")
              + " | ".join(s.tuned) + " |",
              "| --- | --- | " + ("--- | --- | " if s.guard else "")
              + ("--- | " if s.by_wins else "")
              + " | ".join("---" for _ in s.tuned) + " |"]
    for record in sorted(result.trials, key=lambda r: -r.value)[:10]:
        guard = (f"{record.objective_value:.4g} | {_share(record.guard_share)} | "
                 if s.guard else "")
        shares = (", ".join(_share(member[0]) for member in record.members or []) + " | "
                  if s.by_wins else "")
        lines.append(f"| {record.number} | {record.value:.4g} ({_format(record.low)} to "
                     f"{_format(record.high)}) | {guard}{shares}"
                     + " | ".join(_format(record.values[name]) for name in s.tuned) + " |")
    lines.append("")
    lines.append("(the ten best trials by their tuning value; the values of the best trials are "
                 "biased upwards, which is why they are re-evaluated)")
    return "\n".join(lines) + "\n"


def progress_curve(result: TuneResult) -> bytes:
    """PNG: every trial's value with its interval, the running best, the start's level."""
    from matplotlib.ticker import MaxNLocator

    from sim.report.plots import NEUTRAL, png_bytes, styled_figure

    records = result.trials
    numbers = np.array([r.number for r in records])
    values = np.array([r.value for r in records])
    low = np.array([r.low for r in records])
    high = np.array([r.high for r in records])
    with styled_figure(1) as (figure, (axis,)):
        # Drawn in this order from the back: the start's level, the trials, then "best so
        # far" on top, solid and thicker, so that it shows where it runs along the start.
        start = next((r.value for r in records if r.number == 0), None)
        if start is not None:
            axis.axhline(start, color="#7f7f7f", linestyle=":", linewidth=1.2, zorder=1,
                         label="start (trial 0)")
        axis.errorbar(numbers, values, yerr=[values - low, high - values], fmt="o",
                      color=NEUTRAL, alpha=0.6, capsize=2, zorder=2, label="trial (95% CI)")
        axis.step(numbers, np.maximum.accumulate(values), where="post", color="#d62728",
                  linewidth=2.2, zorder=3, label="best so far")
        # Trials are counted: whole-number ticks only.
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_xlabel("trial")
        axis.set_ylabel(result.settings.objective + (" less the guard's penalty"
                                                      if result.settings.guard else ""))
        axis.set_title(f"Tuning {result.settings.strategy}: {result.settings.objective} "
                       f"per trial")
        axis.legend(loc="lower right")
        return png_bytes(figure)


def _finite(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def final_wins_fields(final: dict[str, Any]) -> dict[str, Any]:
    """The ``[tuning]`` fields of a wins final: the tuned values' win share against the start
    and against each other opponent with 95% intervals (clustered by deal) and games."""
    start = final["members"][0]
    fields: dict[str, Any] = {
        "final_win_share_vs_start": start["share"], "final_win_share_vs_start_low": start["low"],
        "final_win_share_vs_start_high": start["high"], "final_games_vs_start": start["games"],
        "final_mean_score_tuned": start["tuned_score"],
        "final_mean_score_start": start["opponent_score"]}
    fields["final_win_shares"] = "; ".join(
        f"{row['label']}: {_share(row['share'])} ({_share(row['low'])} to "
        f"{_share(row['high'])}, 95% CI), {row['games']} games" for row in final["members"])
    fields["final_games"] = final["games"]
    return fields


def games_played(result: TuneResult) -> int:
    """Games the run played: every trial, the re-evaluation and the final comparison."""
    s = result.settings
    total = len(result.trials) * games_per_evaluation(s, s.games)
    total += len(result.reevaluated) * games_per_evaluation(s, reevaluate_games(s))
    if result.final is not None:
        total += (result.final["games"] if "games" in result.final
                  else int(result.final["document"].get("games", 0)))
    return total


def write_outputs(result: TuneResult) -> None:
    """The parameters file, the report and the progress curve, each written atomically.

    The parameters go to ``tuned.toml`` only when the gain is shown (``TuneResult.gain_shown``);
    otherwise the best trial's go to ``candidate.toml``, its first line saying so. A file of
    the other kind left by an earlier run in the folder (``--resume`` with more trials) is
    removed, so the folder never holds a ``tuned.toml`` its report does not back."""
    s = result.settings
    row = result.kept_row
    shown = result.gain_shown
    kept_file = PARAMETERS_FILE if shown else CANDIDATE_FILE
    for name in (PARAMETERS_FILE, CANDIDATE_FILE):
        if name != kept_file or row is None:
            (result.out / name).unlink(missing_ok=True)
    if row is not None:
        tuning = {"game": s.game, "players": s.players,
                  "rules": ", ".join(f"{k}={v}" for k, v in s.rules.items()),
                  "field": ",".join(s.field) or SELF_FIELD, "objective": s.objective,
                  "trials": s.trials, "games_per_trial": games_per_evaluation(s, s.games),
                  "seed": s.seed, "gain_shown": shown, "chosen_trial": -1
                  if result.chosen_row["trial"] is None else result.chosen_row["trial"],
                  "trial": row["trial"], "fresh_value": row["value"],
                  "fresh_gain": row["gain"]}
        tuning.update({key: row[name] for key, name in (("fresh_gain_low", "gain_low"),
                                                        ("fresh_gain_high", "gain_high"))
                       if _finite(row[name])})
        tuning["fresh_gain_interval"] = (
            f"simultaneous 95% (max-|t| over the start and {len(result.reevaluated) - 1} "
            f"re-evaluated trials, clustered by deal), {row['games']} games each")
        if s.league_round:
            tuning["league_round"] = s.league_round
        if s.guard:
            tuning.update({"guard": s.guard, "guard_share": s.guard_share,
                           "guard_by": s.guard_by, "meets_guard": bool(row["meets_guard"])})
            tuning.update({key: row[name] for key, name in
                           (("fresh_guard_share", "guard_share"),
                            ("fresh_guard_low", "guard_low")) if _finite(row[name])})
        if result.final is not None and row["chosen"]:
            if result.final.get("kind") == "wins":
                tuning.update(final_wins_fields(result.final))
            else:
                tuning["final_head_to_head"] = result.final["head_to_head"]
            if result.final.get("guard"):
                tuning["final_guard_head_to_head"] = result.final["guard"]["tuned"]
        tuning["games_played"] = games_played(result)
        if s.command:
            tuning["command"] = s.command
        if shown:
            comment = (f"{s.strategy}: parameters found by sim tune-strategy (see report.md "
                       f"beside it).\nUse: --strategy {s.strategy}@{PARAMETERS_FILE}")
        else:
            # The first line says what the file is not, before anything else is read.
            comment = (f"{outcome_text(result)}.\nNot tuned values: trial {row['trial']}, the "
                       f"best re-evaluated one, kept so the work is not lost (see report.md).")
        write_text_atomic(result.out / kept_file,
                          format_parameters_file(s.strategy, row["values"], tuning, comment))
    from sim.report.plots import write_figure_files

    # The progress curve as PNG with its SVG beside it (progress.png, progress.svg).
    write_figure_files(result.out, CURVE_FILE.removesuffix(".png"), progress_curve(result))
    write_text_atomic(result.out / REPORT_FILE, report_markdown(result))


@dataclass
class LeagueResult:
    """The rounds of a growing field (``--league``): round 1 in the output folder itself,
    round k in ``OUT/round-k``; each round after the first starts from the values the round
    before it accepted, with them added to its field."""

    rounds: list[TuneResult]
    out: Path

    @property
    def accepted(self) -> TuneResult | None:
        """The last round whose gain was shown (its values are ``OUT/tuned.toml``)."""
        return next((result for result in reversed(self.rounds) if result.gain_shown), None)


def round_seed(seed: int, number: int) -> int:
    """The master seed of league round ``number`` (2, 3, ...): fresh deals for its trials,
    re-evaluation and final (``SeedSequence(seed, spawn_key=(4, number))``)."""
    state = np.random.SeedSequence(seed, spawn_key=(_ROUND_STREAM, number)).generate_state(
        2, np.uint32)
    return int(state[0]) | (int(state[1]) << 32)


def round_settings(base: TuneSettings, previous: TuneResult, number: int) -> TuneSettings:
    """The settings of league round ``number``: it starts from the values ``previous``
    accepted, which join its field (after the round before's members, or the start when that
    field was 'self'); everything else as ``base``, on its own master seed. The round's folder
    is a normal run folder, so its settings start no further rounds themselves."""
    before = previous.settings
    accepted = {k: float(v) for k, v in previous.chosen_row["values"].items()}
    members = list(before.field) or [_spec(before, before.start).label()]
    grown = list(dict.fromkeys([*members, _spec(before, accepted).label()]))
    return replace(base, start=accepted, field=tuple(grown), seed=round_seed(base.seed, number),
                   league=False, league_round=number)


def run_league(settings: TuneSettings, out: str | Path, workers: int = 1,
               progress: Callable[[int, int, str], None] | None = None, backend: str = "local",
               scheduler: str | None = None) -> LeagueResult:
    """Run (or go on with) a league: round 1 in ``out``, then while a round's gain is shown and
    fewer than ``settings.rounds`` have run, another in ``out/round-k`` (``round_settings``).
    Stops at the first round with no gain shown. ``out/tuned.toml`` ends as the last accepted
    round's, and ``out/report.md`` lists the rounds. A resumed league replays nothing stored:
    every round's trials, re-evaluation and final are kept in its folder. Every round plays on
    ``workers`` local processes or on one dask cluster (``backend``, ``scheduler``)."""
    check_backend(backend, scheduler)
    with backend_session(backend, workers, scheduler):
        return _run_league(settings, Path(out), workers, progress, backend, scheduler)


def _run_league(settings: TuneSettings, out: Path, workers: int,
                progress: Callable[[int, int, str], None] | None, backend: str,
                scheduler: str | None) -> LeagueResult:
    """``run_league`` inside its backend session."""

    def in_round(number: int) -> Callable[[int, int, str], None] | None:
        if progress is None:
            return None
        return lambda done, total, status: progress(done, total, f"round {number}: {status}")

    rounds = [run_tuning(settings, out, workers, in_round(1), backend, scheduler)]
    while rounds[-1].gain_shown and len(rounds) < settings.rounds:
        number = len(rounds) + 1
        rounds.append(run_tuning(round_settings(settings, rounds[-1], number),
                                 out / ROUND_FOLDER.format(number), workers, in_round(number),
                                 backend, scheduler))
    league = LeagueResult(rounds, out)
    accepted = league.accepted
    if accepted is not None and accepted.out != out:
        write_text_atomic(out / PARAMETERS_FILE,
                          (accepted.out / PARAMETERS_FILE).read_text(encoding="utf-8"))
    write_text_atomic(out / REPORT_FILE, report_markdown(rounds[0], league))
    return league


def league_lines(league: LeagueResult) -> list[str]:
    """The report's league section: per round its folder, field, chosen values and gain on
    fresh deals, and which round's values ``tuned.toml`` holds."""
    first = league.rounds[0].settings
    lines = ["## League rounds", "",
             f"A growing field (`--league`, at most {first.rounds} rounds): after each round "
             f"the chosen values, if their gain over the round's start was shown on fresh "
             f"deals, join the field and the next round starts from them; the league stops "
             f"at the first round with no gain shown. Each round is a normal run folder; this "
             f"report's later sections are round 1's.", "",
             "| round | folder | field | chosen values | gain on fresh deals (simultaneous 95% "
             "CI) | gain shown |", "| --- | --- | --- | --- | --- | --- |"]
    for number, result in enumerate(league.rounds, start=1):
        s = result.settings
        folder = "." if result.out == league.out else ROUND_FOLDER.format(number)
        field_text = ", ".join(f"`{label}`" for label in s.field) or "self (the start)"
        row = result.kept_row
        values = ("-" if row is None else
                  ", ".join(f"{name}={_format(row['values'][name])}" for name in s.tuned))
        gain = ("-" if row is None else f"{row['gain']:+.4g} ({row['gain_low']:+.4g} to "
                                        f"{row['gain_high']:+.4g}) in {s.objective}")
        lines.append(f"| {number} | `{folder}` | {field_text} | {values} | {gain} | "
                     f"{'yes' if result.gain_shown else 'no'} |")
    accepted = league.accepted
    if accepted is None:
        lines += ["", f"No round showed a gain: no `{PARAMETERS_FILE}` was written."]
    else:
        number = league.rounds.index(accepted) + 1
        lines += ["", f"`{PARAMETERS_FILE}` holds round {number}'s values, the last accepted "
                      f"round's."]
    return lines
