"""The ``spieltisch`` command line (Typer).

Every sub-command lives next to the code it drives and imports its heavy
dependencies lazily, so ``spieltisch --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from spieltisch.lab.cli import app as lab_app

app = typer.Typer(
    name="spieltisch",
    help="Spieltisch: Scout and Waschbär-Schmaus — engines, bots, lab and web table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bench_app = typer.Typer(help="Benchmarks that print figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
app.add_typer(lab_app, name="lab")


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
        typer.echo("no scenarios found", err=True)
        raise typer.Exit(2)
    raise typer.Exit(0 if ok else 1)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="scout or schmaus.")],
    players: Annotated[int, typer.Option(help="Number of players (2-5).")] = 4,
    seed: Annotated[int | None, typer.Option(help="Replay a deal (default: random, printed).")] = None,
    seat: Annotated[
        list[str] | None,
        typer.Option(help="N=SPEC: human, random, easy, medium, hard or cmd:PROGRAM (repeatable)."),
    ] = None,
    you: Annotated[int, typer.Option(help="Your seat.")] = 0,
    option: Annotated[
        list[str] | None, typer.Option(help="Rule option key=value, the value read as JSON (repeatable).")
    ] = None,
    options_file: Annotated[Path | None, typer.Option(help="Rule options from a TOML or JSON file.")] = None,
    bot_timeout: Annotated[float, typer.Option(help="Seconds an external bot has per decision.")] = 10.0,
    lang: Annotated[str | None, typer.Option(help="UI language: en or de (default: from LANG).")] = None,
) -> None:
    """Play in the terminal against bots (you in seat 0 by default)."""
    import sys

    from rich.console import Console

    from spieltisch.terminal import PlayError, make_config
    from spieltisch.terminal import play as play_game

    try:
        config = make_config(
            game, players, seed, seat or [], you, option or [], options_file, bot_timeout, lang
        )
        code = play_game(config, Console(), sys.stdin)
    except PlayError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(code)


@bench_app.command("engine")
def bench_engine(
    seconds: Annotated[float, typer.Option(help="Time per measurement.")] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of the first game.")] = 1,
) -> None:
    """Random-playout decisions/s and games/s per game and player count (one core)."""
    from spieltisch.benchmarks.engine import run

    run(seconds=seconds, seed=seed)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database: Annotated[
        str, typer.Option(help="SQLAlchemy URL: sqlite:///FILE (embedded) or postgresql+psycopg://...")
    ] = "sqlite:///spieltisch.db",
    bot_delay: Annotated[float, typer.Option(help="Seconds a bot waits before it moves.")] = 0.6,
    reload: Annotated[bool, typer.Option(help="Restart when the code changes (development).")] = False,
) -> None:
    """Run the web table (docs/protocol.md) and print the address to open."""
    from spieltisch.server.serve import run_server

    run_server(host=host, port=port, database=database, bot_delay=bot_delay, reload=reload)


@bench_app.command("server")
def bench_server(
    clients: Annotated[int, typer.Option(help="Connected WebSocket clients (human seats).")] = 200,
    games: Annotated[int, typer.Option(help="Games played at the same time.")] = 50,
    seconds: Annotated[float, typer.Option(help="How long to measure.")] = 30.0,
    game: Annotated[str, typer.Option(help="scout, schmaus or mixed.")] = "mixed",
    think: Annotated[
        float, typer.Option(help="Mean seconds a client thinks before it moves (0: saturate the server).")
    ] = 1.0,
    bots: Annotated[
        str, typer.Option(help="Bots at every table, comma-separated levels (e.g. medium,hard; none).")
    ] = "random",
) -> None:
    """Moves/s, act-to-state latency (p50/p90/p99) and CPU of the web table under many games.
    Fails (exit 1) when a connection failed or a game loop died."""
    from spieltisch.benchmarks.server import run

    levels = () if bots.strip() in ("", "none") else tuple(b.strip() for b in bots.split(","))
    stats = run(clients=clients, games=games, seconds=seconds, game=game, think=think, bots=levels)
    if not stats.ok:
        raise typer.Exit(1)


@bench_app.command("bots")
def bench_bots(
    seconds: Annotated[float, typer.Option(help="Bot time per level and game.")] = 2.0,
    seed: Annotated[int, typer.Option(help="Seed of the games.")] = 1,
    games: Annotated[int, typer.Option(help="Games of the strength tournament.")] = 40,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", help="Processes for the tournament.")
    ] = None,
) -> None:
    """Decisions/s per bot level and game, and a short strength tournament (e.g. hard vs medium×3)."""
    from spieltisch.benchmarks.bots import run

    run(seconds=seconds, seed=seed, games=games, workers=workers)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
