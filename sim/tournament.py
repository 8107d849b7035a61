"""Round-robin tournaments of strategies with common random numbers.

Design (printed in the header of every table):
- S strategies, N seats. The seat schedule has S lineups: in lineup ``j`` seat ``p`` plays
  strategy ``(j + p) mod S``. Over the S lineups every strategy sits in every seat equally often
  (once per seat and deal when S >= N), and every pair of strategies meets when S <= 2N - 1.
- When S > N the schedule adds the S mirrored lineups, in which seat ``p`` plays
  ``(j - p) mod S`` (2S lineups). Without them two strategies meet in one seat order only: of
  three strategies at two seats, strategy 0 would always sit before 1, 1 before 2 and 2 before
  0, and the head to head of each pair would carry the first seat's advantage. With them every
  pair meets equally often in either order, on the same seats. (When S <= N every strategy
  takes every seat of every deal, so the cyclic lineups are balanced already.)
- Every deal is played once with each lineup, and the games of one deal share both the deal seed
  (draw order, removed tiles) and the strategy seed: the same deals for every pairing and seat
  rotation (common random numbers), so differences come from the strategies, not from the luck.
  ``games`` is rounded up to a whole number of deals x lineups.
- Seeds: deal ``d`` uses ``seeding.deal_seeds(seed, [d])`` and ``seeding.strategy_seeds(seed, [d],
  [0])``; each game is a pure function of its seeds, so the results are identical for any
  number of worker processes.

Statistics, all clustered by deal (the unit that is independent):
- score: mean final score of the strategy's seats; 95% CI from the per-deal means (t on deals - 1
  degrees of freedom: every deal gives each strategy the same number of seats, so this is the
  cluster-robust interval with the deal as the cluster).
- win rate: share of games won (a shared win counts 1/k); 95% CI the same way. With N seats a
  strategy as strong as the field wins 1/N of its games.
- head-to-head: for strategies a != b, over every game and every pair of seats (a in one, b in the
  other), 1 when a's score is higher, 1/2 on a tie, 0 otherwise; 95% CI from per-deal means.
- rating: Bradley-Terry strengths fitted by Hunter's MM algorithm on all those pairwise outcomes
  (ties count half a win each), shown on the Elo scale: 400 log10(strength), mean 0, with a 95%
  percentile interval from 1,000 resamples of the deals (each resample refits the model; the seed
  is fixed, so the interval is reproducible).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from sim.distributed import check_backend, dask_client, map_in_order, worker_threads
from sim.errors import InputError
from sim.games.base import Game, StrategySpec
from sim.profile import profile_markdown
from sim.seating import lineup_count, seat_schedule
from sim.seeding import deal_seeds, strategy_seeds
from sim.stats.ratings import (  # noqa: F401 (the tournament's own names, re-exported)
    BOOTSTRAP_RESAMPLES,
    StrategyRow,
    analyse,
    bradley_terry,
    elo_ratings,
    pair_outcomes,
    rating_intervals,
)


def _rate(games: int, seconds: float) -> str:
    """Games per second, with a decimal when below 10 (a slow lineup is not "0 games/s")."""
    rate = games / max(seconds, 1e-9)
    return f"{rate:,.1f}" if rate < 10 else f"{rate:,.0f}"

@dataclass
class TournamentResult:
    """Everything a tournament measured; ``table()`` prints it."""

    game_title: str
    players: int
    labels: list[str]
    deals: int
    games: int
    seed: int
    workers: int
    seconds: float
    rows: list[StrategyRow]
    head_to_head: np.ndarray  # [S, S] win rate of row against column, NaN when they never met
    head_to_head_ci: np.ndarray
    compile_seconds: list[float] = field(default_factory=list)
    # The markdown section "What the bots play like" (``sim.profile.profile_markdown``).
    profile: str = ""
    # Where the games were played: ``local`` worker processes or a ``dask`` cluster.
    backend: str = "local"

    def markdown(self) -> str:
        """The tournament as a markdown document: the printed table, then the profile."""
        lines = [f"# {self.game_title} tournament, {self.players} players", "", "```",
                 self.table(), "```", ""]
        if self.profile:
            lines.append(self.profile)
        return "\n".join(lines)

    def table(self) -> str:
        """The printed report: design header, per-strategy table, head-to-head matrix."""
        s = len(self.labels)
        lineups = lineup_count(s, self.players)
        mirrored = (f", and in rotation {s} + j, (j - p) mod {s} (every pair meets in both "
                    f"seat orders)" if lineups > s else "")
        lines = [
            f"{self.game_title} tournament: {self.players} players, {s} strategies, "
            f"{self.games:,} games = {self.deals:,} deals x {lineups} seat rotations, seed "
            f"{self.seed}",
            f"design: in rotation j seat p plays strategy (j + p) mod {s}{mirrored}; every deal "
            f"is played in every rotation with the same deal and strategy seeds (common random "
            f"numbers)",
            "CIs: 95%, t, from per-deal means (deals are the independent units); rating: "
            "Bradley-Terry (MM) on pairwise outcomes within games, ties half, Elo scale "
            "(400 log10 strength), mean 0, 95% interval from 1,000 deal resamples",
            f"played in {self.seconds:.1f} s ({_rate(self.games, self.seconds)} games/s)"
            f" with {self.workers} {'dask ' if self.backend == 'dask' else ''}worker(s)",
        ]
        if self.compile_seconds:
            lines.append("kernel variant compile time (compiled user strategies), per worker: "
                         + ", ".join(f"{t:.1f} s" for t in self.compile_seconds))
        width = max(8, max(len(label) for label in self.labels))
        lines.append("")
        lines.append(f"{'strategy':{width}s}  {'seat-games':>10s}  {'score (95% CI)':>17s}  "
                     f"{'win rate (95% CI)':>19s}  {'rating (95% CI)':>19s}")
        for row in sorted(self.rows, key=lambda r: -r.rating):
            lines.append(f"{row.label:{width}s}  {row.seat_games:10,d}  "
                         f"{row.score_mean:8.2f} ± {row.score_ci:5.2f}  "
                         f"{_rate_with_ci(row.win_rate, row.win_ci):>19s}  "
                         f"{row.rating:6.0f} ({row.rating_low:.0f} to {row.rating_high:.0f})")
        lines.append("")
        lines.append("head-to-head: how often the row strategy outscores the column strategy "
                     "when both play in one game (ties half), % ± 95% CI")
        cell = 13
        # A label longer than a cell (a tuned strategy's parameters) is not cut to a prefix
        # that may name two strategies: the columns are then numbered and each row says its
        # number before its full label.
        numbered = any(len(label) > cell for label in self.labels)
        heads = [f"[{k}]" for k in range(1, s + 1)] if numbered else self.labels
        names = ([f"[{k}] {label}" for k, label in enumerate(self.labels, start=1)]
                 if numbered else self.labels)
        name_width = max(width, *(len(name) for name in names))
        lines.append(" " * name_width + "  " + "".join(f"{head:>{cell + 1}s}" for head in heads))
        for a, label in enumerate(names):
            parts = []
            for b in range(s):
                if a == b or math.isnan(self.head_to_head[a, b]):
                    parts.append(f"{'-':>{cell + 1}s}")
                else:
                    rate = 100 * self.head_to_head[a, b]
                    text = f"{rate:.1f}±{100 * self.head_to_head_ci[a, b]:.1f}"
                    parts.append(f"{text:>{cell + 1}s}")
            lines.append(f"{label:{name_width}s}  " + "".join(parts))
        return "\n".join(lines)

    def document(self) -> dict:
        """The result as a JSON-ready dict."""
        return {
            "players": self.players, "strategies": self.labels, "deals": self.deals,
            "games": self.games, "seed": self.seed,
            "rows": [vars(row) for row in self.rows],
            "head_to_head": [[None if math.isnan(v) else float(v) for v in row]
                             for row in self.head_to_head],
            "head_to_head_ci": [[None if math.isnan(v) else float(v) for v in row]
                                for row in self.head_to_head_ci],
        }


def parse_strategy_list(text: str) -> list[str]:
    """Split ``a,b:k=1,j=2,c`` into strategy texts: an item with ``=`` and no ``:`` continues
    the parameters of the item before it."""
    items: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and items:
            items[-1] += "," + part
        else:
            items.append(part)
    return items


def _play_chunk(game: Game, data, players: int, rules: dict, lineup: list[StrategySpec],
                seat_strategy: np.ndarray, deals: np.ndarray, strategy: np.ndarray):
    """Worker: play one chunk; returns (scores, wins, compile seconds or None, profile: the
    game's ``profile_columns`` as [games, players] arrays in the dtype the shard gave)."""
    before = game.variant_compile_seconds()
    columns = game.play_shard(data, players, rules, lineup, seat_strategy, deals, strategy)
    compiled = None
    for key, seconds in game.variant_compile_seconds().items():
        if before.get(key) is None and seconds is not None:
            compiled = seconds
    games = len(deals)
    # Copies, so the shard's other columns (card lists, traces) are not kept alive.
    profile = {name: np.array(columns[name]).reshape(games, players)
               for name in game.profile_columns}
    return (columns["score"].reshape(games, players).astype(np.int64),
            columns["win"].reshape(games, players).astype(np.float64), compiled, profile)


def _rate_with_ci(rate: float, ci: float) -> str:
    """``25.3% ± 1.2%``, or the rate with the reason there is no interval: every deal gave the
    same rate (e.g. a strategy that never won), or a single deal was played."""
    if math.isnan(rate):
        return "no games"
    if math.isnan(ci):
        return f"{100 * rate:.1f}% (1 deal, no CI)"
    if ci == 0.0:
        return f"{100 * rate:.1f}% (no CI: same in every deal)"
    return f"{100 * rate:.1f}% ± {100 * ci:4.1f}%"


# A tournament keeps every game's seats, seeds and scores in memory (about 150 bytes a game):
# ten million games is a gigabyte and half an hour on two cores.
MAX_TOURNAMENT_GAMES = 10_000_000


@dataclass
class RotationGames:
    """The games of a rotated design: seat strategies, deal of each game, scores, wins and the
    profile (the game's ``profile_columns``: how each seat played, for ``sim.profile``)."""

    seat_strategy: np.ndarray  # int64[games, players], indexes the lineup
    deal_of_game: np.ndarray  # int64[games]
    scores: np.ndarray  # int64[games, players]
    wins: np.ndarray  # float64[games, players] win shares
    deals: int
    seconds: float
    compile_seconds: list[float]
    # Per profile column, [games, players] in the shard's own small integer dtype (a few bytes
    # a seat: a long tournament keeps every game in memory); empty for a game without.
    profile: dict[str, np.ndarray] = field(default_factory=dict)
    players: int = 0  # seats per game (0: read it from seat_strategy)
    rules: dict[str, int] = field(default_factory=dict)  # the rules played (missing: defaults)
    # What played them: local worker processes, or a dask cluster's worker threads.
    workers: int = 1
    backend: str = "local"


def play_rotations(game: Game, data, players: int, rules: dict, lineup: list[StrategySpec],
                   deals: int, seed: int, workers: int = 1, chunk_deals: int | None = None,
                   progress=None, first_deal: int = 0, backend: str = "local",
                   scheduler: str | None = None) -> RotationGames:
    """Play deals ``first_deal .. first_deal + deals - 1`` of master seed ``seed`` in every seat
    rotation of ``lineup`` (module docstring): the same deal and strategy seeds in every
    rotation, so every lineup entry meets the same luck. ``progress(games_done, games_total)``
    is called as chunks finish. The games depend neither on ``workers`` nor on ``backend``:
    ``local`` plays on ``workers`` processes here, ``dask`` on a dask.distributed cluster
    (``sim.distributed.dask_client``: the one a surrounding ``backend_session`` holds open,
    else a LocalCluster of ``workers`` processes or the cluster of ``scheduler``); the chunks
    are joined in their own order either way."""
    check_backend(backend, scheduler)
    if backend == "dask":
        with dask_client(workers, scheduler) as client:
            return _play_rotations(game, data, players, rules, lineup, deals, seed, workers,
                                   chunk_deals, progress, first_deal, client)
    return _play_rotations(game, data, players, rules, lineup, deals, seed, workers,
                           chunk_deals, progress, first_deal, None)


def _play_rotations(game: Game, data, players: int, rules: dict, lineup: list[StrategySpec],
                    deals: int, seed: int, workers: int, chunk_deals: int | None, progress,
                    first_deal: int, client) -> RotationGames:
    """``play_rotations`` on local processes, or on ``client``'s cluster when given."""
    schedule = seat_schedule(len(lineup), players)
    per_deal = len(schedule)  # lineups
    deal_ids = np.arange(first_deal, first_deal + deals)
    deal_seed = deal_seeds(seed, deal_ids)
    strategy_seed = strategy_seeds(seed, deal_ids, np.zeros(deals, dtype=np.int64))
    deal_of_game = np.repeat(np.arange(deals), per_deal)
    seat_strategy = np.tile(schedule, (deals, 1))
    game_deal_seeds = deal_seed[deal_of_game]
    game_strategy_seeds = strategy_seed[deal_of_game]
    total = deals * per_deal
    # On a cluster, as many workers as it runs tasks at once (a scheduler's cluster may be
    # larger or smaller than --workers); the chunking changes no result.
    workers = worker_threads(client) if client is not None else workers
    if chunk_deals is None:
        chunk_deals = max(1, math.ceil(deals / (8 * workers)))
    bounds = [(start * per_deal, min(deals, start + chunk_deals) * per_deal)
              for start in range(0, deals, chunk_deals)]
    started = time.perf_counter()
    tasks = [(game, data, players, rules, lineup, seat_strategy[a:b], game_deal_seeds[a:b],
              game_strategy_seeds[a:b]) for a, b in bounds]
    outputs = []
    if client is not None:
        finished = [0]

        def chunk_done(_index: int, output) -> None:
            finished[0] += len(output[0])
            if progress is not None:
                progress(finished[0], total)

        outputs = map_in_order(client, _play_chunk, tasks, chunk_done)
    elif workers == 1:
        for task in tasks:
            outputs.append(_play_chunk(*task))
            if progress is not None:
                progress(sum(len(o[0]) for o in outputs), total)
    else:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator")
        for output in parallel(delayed(_play_chunk)(*task) for task in tasks):
            outputs.append(output)
            if progress is not None:
                progress(sum(len(o[0]) for o in outputs), total)
    seconds = time.perf_counter() - started
    scores = np.concatenate([output[0] for output in outputs])
    wins = np.concatenate([output[1] for output in outputs])
    compile_seconds = [output[2] for output in outputs if output[2] is not None]
    profile = {name: np.concatenate([output[3][name] for output in outputs])
               for name in game.profile_columns}
    return RotationGames(seat_strategy, deal_of_game, scores, wins, deals, seconds,
                         compile_seconds, profile, players, dict(rules), workers,
                         "dask" if client is not None else "local")


def run_tournament(game: Game, data, players: int, rules: dict, lineup: list[StrategySpec],
                   games: int, seed: int, workers: int = 1,
                   chunk_deals: int | None = None, progress=None, backend: str = "local",
                   scheduler: str | None = None) -> TournamentResult:
    """Play the tournament described in the module docstring and analyse it, on ``workers``
    local processes or on a dask cluster (``backend``, ``scheduler``: ``play_rotations``); the
    result does not depend on where it was played."""
    check_backend(backend, scheduler)
    s = len(lineup)
    if s < 2:
        raise InputError("--strategies: give at least two strategies")
    labels = [spec.label() for spec in lineup]
    if len(set(labels)) != s:
        raise InputError(f"--strategies: a strategy is listed twice ({', '.join(labels)})")
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    if games > MAX_TOURNAMENT_GAMES:
        raise InputError(f"--games: at most {MAX_TOURNAMENT_GAMES:,} in a tournament (it keeps "
                         f"every game in memory), got {games:,}; for more, use sim run with a "
                         f"rotating --pool")
    if workers < 1:
        raise InputError(f"--workers: must be at least 1, got {workers}")
    lineups = lineup_count(s, players)
    deals = math.ceil(games / lineups)
    played = play_rotations(game, data, players, rules, lineup, deals, seed, workers,
                            chunk_deals, progress, backend=backend, scheduler=scheduler)
    rows, head, head_ci = analyse(labels, played.seat_strategy, played.deal_of_game,
                                  played.scores, played.wins, deals)
    return TournamentResult(game.title, players, labels, deals, deals * lineups, seed,
                            played.workers, played.seconds, rows, head, head_ci,
                            played.compile_seconds,
                            profile_markdown(game, labels, played, players, rules),
                            played.backend)
