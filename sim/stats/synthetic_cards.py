"""Synthetic batches with cards taken from a face-up offer and cards dealt and kept, with known
true effects, for testing the card statistics (``sim.stats.cards``) and the report's card
sections.

Every game deals a shuffled deck of ``cards`` card ids (1..cards) into a face-up row of
``row`` cards; in turn order, each player takes cards on the rounds drawn for it, choosing among
the face-up cards with weights (1, or ``take_weights[card]``), and the row is refilled from the
deck. Each player is dealt two of ``draft_cards`` further ids (from ``draft_first``) and keeps
one (with weights
``keep_weights``). Scores follow an additive model::

    score = base + strategy_points[strategy] + seat_points[seat]
            + sum over the cards held of (points_per_card + card_extra[card])
            + draft_extra[card kept]
            + deal effect ~ N(0, deal_sd^2) + game effect ~ N(0, game_sd^2)
            + noise ~ N(0, noise_sd^2)

rounded to an integer; ranks and wins as the runner computes them. The opening face-up row
(``CardColumns.opening``) is the deal's first ``row`` cards. The truth the statistics
should recover: a card's effect on its holder is ``points_per_card + card_extra[card]`` and its gap
to the average card ``card_extra[card]`` minus the mean extra over the cards; a kept card's gap
to the average kept card is ``draft_extra[card]`` minus the mean over the draft cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from sim.games.base import CardColumns, DraftColumns
from sim.games.columns import list_column, nested_list_column
from sim.stats.synthetic import competition_ranks


@dataclass(frozen=True)
class CardDesign:
    """What a synthetic card batch contains and the true effects behind its scores."""

    players: int = 4
    deals: int = 300
    replicates: int = 1
    lineup: tuple[str, ...] = ("a", "b")  # seat s of game g plays lineup[(s + g) % len]
    base: float = 50.0
    deal_sd: float = 2.0
    game_sd: float = 2.0
    noise_sd: float = 6.0
    strategy_points: dict[str, float] = field(default_factory=dict)
    seat_points: tuple[float, ...] = ()
    cards: int = 32
    row: int = 5
    takes: tuple[int, int] = (2, 5)  # cards a player takes: uniform from low to high
    rounds: int = 10
    points_per_card: float = 4.0
    card_extra: dict[int, float] = field(default_factory=dict)
    take_weights: dict[int, float] = field(default_factory=dict)
    draft_cards: int = 10
    draft_first: int = 33  # the draft cards' ids: draft_first .. draft_first + draft_cards - 1
    draft_extra: dict[int, float] = field(default_factory=dict)
    keep_weights: dict[int, float] = field(default_factory=dict)
    bonus_mean: float = 8.0
    seed: int = 1

    @property
    def games(self) -> int:
        """Games in the batch: deals times replicates."""
        return self.deals * self.replicates

    def draft_ids(self) -> np.ndarray:
        """The ids of the cards dealt and kept."""
        return np.arange(self.draft_first, self.draft_first + self.draft_cards)


def true_card_gap(design: CardDesign, card: int) -> float:
    """A card's true gap to the average card (over every card id)."""
    extras = [design.card_extra.get(c, 0.0) for c in range(1, design.cards + 1)]
    return design.card_extra.get(card, 0.0) - float(np.mean(extras))


def true_draft_gap(design: CardDesign, card: int) -> float:
    """A kept card's true gap to the average kept card (over every draft id)."""
    extras = [design.draft_extra.get(int(c), 0.0) for c in design.draft_ids()]
    return design.draft_extra.get(card, 0.0) - float(np.mean(extras))


def generate_card_rows(design: CardDesign, cards: CardColumns,
                       draft: DraftColumns) -> pl.DataFrame:
    """Every row of the batch (one per player per game), with the card columns named by
    ``cards`` and ``draft``."""
    rng = np.random.default_rng(design.seed)
    players, games = design.players, design.games
    ids = np.arange(1, design.cards + 1)
    take_weight = np.array([design.take_weights.get(int(c), 1.0) for c in ids])
    card_value = np.array([design.points_per_card + design.card_extra.get(int(c), 0.0)
                           for c in ids])
    draft_ids = design.draft_ids()
    keep_weight = {int(c): design.keep_weights.get(int(c), 1.0) for c in draft_ids}
    decks = np.argsort(rng.random((design.deals, design.cards)), axis=1)  # per deal
    spirit_orders = np.argsort(rng.random((design.deals, draft_ids.size)), axis=1)
    deal_points = rng.normal(0.0, design.deal_sd, design.deals)
    rows = games * players
    taken_cards: list[list[int]] = [[] for _ in range(rows)]
    taken_rounds: list[list[int]] = [[] for _ in range(rows)]
    taken_offers: list[list[list[int]]] = [[] for _ in range(rows)]
    value = np.zeros(rows)
    dealt = np.zeros((rows, 2), dtype=np.int16)
    kept = np.zeros(rows, dtype=np.int16)
    for game in range(games):
        deal = game // design.replicates
        deck = list(decks[deal])
        face_up = [deck.pop(0) for _ in range(design.row)]
        counts = rng.integers(design.takes[0], design.takes[1] + 1, players)
        schedule = [set(rng.choice(design.rounds, counts[s], replace=False).tolist())
                    for s in range(players)]
        for round_number in range(design.rounds):
            for seat in range(players):
                if round_number not in schedule[seat] or not face_up:
                    continue
                row = game * players + seat
                weights = take_weight[face_up]
                pick = int(rng.choice(len(face_up), p=weights / weights.sum()))
                card = face_up[pick]
                taken_offers[row].append([int(ids[c]) for c in face_up])
                taken_cards[row].append(int(ids[card]))
                taken_rounds[row].append(round_number)
                value[row] += card_value[card]
                face_up.pop(pick)
                if deck:
                    face_up.insert(pick, deck.pop(0))
        order = draft_ids[spirit_orders[deal]]
        for seat in range(players):
            row = game * players + seat
            pair = order[2 * seat:2 * seat + 2]
            weights = np.array([keep_weight[int(c)] for c in pair])
            choice = int(pair[rng.choice(2, p=weights / weights.sum())])
            dealt[row] = pair
            kept[row] = choice
            value[row] += design.draft_extra.get(choice, 0.0)
    game = np.arange(games)
    deal = game // design.replicates
    seat = np.arange(players)
    strategy_index = (seat[None, :] + game[:, None]) % len(design.lineup)
    strategy_points = np.array([design.strategy_points.get(s, 0.0) for s in design.lineup])
    seat_points = np.zeros(players)
    seat_points[:len(design.seat_points)] = design.seat_points
    mean = (design.base + deal_points[deal][:, None]
            + rng.normal(0.0, design.game_sd, games)[:, None]
            + strategy_points[strategy_index] + seat_points[None, :] + value.reshape(games,
                                                                                 players))
    scores = np.clip(np.rint(mean + rng.normal(0.0, design.noise_sd, (games, players))), 0,
                     32_000).astype(np.int16)
    ranks, wins = competition_ranks(scores)
    lengths = np.array([len(cards_) for cards_ in taken_cards])
    flat_cards = np.array([c for cards_ in taken_cards for c in cards_], dtype=np.int16)
    flat_rounds = np.array([r for rounds in taken_rounds for r in rounds], dtype=np.int8)
    offers = [offer for per_row in taken_offers for offer in per_row]
    cubes = rng.integers(0, 4, flat_cards.size).astype(np.int8)
    completed = cubes == 3
    points = (cubes.astype(np.int16) * 3).astype(np.int16)
    bonus = np.maximum(0, np.rint(rng.normal(design.bonus_mean, 3.0, rows))).astype(np.int16)

    def per_game(values: np.ndarray) -> np.ndarray:
        return np.repeat(values, players)

    frame = pl.DataFrame({
        "game_id": per_game(game).astype(np.int64),
        "deal_id": per_game(deal).astype(np.int64),
        "replicate": per_game(game % design.replicates).astype(np.int32),
        "deal_seed": per_game(deal.astype(np.uint64) * np.uint64(2654435761)),
        "strategy_seed": per_game(game.astype(np.uint64) * np.uint64(40503)),
        "players": np.full(rows, players, dtype=np.int8),
        "seat": np.tile(seat, games).astype(np.int8),
        "strategy": np.asarray(design.lineup)[strategy_index.ravel()],
        "score": scores.ravel(),
        "rank": ranks.ravel(),
        "win": wins.ravel(),
    })
    opening = ids[decks[deal][:, :design.row]].astype(np.int16)  # the deal's face-up row
    columns = []
    if cards.opening:
        columns.append(list_column(np.repeat(opening, players, axis=0).ravel(),
                                   np.full(rows, design.row)).alias(cards.opening))
    return frame.with_columns(
        *columns,
        list_column(flat_cards, lengths).alias(cards.cards),
        list_column(flat_rounds, lengths).alias(cards.rounds),
        nested_list_column(np.array([c for offer in offers for c in offer], dtype=np.int16),
                           np.array([len(offer) for offer in offers]), lengths)
        .alias(cards.offers),
        list_column(cubes, lengths).alias(cards.progress or "card_progress"),
        list_column(completed, lengths).alias(cards.completed),
        list_column(points, lengths).alias(cards.points),
        pl.Series(draft.dealt, dealt).cast(pl.Array(pl.Int16, 2)),
        pl.Series(draft.kept, kept),
        pl.Series(draft.bonus, bonus),
    )


# --- holding follows success ---------------------------------------------------------------------

@dataclass(frozen=True)
class HoldingDesign:
    """A batch where who holds which card follows how well a player does, as in a real game
    where only a player doing well can take more cards.

    Every deal shuffles ``cards`` card ids (1..cards); the opening face-up row is its first
    ``row``; each player is dealt two of ``draft_cards`` ids (from ``draft_first``) and keeps
    one. Per player-game a latent strength::

        strength = strategy_strength[strategy] + game effect ~ N(0, game_sd^2)
                   + N(0, player_sd^2)

    The player holds n = clip(round(mean_held + held_slope * strength + N(0, 1)), 0, max_held)
    cards (stronger players hold more), chosen without replacement with weights
    exp(preference[strategy] * (card id - mean id) / cards) times ``row_boost[seat]`` for a card
    in the opening row (seat 1 chooses from it first; the others, less so). The spirit kept is
    one of the two dealt with weights exp(keep_preference[strategy] * (id - mean id) /
    draft_cards) times ``keep_weights`` (a strong strategy favouring some spirits ties keeping
    them to success). The score::

        score = base + strength_points * strength + card_extra[c] for each card c held
                + draft_extra[spirit kept] + deal effect ~ N(0, deal_sd^2) + N(0, noise_sd^2)

    With ``card_extra`` and ``draft_extra`` empty no card has any effect, yet holders score more
    (they are the stronger players). With card c in ``card_extra``, holding c adds exactly that:
    the effect per card held that an instrumental-variables estimate recovers.
    """

    players: int = 4
    deals: int = 300
    replicates: int = 1
    lineup: tuple[str, ...] = ("a", "b", "c")
    strategy_strength: dict[str, float] = field(
        default_factory=lambda: {"a": 1.0, "b": 0.0, "c": -1.0})
    preference: dict[str, float] = field(default_factory=lambda: {"a": 2.0, "c": -2.0})
    game_sd: float = 0.7
    player_sd: float = 0.7
    deal_sd: float = 2.0
    noise_sd: float = 4.0
    base: float = 60.0
    strength_points: float = 8.0
    cards: int = 16
    row: int = 5
    mean_held: float = 3.0
    held_slope: float = 1.2
    max_held: int = 8
    row_boost: tuple[float, ...] = (6.0, 2.0, 1.5, 1.2)
    card_extra: dict[int, float] = field(default_factory=dict)
    draft_cards: int = 10
    draft_first: int = 33
    keep_preference: dict[str, float] = field(default_factory=lambda: {"a": -4.0, "c": 2.0})
    keep_weights: dict[int, float] = field(default_factory=dict)
    draft_extra: dict[int, float] = field(default_factory=dict)
    seed: int = 1

    @property
    def games(self) -> int:
        """Games in the batch: deals times replicates."""
        return self.deals * self.replicates


def generate_holding_rows(design: HoldingDesign, cards: CardColumns,
                          draft: DraftColumns) -> pl.DataFrame:
    """Every row of a ``HoldingDesign`` batch (one per player per game), with the columns the
    card effects read: the cards held (with rounds), the opening row, spirits dealt and kept."""
    rng = np.random.default_rng(design.seed)
    players, games, count = design.players, design.games, design.cards
    rows = games * players
    game = np.repeat(np.arange(games), players)
    deal = game // design.replicates
    seat = np.tile(np.arange(players), games)
    strategy_index = (seat + game) % len(design.lineup)
    strategy = np.asarray(design.lineup)[strategy_index]
    strength = (np.array([design.strategy_strength.get(s, 0.0)
                          for s in design.lineup])[strategy_index]
                + np.repeat(rng.normal(0.0, design.game_sd, games), players)
                + rng.normal(0.0, design.player_sd, rows))
    decks = np.argsort(rng.random((design.deals, count)), axis=1)
    in_row = np.zeros((design.deals, count), dtype=bool)
    np.put_along_axis(in_row, decks[:, :design.row], True, axis=1)
    ids = np.arange(1, count + 1)
    preference = np.array([design.preference.get(s, 0.0) for s in design.lineup])
    centred = (ids - ids.mean()) / count
    boost = np.ones(players)
    boost[:len(design.row_boost)] = design.row_boost[:players]
    log_weight = (preference[strategy_index][:, None] * centred[None, :]
                  + np.where(in_row[deal], np.log(boost[seat])[:, None], 0.0))
    # Weighted sampling without replacement: the n largest of log weight + Gumbel noise.
    keys = log_weight + rng.gumbel(size=(rows, count))
    order = np.argsort(-keys, axis=1)
    held_count = np.clip(np.rint(design.mean_held + design.held_slope * strength
                                 + rng.normal(0.0, 1.0, rows)), 0, design.max_held).astype(int)
    slots = np.arange(count)[None, :] < held_count[:, None]
    held_ids = ids[order][slots]
    extra = np.array([design.card_extra.get(int(c), 0.0) for c in ids])
    held_card_points = np.zeros(rows)
    np.add.at(held_card_points, np.repeat(np.arange(rows), held_count), extra[order[slots]])
    rounds = rng.integers(0, 10, held_ids.size).astype(np.int8)
    draft_ids = np.arange(design.draft_first, design.draft_first + design.draft_cards)
    spirit_orders = draft_ids[np.argsort(rng.random((design.deals, draft_ids.size)), axis=1)]
    dealt = np.stack([spirit_orders[deal, 2 * seat], spirit_orders[deal, 2 * seat + 1]], axis=1)
    taste = np.array([design.keep_preference.get(s, 0.0)
                      for s in design.lineup])[strategy_index]
    weight = (np.vectorize(lambda c: design.keep_weights.get(int(c), 1.0))(dealt)
              * np.exp(taste[:, None] * (dealt - draft_ids.mean()) / draft_ids.size))
    odds_first = weight[:, 0] / weight.sum(axis=1)
    kept = np.where(rng.random(rows) < odds_first, dealt[:, 0], dealt[:, 1])
    draft_points = np.vectorize(lambda c: design.draft_extra.get(int(c), 0.0))(kept)
    mean = (design.base + design.strength_points * strength + held_card_points + draft_points
            + rng.normal(0.0, design.deal_sd, design.deals)[deal])
    scores = np.clip(np.rint(mean + rng.normal(0.0, design.noise_sd, rows)), 0, 32_000)
    ranks, wins = competition_ranks(scores.reshape(games, players).astype(np.int16))
    frame = pl.DataFrame({
        "game_id": game.astype(np.int64), "deal_id": deal.astype(np.int64),
        "players": np.full(rows, players, dtype=np.int64), "seat": seat.astype(np.int64),
        "strategy": strategy, "score": scores.astype(np.int16), "rank": ranks.ravel(),
        "win": wins.ravel(),
    })
    opening = ids[decks[deal][:, :design.row]].astype(np.int16)
    return frame.with_columns(
        list_column(held_ids.astype(np.int16), held_count).alias(cards.cards),
        list_column(rounds, held_count).alias(cards.rounds),
        list_column(opening.ravel(), np.full(rows, design.row)).alias(cards.opening),
        pl.Series(draft.dealt, dealt.astype(np.int16)).cast(pl.Array(pl.Int16, 2)),
        pl.Series(draft.kept, kept.astype(np.int16)),
    )
