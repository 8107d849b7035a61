"""Legendary Forests behind the ``Game`` interface: rules parameters and the tree-supply tuning,
data, shards of games (through its loop, or the Python driver for Python strategies), one
verbose game, planet files for ``sim score``, and the analyses and deal covariates the shared
statistics compute for it."""

from __future__ import annotations

import numpy as np

from sim.errors import InputError
from sim.games.base import (
    COVARIATE_COUNT,
    COVARIATE_MASK,
    DealCovariate,
    Game,
    PlayedGame,
    RulesParameter,
    ScoredFile,
    StrategyInfo,
    StrategySpec,
)
from sim.games.columns import score_trace_column
from sim.games.legendary_forests import DATA_FILES
from sim.games.legendary_forests.analyses import ANALYSES
from sim.games.legendary_forests.convert import planet_of
from sim.games.legendary_forests.data import (
    COLOUR_NAMES,
    SIDE_NAMES,
    TileSet,
    load_tileset,
)
from sim.games.legendary_forests.drawing import draw_planet
from sim.games.legendary_forests.position import (
    load_planet,
    planet_to_json,
    score_planet,
)
from sim.games.legendary_forests.results import NO_TREE_PHASE, NO_TREE_TAKEN, new_log
from sim.games.legendary_forests.rules import (
    STATUS_GRID_SIDE,
    deal,
    new_table,
    planet_score,
    tile_arrays,
)
from sim.games.legendary_forests.svg import planet_svg, tile_names, tile_svg
from sim.games.legendary_forests.tuning import RULES_TUNINGS
from sim.games.strategy import KIND_BUILTIN, KIND_COMPILED, KIND_PYTHON
from sim.jit import rebind
from sim.loops.legendary_forests.dispatch import (
    PARAMETER_SLOTS,
    POLICY_IDS,
    TABLE_FUNCTIONS,
    USER_POLICY_BASE,
    strategy_table,
)
from sim.loops.legendary_forests.loop import (
    compiled_variant,
    new_work,
    play_game,
    play_games,
    play_one,
    profile_shard,
    run_shard,
    variants,
)
from sim.loops.seats import per_game_rows, per_seat_rows, seat_arrays, seat_column
from sim.seeding import single_game_seeds
from strategies.legendary_forests import REGISTRY

# What the reports call a tile (the ``DealCovariate.item`` of the removed tiles and the key of
# ``item_names``).
TILE_NOUN = "tile"

RULES_PARAMETERS = (
    RulesParameter("removed_tiles", 5, 0, 62,
                   "tiles the Architect removes unseen after shuffling tiles 2..N", option=True),
    RulesParameter("trees_per_colour_per_player", 2, 0, 50,
                   "trees of each leaf colour in the supply, per player", option=True),
)


def check_rules_against_tiles(rules: dict[str, int], tileset: TileSet, source: str) -> None:
    """At least one tile must be left to draw once ``removed_tiles`` are out."""
    if rules["removed_tiles"] > tileset.size - 2:
        raise InputError(f"{source}: field 'removed_tiles': {rules['removed_tiles']} leaves no "
                         f"tile to draw from a set of {tileset.size} tiles")


class LegendaryForests(Game):
    """Legendary Forests: 1-5 players grow planets from the same revealed tiles."""

    name = "legendary-forests"
    title = "Legendary Forests"
    listing_order = 0
    min_players = 1
    max_players = 5
    data_option = "tiles"
    data_help = "a Legendary Forests tile-set TOML file"
    data_files = DATA_FILES
    position_help = "a Legendary Forests planet"
    played_positions_field = "planets"
    rules_parameters = RULES_PARAMETERS
    rules_tunings = RULES_TUNINGS  # the tree supply (``sim tune-trees``)
    # Measured on a quiet machine (README, Speed): the loop with random and greedy; the rest.
    compile_seconds = 13.0
    strategy_compile_seconds = {"rune-hunter": 3.0, "closer": 2.0, "planner": 6.0, "denier": 3.0,
                                "rollout": 24.0, "expert": 21.0, "search": 30.0}
    supports_trace = True
    trace_step = "turn"  # a tile revealed, placed by everyone, and its tree phase
    # How a planet was built (``sim.profile``): the rows store has no points per category (a
    # zone's points come from its runes and whether it is closed) and every game of a rules
    # setting has the same number of turns, so runes, zones, trees by colour and discards.
    profile_columns = ("full_runes", "zones", "closed_zones", "zones_with_trees", "trees_pink",
                       "trees_red", "trees_yellow", "tiles_discarded")
    # Fields of players (``sim.fields``). The expert has no documented variant of another
    # style, so the second strong field is a balanced mix of the strong strategies.
    field_lineups = (
        ("strong", "expert", "the strongest default in every seat"),
        ("mixed", "pool:expert+planner", "the two strongest strategies rotating through the seats"),
        ("casual", "greedy", "the one-move greedy player in every seat"),
    )
    default_fields = ("strong", "mixed", "casual")

    def analyses(self) -> tuple:
        """The construction token, light tiles and removed tiles analyses (``analyses.py``)."""
        return ANALYSES

    def deal_covariates(self) -> tuple[DealCovariate, ...]:
        """What the shuffle decides: the tiles removed unseen, and how many light tiles come
        up (the tree phases), both the same for every seat and replay of a deal."""
        return (DealCovariate("removed_tiles_mask", "tile {n} removed unseen", COVARIATE_MASK,
                              item=TILE_NOUN),
                DealCovariate("light_tiles_drawn", "light tiles drawn", COVARIATE_COUNT))

    def item_names(self, data: TileSet) -> dict[str, dict[int, str]]:
        """Every tile by number, named from its areas (``svg.tile_names``): the tiles have
        only numbers in print."""
        return {TILE_NOUN: tile_names(data)}

    def item_svg(self, noun: str, item_id: int, data: TileSet) -> str | None:
        """A drawing of tile ``item_id`` (north up, with its name); None for another noun or
        a number outside the set."""
        if noun != TILE_NOUN or not 1 <= item_id <= data.size:
            return None
        return tile_svg(data, item_id)

    def report_notes(self) -> list[str]:
        """Seat 1 (0 in Parquet) is the Architect and leads the first tree phase."""
        return ["Seats are counted from 1: seat 1 is the Architect and the first holder of the "
                "construction token. (The Parquet files count seats from 0.)",
                "Effects are estimated holding the other known factors fixed: the construction "
                "token within each game with the seat fixed (statsmodels OLS, cluster-robust by "
                "deal); each removed tile with the other removed tiles fixed (OLS over deals, "
                "HC1). Light tiles: the mean at each count, with a lack-of-fit test before any "
                "single slope is read."]

    def drawing_legend(self) -> str:
        """How to read a planet drawn by ``draw_planet``."""
        return ("each tile is a block of three lines: its north side letter on top, then the "
                "west side letter, the tile number, ^ when a tree stands on it and the east side "
                "letter, then the south side letter. Side letters: P pink, R red, Y yellow, "
                ". grass; north is up.")

    def load_data(self, path: str | None) -> TileSet:
        return load_tileset(path)

    def data_digest(self, data: TileSet) -> str:
        return data.digest()

    def strategies(self) -> dict[str, StrategyInfo]:
        """Every registered strategy (built-ins, files in ``strategies/legendary_forests/``);
        ``module:Class`` names load on lookup."""
        return REGISTRY

    def lineup_kind(self, lineup: list[StrategySpec]) -> str:
        """How a lineup is played: ``built-in`` (the cached kernel), ``compiled`` (a kernel
        variant with the user's compiled functions) or ``python`` (the Python driver)."""
        kinds = {REGISTRY.strategy_class(spec.name).kind() for spec in lineup}
        if KIND_PYTHON in kinds:
            return KIND_PYTHON
        if KIND_COMPILED in kinds:
            return KIND_COMPILED
        return KIND_BUILTIN

    def cached_kernels(self, method: str) -> tuple:
        """Every method runs the shard kernel (one game is a shard of one: ``loop.play_one``);
        ``play_game`` is pasted into it and has no cache of its own."""
        return (play_games,)

    def _tile_arrays(self, tileset: TileSet):
        """``tile_arrays(tileset)``, computed once for the tile set of the last call (a shard
        and its notable games' replays use the same; the loop only reads them)."""
        cached = getattr(self, "_last_tile_arrays", None)
        if cached is None or cached[0] is not tileset:
            cached = self._last_tile_arrays = (tileset, tile_arrays(tileset))
        return cached[1]

    def strategy_kernels(self, name: str) -> tuple:
        """Every built-in but ``random`` and ``greedy`` is called through the loop's table."""
        return TABLE_FUNCTIONS.get(name, ())

    def variant_compile_seconds(self) -> dict:
        """Compile seconds of each loop variant built in this process (None until compiled)."""
        return {key: variant.compile_seconds[0] for key, variant in variants().items()}

    def _seat_arrays(self, lineup: list[StrategySpec]):
        """Policy id and float parameter row per lineup entry, and the compiled user functions
        (``USER_POLICY_BASE + k`` plays the (placement, tree) pair ``user_functions[k]``)."""
        seats = seat_arrays(REGISTRY, lineup, POLICY_IDS, PARAMETER_SLOTS, USER_POLICY_BASE)
        return seats.policies, seats.parameters, seats.user_functions

    def _python_seats(self, lineup: list[StrategySpec]):
        """Per lineup entry, a function ``seat -> driver.SeatPlayer``."""
        from sim.loops.legendary_forests.driver import seat_player

        def factory(spec):
            cls = REGISTRY.strategy_class(spec.name)
            return lambda seat: seat_player(cls, spec.parameters, PARAMETER_SLOTS)

        return [factory(spec) for spec in lineup]

    def play_shard_in_driver(self, data, players, rules, lineup, game_seat_strategy,
                             deal_seeds, strategy_seeds, trace=False):
        """The shard played by the Python driver (the loop's own code run from Python)."""
        return self.play_shard(data, players, rules, lineup, game_seat_strategy, deal_seeds,
                               strategy_seeds, use_driver=True, trace=trace)

    def hidden_information_decisions(self, data, players, rules, lineup, seed, shuffle,
                                     turns=4):
        """Placements and tree colours of the first ``turns`` turns, with the tiles drawn
        after them re-shuffled by ``shuffle`` right after the deal (the removed tiles and the
        later draw order are hidden), and that later draw order."""
        tileset: TileSet = data
        removed = rules["removed_tiles"]
        tiles = tile_arrays(tileset)
        table = new_table(tileset.size, players, removed)
        work = new_work(tileset.size, players, removed)
        log = new_log(tileset.size, players, removed)
        policies, params, user_functions = self._seat_arrays(lineup)
        deal_seed, strategy_seed = single_game_seeds(seed)

        def deal_then_shuffle(rng, tile_count, removed_tiles, draw_order, removed_out):
            deal(rng, tile_count, removed_tiles, draw_order, removed_out)
            if shuffle is not None:
                np.random.default_rng(shuffle).shuffle(draw_order[turns:])

        overrides = {"deal": deal_then_shuffle}
        if user_functions:
            overrides["choose_placement"] = compiled_variant(user_functions).placement
            overrides["choose_tree"] = compiled_variant(user_functions).tree
        game = rebind(play_game.py_func, "play_game", overrides)
        game(tiles, table, work, log, removed, rules["trees_per_colour_per_player"],
             np.uint64(deal_seed), np.uint64(strategy_seed), policies, params,
             strategy_table(policies, tiles, table, work))
        decisions = [log.placement_cell[:turns].tolist(), log.placement_rotation[:turns].tolist(),
                     log.tree_colour[:turns].tolist()]
        return decisions, log.draw_order[turns:].copy()

    def profile_shard(self, data, players, rules, lineup, game_seat_strategy, deal_seeds,
                      strategy_seeds):
        """The shard in the instrumented loop (built-in strategies only)."""
        check_rules_against_tiles(rules, data, "rules")
        if self.lineup_kind(lineup) != KIND_BUILTIN:
            raise InputError("--profile: only built-in strategies can be profiled")
        policies, params, _ = self._seat_arrays(lineup)
        game_seat_strategy = np.asarray(game_seat_strategy)
        return profile_shard(tile_arrays(data), players, rules["removed_tiles"],
                             rules["trees_per_colour_per_player"],
                             np.asarray(deal_seeds, dtype=np.uint64),
                             np.asarray(strategy_seeds, dtype=np.uint64),
                             np.ascontiguousarray(policies[game_seat_strategy]),
                             np.ascontiguousarray(params[game_seat_strategy]))

    def play_shard(self, data, players, rules, lineup, game_seat_strategy, deal_seeds,
                   strategy_seeds, use_driver=False, trace=False):
        """Play a shard: built-in lineups in the cached kernel, lineups with compiled user
        strategies in a kernel variant compiled once per process and lineup, lineups with a
        Python strategy in the Python driver (the same games, slower). ``trace`` adds the
        ``score_trace`` column (every seat's score after each turn)."""
        check_rules_against_tiles(rules, data, "rules")
        game_seat_strategy = np.asarray(game_seat_strategy)
        kind = self.lineup_kind(lineup)
        if kind == KIND_PYTHON or use_driver:
            from sim.loops.legendary_forests import driver

            results = driver.run_shard(data, tile_arrays(data), players, rules["removed_tiles"],
                                       rules["trees_per_colour_per_player"],
                                       np.asarray(deal_seeds, dtype=np.uint64),
                                       np.asarray(strategy_seeds, dtype=np.uint64),
                                       self._python_seats(lineup), game_seat_strategy,
                                       trace=trace)
        else:
            policies, params, user_functions = self._seat_arrays(lineup)
            variant = compiled_variant(user_functions) if kind == KIND_COMPILED else None
            results = run_shard(self._tile_arrays(data), players, rules["removed_tiles"],
                                rules["trees_per_colour_per_player"], deal_seeds,
                                strategy_seeds, policies[game_seat_strategy],
                                params[game_seat_strategy], variant=variant, trace=trace)
        games = len(deal_seeds)

        # Tree phase k is led by seat k mod players (the token starts with seat 0 and passes
        # after each phase), so seat s leads ceil((light - s) / players) of them.
        light = results.light_drawn.astype(np.int64)[:, None]
        seats = np.arange(players, dtype=np.int64)[None, :]
        token_phases = np.maximum(0, (light - seats + players - 1) // players).astype(np.int8)

        columns = {
            "seat": seat_column(games, players),
            "score": per_seat_rows(results.score),
            "rank": per_seat_rows(results.rank),
            "win": per_seat_rows(results.win),
            "full_runes": per_seat_rows(results.full_runes),
            "zones": per_seat_rows(results.zones),
            "closed_zones": per_seat_rows(results.closed_zones),
            "zones_with_trees": per_seat_rows(results.zones_with_trees),
            "trees_pink": per_seat_rows(results.trees[:, :, 0]),
            "trees_red": per_seat_rows(results.trees[:, :, 1]),
            "trees_yellow": per_seat_rows(results.trees[:, :, 2]),
            "tiles_discarded": per_seat_rows(results.discards),
            "tree_phases_without_tree": per_seat_rows(results.tree_phases_without_tree),
            "tree_picks_constrained": per_seat_rows(results.tree_picks_constrained),
            "tree_phases_as_token_holder": per_seat_rows(token_phases),
            "light_tiles_drawn": per_game_rows(results.light_drawn, players),
            "removed_tiles_mask": per_game_rows(results.removed_mask, players),
            "draw_order": per_game_rows(results.draw_order, players),
        }
        if trace:
            # [G, turns, P] -> one list per (game, seat): that seat's score after each turn.
            columns["score_trace"] = score_trace_column(
                np.ascontiguousarray(results.score_trace.transpose(0, 2, 1)).reshape(
                    games * players, -1))
        return columns

    def column_docs(self) -> dict[str, str]:
        return {
            "full_runes": "full runes on the planet (pairs of touching half-runes)",
            "zones": "leaf zones on the planet",
            "closed_zones": "leaf zones with no open half-rune",
            "zones_with_trees": "zones holding at least one tree (the zones that score)",
            "trees_pink": "pink trees placed", "trees_red": "red trees placed",
            "trees_yellow": "yellow trees placed",
            "tiles_discarded": "drawn tiles the player had to discard (no legal placement)",
            "tree_phases_without_tree": "tree phases in which the player could take no tree",
            "tree_picks_constrained": "tree phases in which a colour the player had a zone of "
                                      "was already gone from the supply",
            "tree_phases_as_token_holder": "tree phases this seat led with the construction "
                                           "token (picked first)",
            "light_tiles_drawn": "light tiles drawn in the game (= tree phases)",
            "removed_tiles_mask": "bit (n - 1) set for each tile number n removed unseen",
            "draw_order": "tile numbers in the order drawn",
        }

    def play_one(self, data, players, rules, lineup, seed):
        deal_seed, strategy_seed = single_game_seeds(seed)
        table, log = self._play_seeded(data, players, rules, lineup, deal_seed, strategy_seed)
        return self._describe_game(data, table, log, lineup, seed, rules)

    def final_drawings(self, data, players, rules, lineup, deal_seed, strategy_seed):
        """Each seat's final planet, drawn, for a game given by its seeds (the report's
        highest- and lowest-scoring games are replayed this way)."""
        table, _ = self._play_seeded(data, players, rules, lineup, deal_seed, strategy_seed)
        drawings = []
        for player in range(players):
            planet = planet_of(data, table, player)
            drawings.append(draw_planet(planet, data))
        return drawings

    def final_svgs(self, data, players, rules, lineup, deal_seed, strategy_seed, labels=None):
        """Each seat's final planet as an SVG document headed "Seat n (strategy): points" (seats
        from 1), for a game given by its seeds."""
        table, _ = self._play_seeded(data, players, rules, lineup, deal_seed, strategy_seed)
        labels = labels or [spec.label() for spec in lineup]
        return [planet_svg(planet_of(data, table, player), data,
                           f"Seat {player + 1} ({labels[player]}): "
                           f"{int(planet_score(table, player))} points")
                for player in range(players)]

    def _play_seeded(self, data, players, rules, lineup, deal_seed, strategy_seed):
        """One game on fresh arrays, with whatever kinds of strategies the lineup has."""
        tileset: TileSet = data
        check_rules_against_tiles(rules, tileset, "rules")
        removed = rules["removed_tiles"]
        tiles = self._tile_arrays(tileset)
        table = new_table(tileset.size, players, removed)
        work = new_work(tileset.size, players, removed)
        log = new_log(tileset.size, players, removed)
        kind = self.lineup_kind(lineup)
        if kind == KIND_PYTHON:
            from sim.loops.legendary_forests import driver

            seats = [make(seat) for seat, make in enumerate(self._python_seats(lineup))]
            driver.play_game(tileset, tiles, table, work, log, removed,
                             rules["trees_per_colour_per_player"], deal_seed, strategy_seed,
                             seats)
        else:
            policies, params, user_functions = self._seat_arrays(lineup)
            variant = compiled_variant(user_functions) if kind == KIND_COMPILED else None
            table, log = play_one(tiles, players, removed, rules["trees_per_colour_per_player"],
                                  deal_seed, strategy_seed, policies, params, variant)
        return table, log

    def _describe_game(self, tileset, table, log, lineup, seed, rules) -> PlayedGame:
        """The turn log as text, seats counted from 1 as a person reads them, and the JSON
        document, which keeps the 0-based ``seat`` of the Parquet files."""
        players = len(lineup)
        side = int(table.status[STATUS_GRID_SIDE])
        centre = side // 2
        planets = [planet_of(tileset, table, p) for p in range(players)]
        scores = [int(planet_score(table, p)) for p in range(players)]
        tree_index = [0] * players
        removed = sorted(int(t) + 1 for t in log.removed[:removed_count(rules)])
        lines = [f"Legendary Forests, {players} player(s), seed {seed}; removed unseen: {removed}"]
        for p, spec in enumerate(lineup):
            lines.append(f"  seat {p + 1}: {spec.label()}")
        turn_log = []
        token = 0
        for turn in range(log.draw_order.shape[0]):
            tile = int(log.draw_order[turn])
            light = bool(tileset.light[tile])
            lines.append(f"turn {turn + 1:2d}: tile {tile + 1:2d} ({'light' if light else 'dark'})")
            entry = {"turn": turn + 1, "tile": tile + 1, "light": light, "placements": [],
                     "trees": []}
            for p in range(players):
                cell = int(log.placement_cell[turn, p])
                if cell < 0:
                    lines.append(f"    seat {p + 1}: discarded")
                    entry["placements"].append(None)
                    continue
                x, y = cell % side - centre, cell // side - centre
                rotation = int(log.placement_rotation[turn, p])
                lines.append(f"    seat {p + 1}: placed at ({x}, {y}) rotation {rotation}")
                entry["placements"].append({"x": x, "y": y, "rotation": rotation})
            if light:
                order = [(token + k) % players for k in range(players)]
                taken = []
                for p in order:
                    colour = int(log.tree_colour[turn, p])
                    if colour == NO_TREE_TAKEN:
                        taken.append(f"seat {p + 1} none")
                        entry["trees"].append({"seat": p, "color": None})
                    elif colour != NO_TREE_PHASE:
                        tree = planets[p].trees[tree_index[p]]
                        tree_index[p] += 1
                        taken.append(f"seat {p + 1} {COLOUR_NAMES[colour]} at ({tree.x}, {tree.y}) "
                                     f"{SIDE_NAMES[tree.side]}")
                        entry["trees"].append({"seat": p, "color": COLOUR_NAMES[colour],
                                               "x": tree.x, "y": tree.y,
                                               "side": SIDE_NAMES[tree.side]})
                lines.append(f"    trees (token with seat {token + 1}): " + "; ".join(taken))
                token = (token + 1) % players
            turn_log.append(entry)
        best = max(scores)
        for p in range(players):
            won = " (wins)" if scores[p] == best else ""
            lines.append("")
            lines.append(f"seat {p + 1} ({lineup[p].label()}): {scores[p]} points{won}, "
                         f"{int(table.discards[p])} discarded")
            lines.append(draw_planet(planets[p], tileset))
        document = {
            "game": self.name,
            "seed": seed,
            "players": players,
            "rules": dict(rules),
            "tiles_file": tileset.path,
            "strategies": [spec.label() for spec in lineup],
            "scores": scores,
            "removed": removed,
            "turns": turn_log,
            "planets": [planet_to_json(planet) for planet in planets],
        }
        return PlayedGame(text="\n".join(lines), document=document, scores=scores)

    def score_file(self, path, data):
        tileset: TileSet = data
        planet = load_planet(path, tileset)
        result = score_planet(planet, tileset)
        lines = [f"{path}: {len(planet.tiles)} tiles, {len(planet.trees)} trees"]
        zones = []
        for zone in result.zones:
            if zone.trees == 0:
                continue
            state = "closed" if zone.closed else "open"
            lines.append(f"  {COLOUR_NAMES[zone.colour]:6s} zone at {zone.cells[0]}: "
                         f"{zone.full_runes} full runes, {state}, {zone.trees} tree(s) "
                         f"-> {zone.points} points")
            zones.append({"color": COLOUR_NAMES[zone.colour], "full_runes": zone.full_runes,
                          "closed": zone.closed, "open_half_runes": zone.open_half_runes,
                          "trees": zone.trees, "points": zone.points,
                          "cells": [list(c) for c in zone.cells]})
        lines.append(f"total: {result.total}")
        return ScoredFile(text="\n".join(lines), document={"zones": zones,
                                                           "total": result.total})


def removed_count(rules: dict[str, int]) -> int:
    """Number of tiles removed unseen under ``rules``."""
    return rules["removed_tiles"]
