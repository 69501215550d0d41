"""``spieltisch lab``: tournaments and rule-variant studies from the command line.

Everything heavy (the engines, matplotlib, Ray) is imported inside the
commands, so ``spieltisch --help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from spieltisch.options import OptionsInputError

app = typer.Typer(
    help="Simulation lab: bot tournaments and Waschbär-Schmaus rule variants, with reports.",
    no_args_is_help=True,
)

BotOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--bot",
        "-b",
        help="Bot for the next seat (repeat): random, easy, medium, neural, hard (hard@baseline, "
        "hard:playouts=1200, see docs/bots.md), cmd:COMMAND, py:MODULE:FACTORY[:ARG] or "
        "avoid=CARD:SPEC (Waschbär-Schmaus: SPEC that never lays CARD, e.g. avoid=HUNTER:medium).",
    ),
]
BotsOpt = Annotated[
    str | None, typer.Option("--bots", help="Comma-separated line-up, e.g. hard,medium,medium,medium.")
]
GamesOpt = Annotated[
    int, typer.Option("--games", "-n", help="Games; rounded up to a multiple of the player count.")
]
SeedOpt = Annotated[int, typer.Option(help="Study seed: every game's deal and bot seeds derive from it.")]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", "-j", help="Worker processes (default: all cores; 1 = this process)."),
]
RayOpt = Annotated[
    str | None,
    typer.Option(
        "--ray", help="Run on a Ray cluster at ADDRESS ('local' starts one here). Needs spieltisch[ray]."
    ),
]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="Write summary and every game as JSON.")]
CsvOpt = Annotated[Path | None, typer.Option("--csv", help="Write one CSV row per game.")]
HtmlOpt = Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML report.")]
LangOpt = Annotated[str, typer.Option("--lang", help="Report language: en or de.")]
BudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--seconds",
        min=0.001,
        help="Wall-clock cap per decision for bots that search (default none). Makes results depend "
        "on the machine and its load; budgets in work (hard:playouts=N) do not.",
    ),
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", min=0.01, help="Seconds an external (cmd:) bot may take per decision.")
]
FreshOpt = Annotated[
    bool,
    typer.Option(
        "--fresh-deals/--duplicate-deals",
        help="Duplicate deals (default): the rotations of one block share a deal. "
        "Fresh: a new deal every game.",
    ),
]
INTERRUPTED = 130
"""The exit code after Ctrl+C (128 + SIGINT, as shells report it)."""

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _fail(message: str) -> typer.Exit:
    typer.secho(f"Error: {message}", fg=typer.colors.RED, err=True)
    return typer.Exit(2)


def _lineup(
    bot: list[str] | None, bots: str | None, players: int | None, default: list[str] | None = None
) -> list[str]:
    from spieltisch.lab.config import LabError, split_bots

    specs = split_bots([*(bot or []), *([bots] if bots else [])])
    if not specs:
        if default is None:
            raise LabError("name the bots: --bot hard --bot medium ... or --bots hard,medium,medium,medium")
        specs = default
    if players is not None and len(specs) != players:
        if len(specs) == 1:
            specs = specs * players
        else:
            raise LabError(f"--players {players} but {len(specs)} bots given ({', '.join(specs)})")
    return specs


def _options(option: list[str] | None, options_file: Path | None) -> dict[str, Any]:
    from spieltisch.lab.config import load_options_file, merge_options, parse_option_pairs

    base = load_options_file(options_file) if options_file else {}
    return merge_options(base, parse_option_pairs(option or []))


def _budget(seconds: float | None) -> Any:
    from spieltisch.bots import Budget

    return Budget(seconds=seconds) if seconds is not None else None


@app.command()
def tournament(
    game: Annotated[str, typer.Option("--game", "-g", help="scout or schmaus.")] = "schmaus",
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Player count (default: one per bot).")
    ] = None,
    bot: BotOpt = None,
    bots: BotsOpt = None,
    games: GamesOpt = 100,
    seed: SeedOpt = 1,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="Rule option key=value (repeat); deck.HUNTER=1 nests."),
    ] = None,
    options_file: Annotated[
        Path | None, typer.Option("--options-file", help="Rule options as TOML or JSON.")
    ] = None,
    workers: WorkersOpt = None,
    ray: RayOpt = None,
    json_path: JsonOpt = None,
    csv_path: CsvOpt = None,
    html_path: HtmlOpt = None,
    lang: LangOpt = "en",
    seconds: BudgetOpt = None,
    timeout: TimeoutOpt = 10.0,
    fresh_deals: FreshOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Play a line-up of bots over many seeded games; seats rotate so every bot plays every seat equally."""
    from rich.console import Console

    from spieltisch.lab.config import LabError
    from spieltisch.lab.tournament import Tournament

    console = Console()
    try:
        if lang not in ("en", "de"):
            raise LabError(f"unknown report language {lang!r}: choose en or de")
        lineup = _lineup(bot, bots, players)
        t = Tournament.create(
            game,
            lineup,
            games,
            seed,
            _options(option, options_file),
            duplicate=not fresh_deals,
            budget=_budget(seconds),
            timeout=timeout,
        )
        if t.games != games:
            console.print(
                f"Note: {games} games rounded up to {t.games}, a multiple of {t.players} players, "
                "so every bot plays every seat equally often."
            )
        try:
            result = t.run(workers=workers, ray_address=ray, progress=not quiet)
        except KeyboardInterrupt:
            console.print("Interrupted before any game finished: nothing to show or save.")
            raise typer.Exit(INTERRUPTED) from None
        from spieltisch.lab.report import tournament_html

        write_results(console, result, json_path, csv_path, html_path, lambda: tournament_html(result, lang))
    except OptionsInputError as exc:
        raise _fail(str(exc)) from None
    if result.interrupted:
        console.print(
            f"Interrupted (Ctrl+C): the results of the {len(result.games)} of {t.games} games finished "
            "by then, saved where asked."
        )
        raise typer.Exit(INTERRUPTED)


@app.command()
def variants(
    variant: Annotated[
        list[str] | None,
        typer.Option("--variant", "-V", help="NAME:key=value,key=value (repeat); NAME alone = the defaults."),
    ] = None,
    variants_file: Annotated[
        Path | None, typer.Option("--variants-file", "-f", help="TOML/JSON with [variants.NAME] tables.")
    ] = None,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Player count (default 4).")] = None,
    bot: BotOpt = None,
    bots: BotsOpt = None,
    games: GamesOpt = 200,
    seed: SeedOpt = 1,
    impact_games: Annotated[
        int, typer.Option("--impact-games", help="Games per card for the card-impact study (0: skip).")
    ] = 0,
    impact_card: Annotated[
        list[str] | None, typer.Option("--impact-card", help="Card id(s) to study (default: all 12).")
    ] = None,
    looks: Annotated[
        int,
        typer.Option(
            "--looks",
            help="Sequential test: look after 1/8, 1/4, 1/2 and all games (4 looks) and stop once every "
            "difference from the first variant is settled; 1 = always play every game.",
        ),
    ] = 4,
    stop_on: Annotated[
        str,
        typer.Option(
            "--stop-on",
            help="The measure whose differences decide the early stop: skill_gap, rounds, seat0, "
            "seat_advantage, ruling:W-8, ...",
        ),
    ] = "skill_gap",
    workers: WorkersOpt = None,
    ray: RayOpt = None,
    json_path: JsonOpt = None,
    csv_path: CsvOpt = None,
    html_path: HtmlOpt = None,
    lang: LangOpt = "en",
    seconds: BudgetOpt = None,
    timeout: TimeoutOpt = 10.0,
    fresh_deals: FreshOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Compare Waschbär-Schmaus rule variants with the same bots and seeds, side by side.

    The line-up defaults to hard and easy bots alternating (the skill test)."""
    from rich.console import Console

    from spieltisch.lab.config import LabError
    from spieltisch.lab.variants import VariantStudy, default_lineup, load_variants_file, parse_variant

    console = Console()
    try:
        if lang not in ("en", "de"):
            raise LabError(f"unknown report language {lang!r}: choose en or de")
        chosen = load_variants_file(variants_file) if variants_file else []
        chosen += [parse_variant(v) for v in variant or []]
        lineup = _lineup(bot, bots, players, default_lineup(players or 4))
        study = VariantStudy.create(
            lineup,
            chosen,
            games,
            seed,
            impact_games,
            impact_card,
            duplicate=not fresh_deals,
            budget=_budget(seconds),
            timeout=timeout,
            looks=looks,
            stop_on=stop_on,
        )
        if study.games != games:
            console.print(
                f"Note: {games} games rounded up to {study.games}, a multiple of {study.players} players."
            )
        if impact_games and study.impact_games != impact_games:
            console.print(
                f"Note: card-impact games set to {study.impact_games} (a multiple of the player "
                f"count, at most --games)."
            )
        result = study.run(workers=workers, ray_address=ray, progress=not quiet)
        from spieltisch.lab.report import variants_html

        write_results(console, result, json_path, csv_path, html_path, lambda: variants_html(result, lang))
    except OptionsInputError as exc:
        raise _fail(str(exc)) from None


@app.command()
def design(
    goals_file: Annotated[
        Path, typer.Option("--goals-file", "-f", help="TOML goal file: goals, options to search, bots.")
    ],
    budget: Annotated[
        int, typer.Option("--budget", help="Games the search may play (confirmation and sensitivity extra).")
    ] = 400,
    seed: Annotated[int | None, typer.Option(help="Search seed (default: the file's seed, else 1).")] = None,
    workers: WorkersOpt = None,
    ray: RayOpt = None,
    json_path: JsonOpt = None,
    html_path: HtmlOpt = None,
    lang: LangOpt = "en",
    quiet: QuietOpt = False,
) -> None:
    """Find rule options that meet your goals (Optuna search), each confirmed by a fresh paired run.

    The goal file says what the rules should achieve (e.g. skill gap at least 15 points, 10-14
    rounds), which options may vary and over which ranges; see examples/goals.toml and docs/lab.md."""
    from rich.console import Console

    from spieltisch.lab.config import LabError
    from spieltisch.lab.design import Design, load_spec

    console = Console()
    try:
        if lang not in ("en", "de"):
            raise LabError(f"unknown report language {lang!r}: choose en or de")
        spec = load_spec(goals_file)
        if seed is not None:
            spec.seed = seed
        result = Design(spec, budget).run(workers=workers, ray_address=ray, progress=not quiet)
        from spieltisch.lab.report import design_html

        write_results(console, result, json_path, None, html_path, lambda: design_html(result, lang))
    except OptionsInputError as exc:
        raise _fail(str(exc)) from None


def write_results(
    console: Any,
    result: Any,
    json_path: Path | None,
    csv_path: Path | None,
    html_path: Path | None,
    html: Callable[[], str],
) -> None:
    """Print a study's result and write the files asked for."""
    from spieltisch.lab.tournament import write_text

    result.print(console)
    if json_path:
        result.write_json(json_path)
        console.print(f"JSON written to {json_path}")
    if csv_path:
        result.write_csv(csv_path)
        console.print(f"CSV written to {csv_path}")
    if html_path:
        write_text(html_path, html())
        console.print(f"HTML report written to {html_path}")
