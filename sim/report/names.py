"""The names and pictures of a game's numbered items (cards, spirits, tiles) as the reports show
them: "31 ladybug" in a table or on an axis, "animal card 31 (ladybug)" in a sentence, and the
item's SVG drawing. The number always stays, so a reader can find the item in the Parquet files.

The names come from the game (``Game.item_names``, ``Game.item_svg``), given the data the batch
was played with: the batch's own copy (manifest ``config.data_file``, kept in the batch's
``input/`` folder) or the shipped data, checked against the manifest's ``data_digest``. When
that data cannot be loaded, or is not the data played, the report shows numbers only and says
so in one note (``ItemNames.note``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.errors import InputError
from sim.games.base import Game
from sim.games.registry import get_game
from sim.report.document import Picture


def _names_items(game: Game) -> bool:
    """Whether the game names any item (it overrides ``Game.item_names``)."""
    return type(game).item_names is not Game.item_names


def _item_columns(game: Game) -> dict[str, str]:
    """The rows-store columns whose findings are about one item (the key of a finding is
    ``column/id``), and the noun of that item: deal covariates by their ``item``, the cards
    taken and the card kept by their nouns."""
    columns = {covariate.column: covariate.item for covariate in game.deal_covariates()
               if covariate.item}
    cards, draft = game.card_columns(), game.draft_columns()
    if cards is not None:
        columns[cards.cards] = cards.noun
        if cards.opening:
            columns[cards.opening] = cards.noun
    if draft is not None:
        columns[draft.kept] = draft.noun
    return columns


@dataclass(frozen=True)
class ItemNames:
    """A game's item names, by noun ("animal card") and id, and what draws them.

    ``names``: noun -> {id: name}; ``data``: the game data they come from (for ``svg``),
    None when it could not be loaded; ``note``: one sentence for the report's notes when the
    names could not be given (None otherwise)."""

    game: Game | None = None
    names: dict[str, dict[int, str]] = field(default_factory=dict)
    data: Any = None
    note: str | None = None

    def name(self, noun: str, item_id: int) -> str | None:
        """The item's name, or None when it has none."""
        return self.names.get(noun, {}).get(int(item_id))

    def label(self, noun: str, item_id: int) -> str:
        """``"31 ladybug"`` for a table cell or an axis tick; ``"31"`` when unnamed."""
        name = self.name(noun, item_id)
        return f"{int(item_id)} {name}" if name else str(int(item_id))

    def mention(self, noun: str, item_id: int) -> str:
        """``"animal card 31 (ladybug)"`` for a sentence; ``"animal card 31"`` when unnamed."""
        name = self.name(noun, item_id)
        return f"{noun} {int(item_id)}" + (f" ({_unnested(name)})" if name else "")

    def annotate(self, text: str) -> str:
        """``text`` with every "<noun> <id>" of a named item followed by its name in
        parentheses ("Animal card 31 is too strong" -> "Animal card 31 (ladybug) is too
        strong"); the noun matched in any case, a number only when whole (not "31.5")."""
        for noun, names in sorted(self.names.items(), key=lambda item: -len(item[0])):
            if not names:
                continue
            pattern = re.compile(rf"\b({re.escape(noun)}) (\d+)\b(?!\.\d| \()",
                                 flags=re.IGNORECASE)

            def named(match: re.Match, names=names) -> str:
                name = names.get(int(match.group(2)))
                return match.group(0) + (f" ({_unnested(name)})" if name else "")

            text = pattern.sub(named, text)
        return text

    def svg(self, noun: str, item_id: int) -> str | None:
        """The item's standalone SVG drawing, or None (no data, or the game draws none)."""
        if self.game is None or self.data is None:
            return None
        return self.game.item_svg(noun, int(item_id), self.data)

    def picture(self, noun: str, item_id: int, caption: str) -> Picture | None:
        """The item's drawing as a report picture (file stem ``item_slug``) with ``caption``,
        or None when there is no drawing."""
        svg = self.svg(noun, item_id)
        return None if svg is None else Picture(item_slug(noun, item_id), svg, caption)

    def finding_item(self, key: str) -> tuple[str, int] | None:
        """(noun, id) of the item a finding is about, from its key ``column/id``; None when
        the finding is about no single item."""
        if self.game is None or "/" not in key:
            return None
        column, _, rest = key.partition("/")
        noun = _item_columns(self.game).get(column)
        if noun is None or not rest.isdigit():
            return None
        return noun, int(rest)

    def finding_label(self, key: str) -> str | None:
        """``"31 ladybug"`` for the item a finding is about when it has a name, else None."""
        item = self.finding_item(key)
        if item is None or self.name(*item) is None:
            return None
        return self.label(*item)


NO_NAMES = ItemNames()


def _unnested(name: str) -> str:
    """A name for inside parentheses: its own parenthesised parts after a comma ("pink forest
    (light)" -> "pink forest, light"), so that parentheses never nest."""
    return re.sub(r"\s*\(([^()]*)\)", r", \1", name)


def ranked_ends(ranked: Any, first: str, last: str) -> list[tuple[dict, str]]:
    """The first and the last row of a ranked table (a polars DataFrame), as dicts labelled
    ``first`` and ``last`` (the first alone when the table has one row): the items a section
    draws."""
    ends = [(ranked.row(0, named=True), first)]
    if ranked.height > 1:
        ends.append((ranked.row(ranked.height - 1, named=True), last))
    return ends


def item_slug(noun: str, item_id: int) -> str:
    """A file stem for an item's picture: ``animal-card-31``."""
    stem = re.sub(r"[^a-z0-9]+", "-", noun.lower()).strip("-") or "item"
    return f"{stem}-{int(item_id)}"


def _data_path(manifest: dict, run_dir: Path) -> Path | None:
    config = manifest.get("config") or {}
    data_file = config.get("data_file")
    if not data_file:
        return None
    path = Path(data_file)
    return path if path.is_absolute() else Path(run_dir) / path


def batch_item_names(game_name: str, manifest: dict, run_dir: Path) -> ItemNames:
    """The item names of a batch (its game, manifest and folder): from the data it was played
    with, when that loads and its digest is the manifest's ``data_digest``; otherwise no names
    and a note saying why (no note for a game that names nothing)."""
    game = get_game(game_name)
    if not _names_items(game):
        return ItemNames(game)
    path = _data_path(manifest, run_dir)
    where = f"{path}" if path is not None else "the shipped data"
    try:
        data = game.load_data(str(path) if path is not None else None)
        digest = game.data_digest(data)
    except (InputError, OSError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return ItemNames(game, note=f"Items are shown by number only: the data the batch was "
                                    f"played with ({where}) could not be loaded ({reason}).")
    recorded = manifest.get("data_digest") or (manifest.get("config") or {}).get("data_digest")
    if recorded and digest != recorded:
        return ItemNames(game, note=f"Items are shown by number only: {where} is not the data "
                                    f"the batch was played with (its digest {digest} is not "
                                    f"the recorded {recorded}).")
    return ItemNames(game, game.item_names(data), data)


def names_of_batch(batch) -> ItemNames:
    """``batch_item_names`` of an opened batch (``sim.stats.batch.Batch``)."""
    return batch_item_names(batch.game, batch.manifest, batch.run_dir)


def merged_names(every: list[ItemNames]) -> ItemNames:
    """One set of names for a report over several batches (a sweep's points, the two batches
    of a comparison): a name where every batch that names the item agrees on it; the data and
    pictures of the first batch whose data loaded; the notes joined (duplicates once)."""
    if not every:
        return NO_NAMES
    names: dict[str, dict[int, str]] = {}
    clashes: set[tuple[str, int]] = set()
    for part in every:
        for noun, items in part.names.items():
            shared = names.setdefault(noun, {})
            for item_id, name in items.items():
                if shared.get(item_id, name) != name:
                    clashes.add((noun, item_id))
                shared.setdefault(item_id, name)
    for noun, item_id in clashes:
        del names[noun][item_id]
    notes = list(dict.fromkeys(part.note for part in every if part.note))
    if clashes:
        notes.append(f"{len(clashes)} items are shown by number only: the batches' data give "
                     f"them different names.")
    loaded = next((part for part in every if part.data is not None), every[0])
    return ItemNames(loaded.game or every[0].game, names, loaded.data,
                     " ".join(notes) if notes else None)
