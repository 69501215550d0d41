"""``spieltisch bench server``: seats bots of any level, counts what failed, measures CPU."""

from __future__ import annotations

import socket
import statistics
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy
from conftest import ClusterEnv
from rich.console import Console

from spieltisch.benchmarks.server import plan_seating, run


def test_tables_seat_the_bots_then_people_and_the_other_clients_watch() -> None:
    plan = plan_seating("scout", 4, ("medium", "hard"))
    assert (plan.people, plan.bots, plan.spectators, plan.players) == (3, ("medium", "hard"), 1, 5)
    assert plan_seating("schmaus", 4, ("random",)).spectators == 0
    with pytest.raises(ValueError, match="bot levels"):
        plan_seating("scout", 4, ("grandmaster",))
    with pytest.raises(ValueError, match="at most 5 players"):
        plan_seating("scout", 4, ("easy",) * 5)
    with pytest.raises(ValueError, match="at least 2 players"):
        plan_seating("scout", 1, ())


def test_a_short_run_with_medium_and_hard_bots_measures_everything() -> None:
    console = Console(record=True, width=200)
    with ThreadPoolExecutor(1) as thread:  # the bench runs its own event loop; this thread may have one
        stats = thread.submit(
            run,
            clients=6,
            games=2,
            seconds=4,
            game="mixed",
            think=0.05,
            bots=("medium", "hard"),
            console=console,
        ).result()
    text = console.export_text()
    assert stats.ok, text
    assert stats.latencies and stats.moves_total >= len(stats.latencies)
    assert stats.server_cpu > 0 and stats.bots_cpu > 0  # the bots thought in their workers
    # The server timed its own part of the people's moves: less than the clients saw.
    assert stats.server_latencies and statistics.median(stats.server_latencies) <= statistics.median(
        stats.latencies
    )
    assert "in the server (an act's arrival" in text
    for figure in (
        "p50",
        "p90",
        "p99",
        "moves per server CPU second",
        "failed connections: 0",
        "dead game loops: 0",
    ):
        assert figure in text


def test_clients_in_two_processes_measure_their_own_lag_and_cpu() -> None:
    console = Console(record=True, width=200)
    with ThreadPoolExecutor(1) as thread:
        stats = thread.submit(
            run, clients=8, games=2, seconds=3, game="scout", think=0.05, console=console, client_procs=2
        ).result()
    text = console.export_text()
    assert stats.ok, text
    assert stats.latencies and len(stats.client_cpus) == 2 and stats.loop_lags
    assert stats.ready == 2 and "2 process(es)" in text and "event loops' lag" in text


def test_a_client_process_that_cannot_reach_the_server_fails_the_run() -> None:
    from spieltisch.benchmarks.server import _drive

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{s.getsockname()[1]}"
    plans = [plan_seating("scout", 4, ("random",))]
    console = Console(record=True, width=200)
    stats = _drive([base], plans, 2, 1.0, console, 0.05, [], 2, 0, warm_up=1.0)
    assert not stats.ok
    assert stats.failed_connections["HTTP: ConnectError"] > 0  # counted in the client processes


def test_a_short_run_against_two_workers_spreads_the_clients_and_cleans_up(cluster_env: ClusterEnv) -> None:
    import redis

    from spieltisch.benchmarks.server import ClusterSpec

    spec = ClusterSpec(2, cluster_env.database, cluster_env.redis, prefix=f"{cluster_env.prefix}bench_")
    console = Console(record=True, width=200)
    with ThreadPoolExecutor(1) as thread:
        stats = thread.submit(
            run, clients=8, games=2, seconds=4, game="scout", think=0.05, console=console, cluster=spec
        ).result()
    text = console.export_text()
    assert stats.ok, text
    assert stats.latencies and "cluster: 2 worker(s)" in text and "p99" in text
    assert stats.server_latencies and "in the servers (an act's arrival" in text  # both workers' times
    with redis.Redis.from_url(cluster_env.redis) as r:
        assert not list(r.scan_iter(match=f"{spec.prefix}*"))  # the bench removed its keys
    engine = sqlalchemy.create_engine(cluster_env.database)
    try:
        assert not sqlalchemy.inspect(engine).has_table(f"{spec.prefix}rooms")  # and its tables
    finally:
        engine.dispose()


def test_routed_by_room_the_rooms_move_to_their_clients_worker(cluster_env: ClusterEnv) -> None:
    """``--route room``: every client of a game on the worker its room's hash picks; the
    rooms made on the other worker are handed over there (counted in the report)."""
    from spieltisch.benchmarks.server import ClusterSpec

    spec = ClusterSpec(
        2, cluster_env.database, cluster_env.redis, prefix=f"{cluster_env.prefix}route_", route="room"
    )
    console = Console(record=True, width=200)
    with ThreadPoolExecutor(1) as thread:
        stats = thread.submit(
            run, clients=12, games=6, seconds=4, game="scout", think=0.3, console=console, cluster=spec
        ).result()
    text = console.export_text()
    assert stats.ok, text
    assert "on the worker its room's hash picks" in text and "rooms handed over" in text
    assert stats.handoffs is not None and stats.handoffs <= stats.elsewhere <= stats.rooms
    if stats.elsewhere:  # (every room on its clients' worker already: 1 run in 64)
        assert stats.handoffs >= 1, text
