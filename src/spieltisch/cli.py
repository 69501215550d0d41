"""The ``spieltisch`` command line (Typer).

Every sub-command lives next to the code it drives and imports its heavy
dependencies lazily, so ``spieltisch --help`` stays fast. Help is plain text
(no Rich markup, so ``spieltisch[lab]`` stays readable), ``-h`` works
everywhere, and every error is one line ``Error: ...`` on stderr with exit
code 2, the style of Click's own usage errors. A command that needs an
optional extra checks for it before any work (:mod:`spieltisch.extras`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from spieltisch.extras import missing_extras, missing_message
from spieltisch.lab import cli as lab_cli
from spieltisch.lab.cli import app as lab_app
from spieltisch.server.limit_values import PROXIES_ENV, Limits, trusted_proxies

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


def fail(message: str) -> typer.Exit:
    """Print ``Error: message`` on stderr; raise the returned exit (code 2)."""
    typer.echo(f"Error: {message}", err=True)
    return typer.Exit(2)


def require(what: str, *extras: str) -> None:
    """Stop with the install command unless every extra in ``extras`` is installed."""
    missing = missing_extras(*extras)
    if missing:
        raise fail(missing_message(what, missing))


def _wants_help(args: Sequence[str]) -> bool:
    return any(a in ("-h", "--help") for a in args)


class LabGroup(TyperGroup):
    """``spieltisch lab``: needs the lab extra (and ray for ``--ray``), checked before any work."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        resolved = super().resolve_command(ctx, args)
        if not _wants_help(args):
            needed = ["lab"] + (["ray"] if any(a == "--ray" or a.startswith("--ray=") for a in args) else [])
            missing = missing_extras(*needed)
            if missing:
                raise fail(missing_message(f"spieltisch lab {args[0] if args else ''}".strip(), missing))
        return resolved


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"spieltisch {version('spieltisch')}")
        except PackageNotFoundError:
            typer.echo("spieltisch (not installed)")
        raise typer.Exit()


app = typer.Typer(
    name="spieltisch",
    help="Spieltisch: Scout and Waschbär-Schmaus — engines, bots, lab and web table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=HELP_OPTIONS,
)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Spieltisch: Scout and Waschbär-Schmaus — engines, bots, lab and web table."""


bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(bench_app, name="bench")
lab_app.rich_markup_mode = None  # plain help: keeps "spieltisch[ray]" and other brackets
app.add_typer(lab_app, name="lab", cls=LabGroup)


@app.command()
def scenarios(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List passing scenarios too.")] = False,
) -> None:
    """Run rule scenario files; ends with 'N passed, M failed'."""
    from spieltisch.scenarios import report, run_paths

    results = run_paths(paths)
    if verbose:
        for r in results:
            if r.ok:
                typer.echo(f"ok   {r.source}: {r.name}")
    text, ok = report(results)
    typer.echo(text)
    if not results:
        raise fail(f"no scenario files (*.json) in {', '.join(map(str, paths))}")
    raise typer.Exit(0 if ok else 1)


@app.command()
def play(
    game: Annotated[str, typer.Argument(metavar="GAME", help="scout or schmaus.")],
    players: Annotated[int, typer.Option(help="Number of players (2-5).")] = 4,
    seed: Annotated[int | None, typer.Option(help="Replay a deal (default: random, printed).")] = None,
    seat: Annotated[
        list[str] | None,
        typer.Option(
            metavar="N=SPEC",
            help="Who plays seat N: human, random, easy, medium, neural, hard (hard:playouts=2000, see "
            "docs/bots.md), cmd:PROGRAM or py:MODULE:FACTORY[:ARG] (repeatable).",
        ),
    ] = None,
    you: Annotated[int, typer.Option(help="Your seat.")] = 0,
    option: Annotated[
        list[str] | None,
        typer.Option(
            metavar="KEY=VALUE",
            help="Rule option, the value read as JSON, e.g. rounds=6 or deck.HUNTER=1 (repeatable).",
        ),
    ] = None,
    options_file: Annotated[Path | None, typer.Option(help="Rule options from a TOML or JSON file.")] = None,
    bot_timeout: Annotated[float, typer.Option(help="Seconds an external bot has per decision.")] = 10.0,
    lang: Annotated[str | None, typer.Option(help="UI language: en or de (default: from LANG).")] = None,
    clock: Annotated[
        float | None, typer.Option(metavar="SECONDS", help="Your time per decision (default: no clock).")
    ] = None,
    bank: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS", help="Your time bank for the game, spent after --clock (default: none)."
        ),
    ] = None,
    stand_in: Annotated[
        str, typer.Option(metavar="LEVEL", help="The bot that plays for you when your time runs out.")
    ] = "medium",
    record: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="Save the game record here (for spieltisch review, docs/review.md)."
        ),
    ] = None,
    hints: Annotated[bool, typer.Option(help="Offer the 'hint' command: the bot's move and why.")] = False,
) -> None:
    """Play in the terminal against bots (you in seat 0 by default); the review is offered at the end.

    With --clock and/or --bank a bot plays for you when your time runs out; press
    Enter to take your seat back."""
    import sys

    from rich.console import Console

    from spieltisch.terminal import PlayError, make_config
    from spieltisch.terminal import play as play_game

    try:
        config = make_config(
            game,
            players,
            seed,
            seat or [],
            you,
            option or [],
            options_file,
            bot_timeout,
            lang,
            clock=clock,
            bank=bank,
            stand_in=stand_in,
            record=record,
            hints=hints,
        )
        code = play_game(config, Console(), sys.stdin)
    except PlayError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(code)


@app.command()
def review(
    record: Annotated[Path, typer.Argument(metavar="RECORD.json", help="A game record (docs/review.md).")],
    seat: Annotated[
        list[int] | None,
        typer.Option(metavar="N", help="Review this seat only (repeatable; default: every seat)."),
    ] = None,
    budget: Annotated[
        str,
        typer.Option(
            help="Work per decision: WORLDS[xPLAYOUTS][+EXTRA] (sampled worlds x playouts, and at most "
            "EXTRA more worlds where a mark is uncertain; default 7 x WORLDS)."
        ),
    ] = "16x1",
    json_out: Annotated[
        Path | None, typer.Option("--json", metavar="FILE", help="Also write the review as JSON here.")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-j",
            metavar="N",
            help="Worker processes (default: every core; the same review for any N).",
        ),
    ] = None,
    lang: Annotated[str | None, typer.Option(help="Language: en or de (default: from LANG).")] = None,
) -> None:
    """Rate every decision of a finished (or partial) game from what its seat could see then."""
    import os

    from spieltisch.langs import LANGS
    from spieltisch.terminal.i18n import detect_lang
    from spieltisch.terminal.review import run_review

    chosen = lang if lang is not None else detect_lang(os.environ)
    if chosen not in LANGS:
        raise typer.BadParameter(f"{chosen!r}: choose one of {', '.join(LANGS)}", param_hint="--lang")
    try:
        processes = workers if workers is not None else os.cpu_count() or 1
        run_review(record, seat, budget, json_out, processes, chosen)
    except ValueError as exc:
        raise fail(str(exc)) from None


@bench_app.command("engine")
def bench_engine(
    seconds: Annotated[float, typer.Option(min=0.01, help="Time per measurement.")] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of the first game.")] = 1,
) -> None:
    """Random-playout decisions/s and games/s per game and player count (one core)."""
    from spieltisch.benchmarks.engine import run

    run(seconds=seconds, seed=seed)


LIMITS = "Limits against hostile or broken clients (docs/protocol.md, Limits; 0 switches a count off)"


def _limit_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with one option per field of :class:`~spieltisch.server.limit_values.Limits`
    (its name, type, default and help text) instead of its ``limits`` parameter, which
    gets the :class:`Limits` of those options (a bad value: ``Error: ...``, exit 2)."""
    names = [f.name for f in dataclasses.fields(Limits)]
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "limits"]
    options = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=f.default,
            annotation=Annotated[
                Limits.field_type(f.name),
                typer.Option(help=f.metadata["help"], rich_help_panel=LIMITS),
            ],
        )
        for f in dataclasses.fields(Limits)
    ]

    @functools.wraps(command)
    def with_limits(**kwargs: Any) -> None:
        try:
            limits = Limits(**{name: kwargs.pop(name) for name in names})
        except ValueError as exc:
            raise fail(str(exc)) from None
        command(limits=limits, **kwargs)

    parameters = [*own, *options]
    with_limits.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    with_limits.__annotations__ = {p.name: p.annotation for p in parameters}
    return with_limits


@app.command()
@_limit_options
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port, printed).")
    ] = 8000,
    database: Annotated[
        str, typer.Option(help="SQLAlchemy URL: sqlite:///FILE (embedded) or postgresql+psycopg://...")
    ] = "sqlite:///spieltisch.db",
    bot_delay: Annotated[float, typer.Option(help="Seconds a bot waits before it moves.")] = 0.6,
    reload: Annotated[bool, typer.Option(help="Restart when the code changes (development).")] = False,
    review_budget: Annotated[
        str,
        typer.Option(
            help="Work per decision of a finished game's review: WORLDS[xPLAYOUTS][+EXTRA] (docs/review.md)."
        ),
    ] = "8",
    redis: Annotated[
        str | None,
        typer.Option(
            help="redis://HOST:PORT/DB: be one worker of several sharing the rooms (docs/deploy.md); "
            "needs a PostgreSQL --database."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(min=1, help="Worker processes on this machine, sharing the port (needs --redis)."),
    ] = 1,
    port_per_worker: Annotated[
        bool,
        typer.Option(
            help="Each worker on a port of its own: --port, --port + 1, ... (for a proxy that routes "
            "each room to one worker, docs/deploy.md)."
        ),
    ] = False,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            envvar=PROXIES_ENV,
            help="A reverse proxy in front (IP address or network; repeat for more): its "
            "X-Forwarded-For names the client for the per-address limits. Without one the "
            "client is the connection's peer (docs/deploy.md).",
        ),
    ] = None,
    limits: Limits | None = None,
) -> None:
    """Run the web table (docs/protocol.md) and print the address to open."""
    # uvicorn's FORWARDED_ALLOW_IPS still names the proxies, checked the same way.
    legacy = "" if trusted_proxy else os.environ.get("FORWARDED_ALLOW_IPS", "")
    try:
        proxies = trusted_proxies(trusted_proxy or [legacy])
    except ValueError as exc:
        raise fail(f"FORWARDED_ALLOW_IPS: {exc}" if legacy else str(exc)) from None
    require("spieltisch serve", "web")
    if database.startswith(("postgresql", "postgres:")):
        require(f"spieltisch serve --database {database.split(':', 1)[0]}:...", "postgres")
    if redis is not None:
        require("spieltisch serve --redis", "cluster")
    from spieltisch.server.serve import run_server

    try:
        from spieltisch.analysis.review import ReviewBudget

        budget = str(ReviewBudget.parse(review_budget))
    except ValueError as exc:
        raise fail(str(exc)) from None
    run_server(
        host=host, port=port, database=database, bot_delay=bot_delay, reload=reload, limits=limits,
        review_budget=budget, redis=redis, workers=workers, port_per_worker=port_per_worker,
        proxies=proxies,
    )  # fmt: skip


@bench_app.command("server")
def bench_server(
    clients: Annotated[int, typer.Option(help="Connected WebSocket clients (human seats).")] = 200,
    games: Annotated[int, typer.Option(help="Games played at the same time.")] = 50,
    seconds: Annotated[float, typer.Option(min=0.01, help="How long to measure.")] = 30.0,
    game: Annotated[str, typer.Option(help="scout, schmaus or mixed.")] = "mixed",
    think: Annotated[
        float, typer.Option(help="Mean seconds a client thinks before it moves (0: saturate the server).")
    ] = 1.0,
    bots: Annotated[
        str, typer.Option(help="Bots at every table, comma-separated levels (e.g. medium,hard; none).")
    ] = "random",
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Measure a cluster of this many workers (docs/deploy.md) on --database and --redis "
            "instead of one server on SQLite; each game's clients are spread over the workers.",
        ),
    ] = None,
    database: Annotated[
        str | None, typer.Option(help="With --workers: the PostgreSQL URL (postgresql+psycopg://...).")
    ] = None,
    redis: Annotated[str, typer.Option(help="With --workers: the Redis URL.")] = "redis://127.0.0.1:6379/0",
    route: Annotated[
        str,
        typer.Option(
            help="With --workers: round-robin (each game's clients spread over the workers) or room "
            "(all on the worker its room's hash picks, as a proxy routing by room; the rooms move there)."
        ),
    ] = "round-robin",
    client_procs: Annotated[
        int | None,
        typer.Option(min=1, help="Client processes (default: one per 250 clients, at most one per CPU)."),
    ] = None,
    client_nice: Annotated[
        int, typer.Option(min=0, help="Niceness of the client processes (the server is served first).")
    ] = 0,
    warm_up: Annotated[
        float, typer.Option(help="Most seconds to wait for every game's clients before measuring anyway.")
    ] = 180.0,
) -> None:
    """Moves/s, act-to-state latency (p50/p90/p99) and CPU of the web table under many games.
    Fails (exit 1) when a connection failed or a game loop died."""
    require("spieltisch bench server", "web")
    from spieltisch.benchmarks.server import ClusterSpec, run

    cluster = None
    if workers is not None:
        require("spieltisch bench server --workers", "cluster")
        if database is None or not database.startswith("postgresql"):
            raise fail("--workers: the workers share a PostgreSQL --database postgresql+psycopg://...")
        cluster = ClusterSpec(workers, database, redis, route=route)
    elif route != "round-robin":
        raise fail("--route: for a cluster of --workers")
    levels = () if bots.strip() in ("", "none") else tuple(b.strip() for b in bots.split(","))
    stats = run(
        clients=clients, games=games, seconds=seconds, game=game, think=think, bots=levels, cluster=cluster,
        client_procs=client_procs, client_nice=client_nice, warm_up=warm_up,
    )  # fmt: skip
    if not stats.ok:
        raise typer.Exit(1)


@bench_app.command("bots")
def bench_bots(
    seconds: Annotated[
        float,
        typer.Option(
            min=0.01, help="Bot time per level and game in the speed table (not the tournament)."
        ),
    ] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 1,
    games: Annotated[
        int,
        typer.Option(
            min=1,
            help="Games of each strength tournament, rounded up so every seat order is played equally "
            "(their length is estimated and printed).",
        ),
    ] = 40,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", help="Processes for the tournament.")
    ] = None,
) -> None:
    """Decisions/s per bot level and game, and a short strength tournament (e.g. hard vs medium×3)."""
    require("spieltisch bench bots", "lab")
    from spieltisch.benchmarks.bots import run

    run(seconds=seconds, seed=seed, games=games, workers=workers)


@bench_app.command("review")
def bench_review(
    game: Annotated[
        list[str] | None, typer.Option(metavar="GAME", help="scout or schmaus (repeatable; default both).")
    ] = None,
    budget: Annotated[str, typer.Option(help="The review's budget (the web table's: 8).")] = "8",
    workers: Annotated[int, typer.Option("--workers", "-j", min=1, help="Review processes.")] = 2,
    record: Annotated[
        Path | None, typer.Option(metavar="FILE", help="Review this game record, not the standard games.")
    ] = None,
    before: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE", help="An older analysis/review.py to time side by side (e.g. from git show)."
        ),
    ] = None,
) -> None:
    """Wall and CPU seconds of a whole game's review (four medium bots, seed 5), as players wait for it."""
    from spieltisch.benchmarks.review import GAMES, run

    wrong = [g for g in game or [] if g not in GAMES]
    if wrong:
        raise typer.BadParameter(f"unknown game {wrong[0]!r}: scout or schmaus", param_hint="--game")
    for path in (record, before):
        if path is not None and not path.is_file():
            raise fail(f"no such file: {path}")
    try:
        run(tuple(game or GAMES), budget, workers, record, before)
    except ValueError as exc:
        raise fail(_first_line(exc)) from None


@bench_app.command("work")
def bench_work(
    bots: Annotated[
        str, typer.Option(help="Comma-separated seat specs to compare, e.g. hard@baseline,hard.")
    ] = "hard@baseline,hard",
    game: Annotated[str, typer.Option(help="scout or schmaus")] = "scout",
    players: Annotated[int, typer.Option(min=2, max=5, help="Players per game.")] = 4,
    positions: Annotated[int, typer.Option(min=1, help="Decisions timed per bot (the same for each).")] = 30,
    seed: Annotated[int, typer.Option(help="Seed of the medium games the decisions come from.")] = 1,
) -> None:
    """CPU s per decision of bot versions at their work budgets, timed on the same decisions."""
    require("spieltisch bench work", "lab")
    from spieltisch.benchmarks.bots import run_work
    from spieltisch.bots import check_spec

    specs = [b.strip() for b in bots.split(",") if b.strip()]
    if not specs:
        raise typer.BadParameter("name at least one bot, e.g. hard@baseline,hard", param_hint="--bots")
    for spec in specs:
        try:
            check_spec(game, spec)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    run_work(game, specs, players, positions, seed)


@bench_app.command("rl")
def bench_rl(
    seconds: Annotated[float, typer.Option(min=0.01, help="CPU time per measurement.")] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 1,
    batches: Annotated[str, typer.Option(help="Batch sizes, comma-separated.")] = "64,256,1024,4096,16384",
    players: Annotated[str, typer.Option(help="Player counts, comma-separated.")] = "2,3,4,5",
    game: Annotated[list[str] | None, typer.Option(help="scout and/or schmaus (default: both).")] = None,
    backend: Annotated[
        list[str] | None,
        typer.Option(
            help="numpy and/or numba (extra rl-fast), side by side (default: both if numba is installed)."
        ),
    ] = None,
) -> None:
    """Batched engines (both games): env steps and seat decisions per CPU second per batch size."""
    require("spieltisch bench rl", "rl")
    from spieltisch.rl.fast import BACKENDS, numba_available

    backends = tuple(backend or (BACKENDS if numba_available() else ("numpy",)))
    wrong = [b for b in backends if b not in BACKENDS]
    if wrong:
        raise typer.BadParameter(f"unknown backend {wrong[0]!r}: numpy or numba")
    if "numba" in backends and not numba_available():
        raise fail(missing_message("spieltisch bench rl --backend numba", ["rl-fast"]))
    from spieltisch.benchmarks.rl import run

    def numbers(text: str, what: str) -> tuple[int, ...]:
        try:
            values = tuple(int(x) for x in text.split(","))
        except ValueError:
            message = f"{what} must be whole numbers separated by commas, not {text!r}"
            raise typer.BadParameter(message) from None
        if not values or min(values) < 1:
            raise typer.BadParameter(f"{what} must be at least 1")
        return values

    games = tuple(game or ("schmaus", "scout"))
    unknown = [g for g in games if g not in ("scout", "schmaus")]
    if unknown:
        raise typer.BadParameter(f"unknown game {unknown[0]!r}: scout or schmaus")
    counts = numbers(players, "player counts")
    if min(counts) < 2 or max(counts) > 5:
        raise typer.BadParameter("player counts must lie within 2..5 (S-2, W-1)")
    run(
        seconds=seconds,
        seed=seed,
        batches=numbers(batches, "batch sizes"),
        players=counts,
        games=games,
        backends=backends,
    )


db_app = typer.Typer(
    help="The web table's database: schema revision and migrations (docs/storage.md).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(db_app, name="db")

DatabaseOption = Annotated[
    str, typer.Option(help="SQLAlchemy URL: sqlite:///FILE (embedded) or postgresql+psycopg://...")
]
PrefixOption = Annotated[str, typer.Option(help="Table-name prefix of the store (default: none).")]


def _db_ready(command: str, database: str) -> None:
    """``command`` (``spieltisch db upgrade``) can open ``database``: its extras are installed."""
    require(command, "web")
    if database.startswith(("postgresql", "postgres:")):
        require(f"{command} --database {database.split(':', 1)[0]}:...", "postgres")


@db_app.command("upgrade")
def db_upgrade(
    database: DatabaseOption = "sqlite:///spieltisch.db",
    prefix: PrefixOption = "",
    sql: Annotated[
        bool, typer.Option("--sql", help="Print the SQL of the upgrade instead of running it.")
    ] = False,
) -> None:
    """Migrate the database to this release's schema (serve does it by itself on start)."""
    _db_ready("spieltisch db upgrade", database)
    from spieltisch.server import migrate

    if sql:
        try:
            text = migrate.upgrade_sql(database, prefix)
        except Exception as exc:
            raise fail(f"cannot read {database}: {_first_line(exc)}") from None
        typer.echo(text or f"-- {database}: schema up to date, nothing to do")
        return
    try:
        before = migrate.upgrade(database, prefix)
    except Exception as exc:
        raise fail(f"cannot upgrade {database}: {_first_line(exc)}") from None
    if before.current == before.head:
        typer.echo(f"{database}: schema at {before.head} (up to date, nothing to do)")
    else:
        start = before.current or ("the first release's tables" if before.first_release else "empty")
        typer.echo(f"{database}: schema upgraded from {start} to {before.head}")


@db_app.command("current")
def db_current(
    database: DatabaseOption = "sqlite:///spieltisch.db",
    prefix: PrefixOption = "",
) -> None:
    """Print the database's schema revision; exit 1 unless it is this release's newest."""
    _db_ready("spieltisch db current", database)
    from spieltisch.server import migrate

    try:
        rev = migrate.current(database, prefix)
    except Exception as exc:
        raise fail(f"cannot read {database}: {_first_line(exc)}") from None
    if rev.current is not None:
        state = "up to date" if rev.up_to_date else "needs spieltisch db upgrade"
        typer.echo(f"{database}: schema at {rev.current}; this release's newest: {rev.head} ({state})")
    elif rev.first_release:
        typer.echo(
            f"{database}: the first release's tables, no revision yet; newest: {rev.head} (needs upgrade)"
        )
    else:
        typer.echo(f"{database}: no Spieltisch tables; newest: {rev.head} (the server makes them on start)")
    raise typer.Exit(0 if rev.up_to_date else 1)


@lab_app.command("real")
def lab_real(
    database: DatabaseOption = "sqlite:///spieltisch.db",
    prefix: PrefixOption = "",
    bots: Annotated[
        str,
        typer.Option("--bots", help="Bots to compare with (a comma-separated line-up rotates)."),
    ] = "medium",
    games: lab_cli.GamesOpt = 200,
    seed: lab_cli.SeedOpt = 1,
    min_games: Annotated[
        int, typer.Option("--min-games", help="Leave out rules played in fewer of people's games.")
    ] = 1,
    workers: lab_cli.WorkersOpt = None,
    json_path: lab_cli.JsonOpt = None,
    html_path: lab_cli.HtmlOpt = None,
    lang: lab_cli.LangOpt = "en",
    quiet: lab_cli.QuietOpt = False,
) -> None:
    """How people really play: the web table's finished games beside bot games of the same rules.

    Per game, player count and rule options: win rate by seat, game length, winning margin,
    how people fare against bots and, in Waschbär-Schmaus, rulings fired, hand sizes by round
    and each card's share of pots won, with 95% intervals. Reads the database, never writes it;
    nothing that identifies a player (names, room codes, times) is read into the report."""
    _db_ready("spieltisch lab real", database)
    from rich.console import Console

    from spieltisch.lab.config import LabError
    from spieltisch.lab.real import study
    from spieltisch.lab.real_report import real_html
    from spieltisch.server import migrate
    from spieltisch.server.played import played_games
    from spieltisch.server.store import Store

    if lang not in ("en", "de"):
        raise fail(f"unknown report language {lang!r}: choose en or de")
    try:
        rev = migrate.current(database, prefix)
    except Exception as exc:
        raise fail(f"cannot read {database}: {_first_line(exc)}") from None
    if rev.current is None:
        raise fail(f"{database} holds no Spieltisch games (no tables)")
    if not rev.up_to_date:
        raise fail(
            f"{database}: schema at {rev.current}, not {rev.head}; run: spieltisch db upgrade --database URL"
        )
    store = Store(database, prefix)
    try:
        result = study(played_games(store), bots, games, seed, workers, not quiet, min_games)
    except LabError as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    console = Console()
    lab_cli.write_results(console, result, json_path, None, html_path, lambda: real_html(result, lang))


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _name_values(command: Any) -> None:
    """Show option values as ``--games GAMES`` (argparse style), not Typer's ``<int>``.

    Duck-typed: recent Typer versions bundle their own copy of Click."""
    for param in command.params:
        flag = getattr(param, "is_flag", False) or getattr(param, "count", False)
        if param.param_type_name == "option" and not flag and param.name and param.metavar is None:
            is_file = param.name.endswith(("_path", "_file"))
            param.metavar = "FILE" if is_file else param.name.upper()
    for sub in getattr(command, "commands", {}).values():
        _name_values(sub)


def command() -> Any:
    """The ``spieltisch`` command as Click runs it."""
    cmd = typer.main.get_command(app)
    _name_values(cmd)
    return cmd


def main() -> None:
    command()(prog_name="spieltisch")


if __name__ == "__main__":
    main()
