"""Harmonies behind the ``Game`` interface: data folder, rules parameters, shards of games, one
logged game for ``sim play``, board files for ``sim score``, drawings for the reports, and the
card and draft columns, deal covariates and recorded human play its reports read."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from sim.errors import InputError
from sim.games.base import (
    COVARIATE_IDS,
    CardColumns,
    DealCovariate,
    DraftColumns,
    Game,
    PlayedGame,
    ReferencePlay,
    RulesParameter,
    ScoredFile,
    StrategyInfo,
    StrategySpec,
)
from sim.games.columns import list_column, nested_list_column, score_trace_column
from sim.games.harmonies import DATA_FOLDER_FILES
from sim.games.harmonies.colours import COLOUR_NAMES
from sim.games.harmonies.data import (
    DATA_DIRECTORY,
    DEFAULT_PATHS,
    SIDE_NAMES,
    GameData,
    load_data_folder,
)
from sim.games.harmonies.drawing import LEGEND, draw_board
from sim.games.harmonies.options import HarmoniesRules, resolve_mountain_points
from sim.games.harmonies.position import Board, board_from_state, load_board, score_board
from sim.games.harmonies.results import GameResults
from sim.games.harmonies.scoring import CATEGORY_NAMES
from sim.games.harmonies.state import DRAW_BAG, DRAW_DECK
from sim.games.harmonies.svg import board_svg, card_names, card_svg
from sim.games.harmonies.tables import EngineTables, build_tables
from sim.loops.harmonies.dispatch import (
    PARAMETER_SLOTS,
    POLICY_IDS,
    TABLE_FUNCTIONS,
    USER_POLICY_BASE,
)
from sim.loops.harmonies.driver import play_recorded_game
from sim.loops.harmonies.loop import (
    compiled_variant,
    play_game,
    play_games,
    play_games_kernel,
    play_turn,
    profile_games,
    variants,
)
from sim.loops.seats import (
    only_compiled_hook,
    per_game_rows,
    per_seat_rows,
    seat_arrays,
    seat_column,
)
from sim.seeding import single_game_seeds
from strategies.harmonies import REGISTRY

# What the reports call the cards (the nouns of ``card_columns``, ``draft_columns`` and the
# deal covariate, and the keys of ``item_names``).
ANIMAL_NOUN = "animal card"
SPIRIT_NOUN = "nature spirit"
MOUNTAIN_PRESETS = (None, "seed-text")  # by the value of the mountain_points parameter

RULES_PARAMETERS = (
    RulesParameter("side", 0, 0, 1, "personal board side for everyone: 0 = A (river), "
                   "1 = B (islands)", choices=(("A", 0), ("B", 1))),
    RulesParameter("mountain_points", 0, 0, 1,
                   "mountain points by height: 0 = the data's table (rulebook 1/3/7), "
                   "1 = the seed text's 1/2/3", choices=(("rulebook", 0), ("seed-text", 1))),
    RulesParameter("spirits", 0, 0, 1, "nature spirit variant: 0 = off, 1 = on",
                   choices=(("false", 0), ("true", 1))),
)
# Recorded human play set beside the bots' (``Harmonies.reference_play``).
REFERENCE_BOARDS = DATA_DIRECTORY / "reference" / "recorded-2p-sideA-spirits.csv"
CATEGORY_COLUMNS = {
    "trees": "points_trees", "mountains": "points_mountains", "fields": "points_fields",
    "buildings": "points_buildings", "water": "points_water", "animals": "points_animals",
    "spirit": "points_spirit",
}


def harmonies_rules(players: int, rules: dict[str, int]) -> HarmoniesRules:
    """The engine's rules options for the interface's integer rules parameters."""
    return HarmoniesRules(players=players, side=SIDE_NAMES[rules["side"]],
                          mountain_points=MOUNTAIN_PRESETS[rules["mountain_points"]],
                          spirits=bool(rules["spirits"]))


class Harmonies(Game):
    """Harmonies: 1-4 players take tokens from a central board to build landscapes that the
    animal cards' habitats ask for."""

    name = "harmonies"
    title = "Harmonies"
    listing_order = 1
    min_players = 1
    max_players = 4
    data_option = "data"
    data_help = "a Harmonies data folder"
    data_files = DATA_FOLDER_FILES
    position_help = "a Harmonies board"
    played_positions_field = "boards"
    rules_parameters = RULES_PARAMETERS
    # Measured on a quiet machine (README, Speed): the loop with random and greedy; the rest.
    compile_seconds = 38.0
    strategy_compile_seconds = {"expert": 60.0, "planner": 15.0, "landscape": 15.0,
                                "animals": 15.0, "search": 45.0}
    supports_trace = True
    trace_step = "round"
    length_column = "turns"
    # Points by category, then cubes and cards, then game length (``sim.profile``).
    profile_columns = (*CATEGORY_COLUMNS.values(), "cubes_placed", "cards_completed", "turns")
    # Fields of players (``sim.fields``): the expert, its documented variant of another style
    # (a clock that stops spending tokens on space late in the game), a mix, and greedy.
    field_lineups = (
        ("strong", "expert", "the strongest default in every seat"),
        ("style", "expert:space=6,fade=3", "the expert's documented variant in every seat"),
        ("mixed", "pool:expert+planner", "the two strongest strategies rotating through the seats"),
        ("casual", "greedy", "the one-move greedy player in every seat"),
    )
    default_fields = ("strong", "style", "mixed")

    def reference_play(self, players: int, rules: dict[str, int]) -> ReferencePlay | None:
        """The ten final boards of five recorded two-player online games (side A, nature
        spirits, the rulebook's mountain table; ``data/reference/README.md``), for those rules
        only; None otherwise."""
        rules = {**self.default_rules(), **rules}
        if (players != 2 or rules["side"] != 0 or rules["spirits"] != 1
                or rules["mountain_points"] != 0):
            return None
        import polars as pl  # only the reports that show the reference pay for it

        frame = pl.read_csv(REFERENCE_BOARDS)
        return ReferencePlay(
            description=(f"{frame.height} final boards of {frame['game'].n_unique()} recorded "
                         f"two-player online games (side A, nature spirits), scored by this "
                         f"project's scorer (every total equals the site's); a small sample, "
                         f"probably from one circle of players: a rough picture, not a target."),
            frame=frame, source="recorded online games (data/reference/README.md)")

    def card_columns(self) -> CardColumns:
        """The animal cards taken from the face-up row (``_card_columns``)."""
        return CardColumns(noun=ANIMAL_NOUN, cards="cards_taken", rounds="card_rounds",
                           offers="card_offers", completed="card_completed",
                           points="card_points", progress="card_cubes", progress_noun="cube",
                           opening="card_opening_row")

    def draft_columns(self) -> DraftColumns:
        """The two nature spirits dealt and the one kept (the variant)."""
        return DraftColumns(noun=SPIRIT_NOUN, dealt="spirits_dealt", kept="spirit_kept",
                            bonus="points_spirit", enabled_by="spirits")

    def deal_covariates(self) -> tuple[DealCovariate, ...]:
        """The animal cards face up after the deal (the deck's first cards, before anyone
        chooses): what the shuffle decides, unlike the cards a player takes."""
        return (DealCovariate("card_opening_row", "animal card {n} face up at the deal",
                              COVARIATE_IDS, item=ANIMAL_NOUN),)

    def item_names(self, data: GameData) -> dict[str, dict[int, str]]:
        """The animal cards by their animal, the nature spirits by their name or, in the
        shipped data (which names none), by their bonus (``svg.card_names``)."""
        names = card_names((*data.animals, *data.spirits))
        return {ANIMAL_NOUN: {card.id: names[card.id] for card in data.animals},
                SPIRIT_NOUN: {card.id: names[card.id] for card in data.spirits}}

    def item_svg(self, noun: str, item_id: int, data: GameData) -> str | None:
        """A drawing of an animal card or a nature spirit (``svg.card_svg``); None for another
        noun or an unknown id."""
        cards = {ANIMAL_NOUN: data.animals, SPIRIT_NOUN: data.spirits}.get(noun, ())
        card = next((card for card in cards if card.id == item_id), None)
        if card is None:
            return None
        return card_svg(card, self.item_names(data)[noun][item_id])

    def report_notes(self) -> list[str]:
        """Seat 1 (0 in Parquet) plays first in every round."""
        return ["Seats are counted from 1: seat 1 plays first in every round. (The Parquet "
                "files count seats from 0.)"]

    def drawing_legend(self) -> str:
        """How to read a board drawn by ``draw_board``."""
        return ("each hex is drawn as [....]: its tokens from bottom to top, one letter each "
                f"({LEGEND.split('; ')[0]}), then * when an animal cube stands on it; [    ] is "
                "an empty hex.")

    def __init__(self) -> None:
        self._tables: dict[tuple, tuple[GameData, EngineTables]] = {}

    def load_data(self, path: str | None) -> GameData:
        """Load the data files (see :func:`load_data_folder`)."""
        return load_data_folder(path)

    def data_digest(self, data: GameData) -> str:
        """Content hash of the six data files played with."""
        digest = hashlib.sha256()
        for name in DEFAULT_PATHS:
            digest.update(name.encode() + b"\0")
            digest.update(Path(data.sources[name]).read_bytes())
        return digest.hexdigest()[:16]

    def strategies(self) -> dict[str, StrategyInfo]:
        """Every registered strategy (built-ins, files in ``strategies/harmonies/``);
        ``module:Class`` names load on lookup."""
        return REGISTRY

    def tables(self, data: GameData, players: int, rules: dict[str, int]) -> EngineTables:
        """Compiled-code tables for this data, player count and rules (built once each)."""
        key = (id(data), players, rules["side"], rules["mountain_points"], rules["spirits"])
        if key not in self._tables or self._tables[key][0] is not data:
            self._tables[key] = (data, build_tables(data, harmonies_rules(players, rules)))
        return self._tables[key][1]

    @staticmethod
    def _policy_ids(lineup: list[StrategySpec]):
        """Policy id and parameter row of every lineup entry, and the loop variant for the
        compiled user strategies among them (None for a lineup of built-ins)."""
        seats = seat_arrays(REGISTRY, lineup, POLICY_IDS, PARAMETER_SLOTS, USER_POLICY_BASE,
                            user_function=only_compiled_hook)
        variant = compiled_variant(seats.user_functions) if seats.user_functions else None
        return seats.policies, seats.parameters, variant

    def cached_kernels(self, method: str) -> tuple:
        """``play_one`` runs the turn kernel from Python; the others the shard kernel."""
        return (play_turn,) if method == "play_one" else (play_games_kernel,)

    def strategy_kernels(self, name: str) -> tuple:
        """Every built-in but ``random`` and ``greedy`` is called through the loop's table."""
        return TABLE_FUNCTIONS.get(name, ())

    def variant_compile_seconds(self) -> dict:
        """Compile seconds of each loop variant built in this process (None until compiled)."""
        return {key: variant.compile_seconds[0] for key, variant in variants().items()}

    def play_shard_in_driver(self, data, players, rules, lineup, game_seat_strategy,
                             deal_seeds, strategy_seeds, trace=False):
        """The shard played game by game by the Python driver (the loop's own code run from
        Python, as ``sim play`` plays)."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        seats = np.asarray(game_seat_strategy)
        positions = data.sides[SIDE_NAMES[rules["side"]]].hexes
        games = [play_recorded_game(tables, positions, ids[seats[game]], int(deal_seeds[game]),
                                    int(strategy_seeds[game]), rows[seats[game]],
                                    variant=variant, trace=trace).results
                 for game in range(len(deal_seeds))]
        results = GameResults(*(np.concatenate([getattr(g, name) for g in games])
                                for name in GameResults.__dataclass_fields__))
        return self._columns(results, tables, len(deal_seeds), trace)

    def hidden_information_decisions(self, data, players, rules, lineup, seed, shuffle):
        """Seat 0's first turn (space, tokens and where they went, card, cubes) with the bag
        and the deck re-shuffled by ``shuffle`` right after the deal, and that hidden order."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        deal_seed, strategy_seed = single_game_seeds(seed)
        hidden_orders = []

        def reshuffle(public, hidden):
            if shuffle is not None:
                generator = np.random.default_rng(shuffle)
                generator.shuffle(hidden.bag_order[hidden.draw_positions[DRAW_BAG]:])
                generator.shuffle(hidden.deck_order[hidden.draw_positions[DRAW_DECK]:])
            hidden_orders.append(np.concatenate([hidden.bag_order, hidden.deck_order]))

        positions = data.sides[SIDE_NAMES[rules["side"]]].hexes
        game = play_recorded_game(tables, positions, ids, deal_seed, strategy_seed, rows,
                                  variant=variant, after_deal=reshuffle)
        return [game.turns[0].to_json()], hidden_orders[0]

    def profile_shard(self, data, players, rules, lineup, game_seat_strategy, deal_seeds,
                      strategy_seeds):
        """The shard in the instrumented loop (built-in strategies only)."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        if variant is not None:
            raise InputError("--profile: only built-in strategies can be profiled")
        seats = np.asarray(game_seat_strategy)
        return profile_games(tables, np.ascontiguousarray(ids[seats]),
                             np.asarray(deal_seeds, dtype=np.uint64),
                             np.asarray(strategy_seeds, dtype=np.uint64), rows[seats])

    def play_shard(self, data, players, rules, lineup, game_seat_strategy, deal_seeds,
                   strategy_seeds, trace=False):
        """Play a shard in one compiled call; one row per (game, seat), game-major. ``trace``
        adds ``score_trace``: every seat's score after each round."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        seats = np.asarray(game_seat_strategy)
        results = play_games(tables, ids[seats], np.asarray(deal_seeds, dtype=np.uint64),
                             np.asarray(strategy_seeds, dtype=np.uint64), parameters=rows[seats],
                             variant=variant, trace=trace)
        return self._columns(results, tables, len(deal_seeds), trace)

    @staticmethod
    def _columns(results: GameResults, tables: EngineTables, games: int,
                 trace: bool = False) -> dict[str, np.ndarray]:
        """The rows-store columns of a shard's results, one row per (game, seat)."""
        players = tables.players
        columns = {
            "seat": seat_column(games, players),
            "score": per_seat_rows(results.total, np.int16),
            "rank": per_seat_rows(results.rank, np.int8),
            "win": per_seat_rows(results.win, np.float32),
        }
        for index, category in enumerate(CATEGORY_NAMES):
            columns[CATEGORY_COLUMNS[category]] = per_seat_rows(
                results.category_points[:, :, index], np.int16)
        columns["cubes_placed"] = per_seat_rows(results.cubes_placed, np.int8)
        columns["cards_completed"] = per_seat_rows(results.cards_completed, np.int8)
        columns["turns"] = per_seat_rows(results.turns, np.int8)
        columns.update(_card_columns(results, tables))
        if trace:
            # [G, rounds, P] -> one list per (game, seat): its score after each round played.
            scores = np.ascontiguousarray(results.score_trace.transpose(0, 2, 1))
            columns["score_trace"] = score_trace_column(
                scores.reshape(games * players, -1), results.turns.reshape(-1))
        return columns

    def column_docs(self) -> dict[str, str]:
        """The Harmonies columns of the rows store."""
        return {
            "points_trees": "points from trees (green on top: 1 / 3 / 7 by height)",
            "points_mountains": "points from mountains touching another mountain",
            "points_fields": "points from fields (groups of 2+ yellow tokens)",
            "points_buildings": "points from buildings seeing 3+ neighbour colours",
            "points_water": "side A: points of the best river; side B: points of the islands",
            "points_animals": "points from animal cards (track value of the cubes placed)",
            "points_spirit": "points from the nature spirit's bonus (variant; 0 when off)",
            "cubes_placed": "animal cubes moved to the board (the tie-break)",
            "cards_completed": "animal cards with every cube on the board",
            "turns": "turns the player played (the same for every seat of a game)",
            "cards_taken": "ids of the animal cards the player took, in the order taken",
            "card_rounds": "per card taken: the round (0-based) in which it was taken",
            "card_offers": "per card taken: the ids of the cards face up when it was taken "
                           "(itself among them)",
            "card_cubes": "per card taken: the cubes placed on the board from it",
            "card_completed": "per card taken: true when every cube of it was placed",
            "card_points": "per card taken: the points it gave (its track value)",
            "spirits_dealt": "ids of the two nature spirits dealt to the player (0 = none: "
                             "variant off)",
            "spirit_kept": "id of the nature spirit kept (0 = none); its bonus is "
                           "points_spirit",
            "card_opening_row": "ids of the animal cards face up after the deal, before any "
                                "turn (the same for every seat of a game; set by the deal)",
        }

    def _boards(self, data: GameData, tables, public, players: int, rules) -> list[Board]:
        side = SIDE_NAMES[rules["side"]]
        mountain_table = resolve_mountain_points(harmonies_rules(players, rules), data)
        boards = []
        for seat in range(players):
            board = board_from_state(public, tables, data, seat, side)
            if mountain_table != data.scoring.mountain_points:
                board.mountain_points = mountain_table
            boards.append(board)
        return boards

    @staticmethod
    def _category_line(points: dict[str, int]) -> str:
        parts = ", ".join(f"{name} {points[name]}" for name in CATEGORY_NAMES)
        return f"{parts}; total {points['total']}"

    def play_one(self, data, players, rules, lineup, seed):
        """Play one game and log every turn; the document holds the turn log and every final
        board in the RULES.md board format."""
        tables = self.tables(data, players, rules)
        deal_seed, strategy_seed = single_game_seeds(seed)
        positions = data.sides[SIDE_NAMES[rules["side"]]].hexes
        ids, rows, variant = self._policy_ids(lineup)
        game = play_recorded_game(tables, positions, ids, deal_seed, strategy_seed, rows,
                                  variant=variant)
        cards = data.card_by_id()
        # Seats from 1 in the text, as a person reads them (the JSON keeps 0-based seats).
        names = [f"seat {seat + 1} ({spec.label()})" for seat, spec in enumerate(lineup)]
        rule_text = ", ".join(f"{p.name}={dict((v, n) for n, v in p.choices)[rules[p.name]]}"
                              for p in RULES_PARAMETERS)
        lines = [f"Harmonies, {players} player(s), seed {seed}, rules: {rule_text}"]
        lines += [f"  {name}" for name in names]
        for turn in game.turns:
            if turn.seat == 0:
                lines.append(f"round {turn.round + 1}")
            lines.append(f"  {names[turn.seat]}: " + describe_turn(turn, cards))
        boards = self._boards(data, tables, game.public, players, rules)
        scores = [int(v) for v in game.results.total[0]]
        per_seat_points = []
        for seat, board in enumerate(boards):
            points = {name: int(game.results.category_points[0, seat, i])
                      for i, name in enumerate(CATEGORY_NAMES)}
            points["total"] = scores[seat]
            per_seat_points.append(points)
            won = " (wins)" if game.results.rank[0, seat] == 1 else ""
            lines += ["", f"{names[seat]}: {scores[seat]} points{won}, "
                          f"{int(game.results.cubes_placed[0, seat])} cubes, "
                          f"{int(game.results.cards_completed[0, seat])} cards completed",
                      f"  {self._category_line(points)}", draw_board(board, data)]
        document = {
            "game": self.name,
            "seed": seed,
            "players": players,
            "rules": dict(rules),
            "data": {name: data.sources[name] for name in DEFAULT_PATHS},
            "strategies": [spec.label() for spec in lineup],
            "scores": scores,
            "points": per_seat_points,
            "turns": [turn.to_json() for turn in game.turns],
            "boards": [board.to_json() for board in boards],
        }
        return PlayedGame(text="\n".join(lines), document=document, scores=scores)

    def final_drawings(self, data, players, rules, lineup, deal_seed, strategy_seed):
        """A drawing of each seat's final board (with its points) of the game these seeds
        give, for the report's highest / lowest games."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        game = play_game(tables, ids, int(deal_seed), int(strategy_seed), parameters=rows,
                         variant=variant)
        drawings = []
        for seat, board in enumerate(self._boards(data, tables, game.public, players, rules)):
            points = {name: int(game.results.category_points[0, seat, i])
                      for i, name in enumerate(CATEGORY_NAMES)}
            points["total"] = int(game.results.total[0, seat])
            drawings.append(f"{self._category_line(points)}\n{draw_board(board, data)}")
        return drawings

    def final_svgs(self, data, players, rules, lineup, deal_seed, strategy_seed, labels=None):
        """Each seat's final board as an SVG document headed "Seat n (strategy): points" (seats
        from 1) with the points by category, for the game these seeds give."""
        tables = self.tables(data, players, rules)
        ids, rows, variant = self._policy_ids(lineup)
        game = play_game(tables, ids, int(deal_seed), int(strategy_seed), parameters=rows,
                         variant=variant)
        labels = labels or [spec.label() for spec in lineup]
        drawings = []
        for seat, board in enumerate(self._boards(data, tables, game.public, players, rules)):
            points = {name: int(game.results.category_points[0, seat, i])
                      for i, name in enumerate(CATEGORY_NAMES)}
            total = int(game.results.total[0, seat])
            detail = ", ".join(f"{name} {points[name]}" for name in CATEGORY_NAMES)
            drawings.append(board_svg(board, data, f"Seat {seat + 1} ({labels[seat]}): "
                                      f"{total} points", detail))
        return drawings

    def score_file(self, path, data):
        """Validate a board file and score it from scratch (points per category, total)."""
        board = load_board(path, data)
        points = score_board(board, data)
        tokens = sum(len(stack) for stack in board.stacks.values())
        lines = [f"{path}: side {board.side}, {tokens} tokens on "
                 f"{sum(1 for s in board.stacks.values() if s)} hexes, {len(board.cubes)} "
                 f"cubes, {len(board.cards)} cards"]
        lines += [f"  {name:10s} {points[name]:4d}" for name in CATEGORY_NAMES]
        lines.append(f"total: {points['total']}")
        return ScoredFile(text="\n".join(lines), document={"side": board.side, **points})


def _card_columns(results: GameResults, tables: EngineTables) -> dict:
    """The cards of every (game, seat), game-major: list columns with one entry per animal card
    taken, in the order taken, and the spirits dealt and kept (card ids, 0 for none)."""
    held = results.held_cards
    slots = np.arange(held.shape[2])
    valid = slots[None, None, :] < results.held_count[:, :, None]
    index = np.where(valid, held, 0)
    spirit = tables.card_is_spirit[index].astype(bool) & valid
    animal = valid & ~spirit
    lengths = animal.sum(axis=2).reshape(-1)
    cards = index[animal]
    cubes = results.card_cubes[animal]
    points = np.where(cubes > 0, tables.card_points[cards, np.maximum(cubes - 1, 0)], 0)
    offers = results.offered[animal]
    face_up = offers >= 0
    kept = np.where(spirit.any(axis=2), tables.card_ids[np.where(spirit, index, 0).max(axis=2)],
                    0)
    dealt = results.spirits_dealt
    # The opening row is the table's, the same for every seat: repeated on each seat's row.
    opening = per_game_rows(results.opening_row, tables.players)
    opening_face_up = opening >= 0
    return {
        "cards_taken": list_column(tables.card_ids[cards].astype(np.int16), lengths),
        "card_rounds": list_column(results.taken_round[animal].astype(np.int8), lengths),
        "card_offers": nested_list_column(tables.card_ids[offers[face_up]].astype(np.int16),
                                          face_up.sum(axis=1), lengths),
        "card_cubes": list_column(cubes.astype(np.int8), lengths),
        "card_completed": list_column(cubes >= tables.card_cube_count[cards], lengths),
        "card_points": list_column(points.astype(np.int16), lengths),
        "spirits_dealt": np.where(dealt >= 0, tables.card_ids[np.maximum(dealt, 0)], 0)
        .astype(np.int16).reshape(-1, 2),
        "spirit_kept": kept.astype(np.int16).reshape(-1),
        "card_opening_row": list_column(
            tables.card_ids[opening[opening_face_up]].astype(np.int16),
            opening_face_up.sum(axis=1)),
    }


def describe_turn(turn, cards) -> str:
    """One line for a logged turn: space and tokens, spirit, card, cubes."""
    if turn.space < 0:
        return "no tokens left on the central board"
    placed = ", ".join(f"{COLOUR_NAMES[c]} at {p}" if p is not None
                       else f"{COLOUR_NAMES[c]} to the box" for c, p in turn.tokens)
    parts = [f"space {turn.space + 1} ({' '.join(COLOUR_NAMES[c] for c in turn.taken)}): "
             f"{placed}"]
    if turn.spirit is not None:
        parts.append(f"keeps spirit {turn.spirit}")
    if turn.card is not None:
        parts.append(f"takes card {turn.card} {cards[turn.card].name}")
    if turn.cubes:
        parts.append("cubes: " + ", ".join(f"{cards[card].name or card} at {p}"
                                            for card, p in turn.cubes))
    return "; ".join(parts)
