"""Self-play training on a Ray cluster: ``kalaha train``'s own pipeline with its self-play spread
over many processes and machines.

    python -m kalaha.distributed --config configs/kalah64.toml --stage base --address auto --workers 8
    python -m kalaha.distributed --config configs/kalah64.toml --stage base --address auto --workers 8 --resume

The shape is muzero-general's: self-play **workers** are Ray actors, each running the project's
Rust self-play (the vectorised games, the Gumbel search, the endgame database) with the weights
it was last sent, and returning batches of samples; the **learner** runs in this (the driver's)
process: ``kalaha train``'s training step, replay buffer, evaluations, TensorBoard log and
checkpoints, in the format ``kalaha train`` writes, so ``kalaha judge``, ``eval``, ``play`` and
``policy:PATH`` read them as they are, and ``kalaha train --resume`` can continue them.

An iteration ends when ``selfplay.positions_per_iteration`` new positions have arrived; the
learner then takes ``optim.steps_per_iteration`` gradient steps (while the workers go on playing
with the weights they hold) and publishes the new weights through the object store. Weights carry
a version (the learner's iteration count); a batch played with weights more than ``--max-lag``
versions old is dropped, and the lag is logged.

Faults: a worker whose process dies is restarted by Ray (``--max-restarts`` times, then the run
goes on without it and says so); only its batch in flight is lost. The driver (and with it the
learner) killed at any moment resumes from its last checkpoint with ``--resume``; Ctrl-C writes a
checkpoint first.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field

PROG = "python -m kalaha.distributed"


class Error(Exception):
    """A problem to report in one line, exiting non-zero."""


def _say(msg: str) -> None:
    print(f"kalaha.distributed: {msg}", file=sys.stderr, flush=True)


def _one_line(e: BaseException) -> str:
    """The last meaningful line of an exception's text (Ray wraps causes in tracebacks)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[-1] if lines else type(e).__name__


class SelfPlayActor:
    """One self-play worker (wrapped with ``ray.remote`` by :func:`make_workers`)."""

    def __init__(self, config: str, wid: int):
        from ._kalaha import SelfPlayWorker

        self.wid = wid
        self.worker = SelfPlayWorker(config, wid)

    def hello(self) -> dict:
        """Where the worker runs: its id, process, host and Ray node."""
        import ray

        node = ray.get_runtime_context().get_node_id()
        return {"worker": self.wid, "pid": os.getpid(), "host": socket.gethostname(), "node": node}

    def play(self, weights: list, version: int, positions: int) -> bytes:
        """A batch of ``positions`` new positions played with weights ``version``; ``weights``
        holds the object reference of those weights, fetched only when the version is new."""
        import ray

        if self.worker.version != version:
            self.worker.set_weights(ray.get(weights[0]), version)
        return self.worker.generate(positions)


@dataclass
class WorkerState:
    """The driver's view of one worker."""

    actor: object
    max_restarts: int = 3
    failures: int = 0
    down_since: float = 0.0
    alive: bool = True
    positions: int = 0
    seconds: float = 0.0
    lags: list = field(default_factory=list)


def connect(address: str | None, cpus: int | None) -> None:
    """Joins the Ray cluster at ``address`` (``auto``: the one this machine belongs to; None: a
    new local instance), failing in one line when it cannot be reached."""
    import ray

    if address and address not in ("auto", "local") and not address.startswith("ray://"):
        host, _, port = address.rpartition(":")
        try:
            socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
        except (OSError, ValueError) as e:
            raise Error(f"cannot reach the Ray cluster at {address}: {e}") from None
    try:
        if address in (None, "local"):
            ray.init(num_cpus=cpus, logging_level="ERROR", log_to_driver=False)
        else:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise Error(f"cannot join the Ray cluster at {address}: {_one_line(e)}") from None


def make_workers(config: str, n: int, *, cpus: float, max_restarts: int, timeout: float):
    """Starts ``n`` worker actors and waits until each has loaded its config and endgame
    database; a worker that cannot start is a one-line error."""
    import ray

    remote = ray.remote(
        num_cpus=cpus,
        max_restarts=max_restarts,
        max_task_retries=0,
        runtime_env={"env_vars": {"RAYON_NUM_THREADS": str(max(1, int(cpus)))}},
    )(SelfPlayActor)
    actors = [remote.remote(config, i) for i in range(n)]
    states = [WorkerState(a, max_restarts) for a in actors]
    hellos = [a.hello.remote() for a in actors]
    _, waiting = ray.wait(hellos, num_returns=n, timeout=timeout)
    if waiting:
        raise Error(
            f"{len(waiting)} of {n} workers did not start within {timeout:.0f} s "
            "(not enough free CPUs in the cluster? see `ray status`)"
        )
    for i, h in enumerate(hellos):
        try:
            info = ray.get(h)
        except ray.exceptions.RayError as e:
            raise Error(f"worker {i} could not start: {_one_line(e)}") from None
        _say(f"worker {i} started (pid {info['pid']} on {info['host']}, node {info['node'][:12]})")
    return states


def train(learner, workers: list[WorkerState], *, max_lag: int, positions: int,
          on_progress, down_limit: float = 600.0) -> dict:
    """Runs iterations until the learner's count is reached: keeps one batch in flight per live
    worker, absorbs batches within ``max_lag`` versions, ends an iteration once enough positions
    arrived. A worker whose process died is probed until Ray has restarted it, then sent work
    again; one that stays down ``down_limit`` seconds (Ray gave up on it) is left out. Returns
    totals for the summary."""
    import ray

    version = learner.version
    weights = ray.put(learner.weights())
    pending: dict = {}  # object ref -> (worker, "play" or "probe")
    retry: list = []  # (when, worker): probes to send again
    totals = {"batches": 0, "dropped_batches": 0, "dropped_positions": 0, "worker_failures": 0}

    def submit(wid: int) -> None:
        pending[workers[wid].actor.play.remote([weights], version, positions)] = (wid, "play")

    def probe(wid: int) -> None:
        pending[workers[wid].actor.hello.remote()] = (wid, "probe")

    for wid in range(len(workers)):
        submit(wid)
    started = time.monotonic()
    while learner.iteration < learner.iterations:
        now = time.monotonic()
        for item in [r for r in retry if r[0] <= now]:
            retry.remove(item)
            probe(item[1])
        if not pending and not retry:
            raise Error("every worker failed; the last checkpoint is in " + learner.checkpoint_dir)
        timeout = max(0.0, min(t for t, _ in retry) - now) if retry else None
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=timeout)
        if not ready:
            continue
        ref = ready[0]
        wid, kind = pending.pop(ref)
        w = workers[wid]
        try:
            data = ray.get(ref)
        except ray.exceptions.RayTaskError as e:
            # An exception inside the worker's code, not a dead process: retrying would repeat it.
            raise Error(f"worker {wid} failed: {_one_line(e)}") from None
        except ray.exceptions.RayActorError as e:
            if kind == "play":
                w.failures += 1
                w.down_since = time.monotonic()
                totals["worker_failures"] += 1
                _say(f"worker {wid} died (failure {w.failures}; {type(e).__name__}); its batch in "
                     "flight is lost, Ray restarts it")
            if w.failures > w.max_restarts or time.monotonic() - w.down_since > down_limit:
                w.alive = False
                _say(f"worker {wid} failed {w.failures} times and stays down; going on without it "
                     f"({_one_line(e)})")
            else:
                retry.append((time.monotonic() + 1.0, wid))
            continue
        if kind == "probe":
            _say(f"worker {wid} is back (pid {data['pid']} on {data['host']}) after "
                 f"{time.monotonic() - w.down_since:.1f} s")
            submit(wid)
            continue
        info, batch = learner.peek(data)
        lag = learner.version - info["version"]
        totals["batches"] += 1
        if lag > max_lag:
            totals["dropped_batches"] += 1
            totals["dropped_positions"] += info["positions"]
        else:
            learner.absorb(batch)
            w.positions += info["positions"]
            w.seconds += info["seconds"]
            w.lags.append(lag)
        submit(wid)
        if learner.pending_positions >= learner.positions_per_iteration:
            seconds = time.monotonic() - started
            p = learner.finish_iteration(seconds)
            log_workers(learner, workers, totals)
            version = learner.version
            weights = ray.put(learner.weights())
            on_progress(p, workers)
            started = time.monotonic()
    return totals


def log_workers(learner, workers: list[WorkerState], totals: dict) -> None:
    """Per-worker throughput and weight lag of the iteration just ended, to TensorBoard."""
    lags = [x for w in workers for x in w.lags]
    live = sum(w.alive for w in workers)
    learner.log_scalar("distributed/workers", live)
    if lags:
        learner.log_scalar("distributed/weight_lag_mean", sum(lags) / len(lags))
        learner.log_scalar("distributed/weight_lag_max", max(lags))
    learner.log_scalar("distributed/dropped_positions", totals["dropped_positions"])
    learner.log_scalar("distributed/worker_failures", totals["worker_failures"])
    for i, w in enumerate(workers):
        if w.seconds > 0:
            learner.log_scalar(f"distributed/worker_{i}/positions_per_sec", w.positions / w.seconds)
        w.positions, w.seconds, w.lags[:] = 0, 0.0, []


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the run's TOML config (see configs/)")
    p.add_argument("--stage", default=None, metavar="NAME",
                   help="the stage of a recipe of several (configs/kalah64.toml: base, widen or ema)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. search.simulations=32 (repeatable)")
    p.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    p.add_argument("--address", default=None,
                   help="the Ray cluster: auto (the one this machine joined), HOST:PORT, "
                        "ray://HOST:PORT; default: a new Ray instance on this machine")
    p.add_argument("--workers", type=int, default=None,
                   help="self-play workers (default: the cluster's CPUs / --worker-cpus)")
    p.add_argument("--worker-cpus", type=float, default=1.0,
                   help="CPUs each worker reserves and uses (its rayon threads)")
    p.add_argument("--max-lag", type=int, default=1,
                   help="batches played with weights more than this many versions old are dropped")
    p.add_argument("--positions-per-task", type=int, default=None,
                   help="positions a worker plays per batch (default: an iteration's share)")
    p.add_argument("--max-restarts", type=int, default=3,
                   help="restarts of a dead worker before the run goes on without it")
    p.add_argument("--start-timeout", type=float, default=900.0,
                   help="seconds to wait for the workers to start (they may build the database)")
    p.add_argument("--cpus", type=int, default=None,
                   help="CPUs of the local Ray instance (without --address)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    out = sys.stdout
    # Ray prints its own notices (a worker died, ...) on stdout: keep them off the JSON.
    with contextlib.redirect_stdout(sys.stderr):
        code, summary = _main(args)
    if summary is not None:
        if args.json:
            print(json.dumps(summary), file=out)
        else:
            print(
                f"{summary['iterations']} iterations"
                f"{' (stopped by Ctrl-C)' if summary['stopped'] else ''}, "
                f"{summary['positions']} positions, {summary['games']} games, "
                f"{summary['steps']} gradient steps; checkpoint {summary['checkpoint']}",
                file=out,
            )
    return code


def _main(args):
    """Runs the command; its exit code and the summary to print (None after an error)."""
    try:
        import ray
    except ImportError:
        _say("needs Ray: pip install 'ray[default]'")
        return 2, None
    from ._kalaha import Learner, train_config

    try:
        if args.workers is not None and args.workers < 1:
            raise Error("--workers must be at least 1")
        if args.max_lag < 0:
            raise Error("--max-lag must be 0 or more")
        try:
            config = train_config(args.config, args.sets, args.stage)
        except ValueError as e:
            raise Error(str(e)) from None
        connect(args.address, args.cpus)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        n = args.workers or max(1, int(cpus // args.worker_cpus))
        try:
            learner = Learner(config, args.resume)
        except ValueError as e:
            raise Error(str(e)) from None
        per_task = args.positions_per_task or max(1, -(-learner.positions_per_iteration // n))
        _say(
            f"training {json.loads(config)['run']['name']} ({learner.rules}) with {n} workers on "
            f"{len(ray.nodes())} node(s), checkpoints in {learner.checkpoint_dir}, logs in {learner.log_dir}"
        )
        workers = make_workers(config, n, cpus=args.worker_cpus, max_restarts=args.max_restarts,
                               timeout=args.start_timeout)
        start, t0 = learner.iteration, time.monotonic()

        def progress(p, ws):
            live = sum(w.alive for w in ws)
            print(f"iteration {p['iteration']}/{p['iterations']}: {p['message']}  workers {live}",
                  file=sys.stderr, flush=True)

        stopped = False
        try:
            totals = train(learner, workers, max_lag=args.max_lag, positions=per_task,
                           on_progress=progress, down_limit=args.start_timeout)
        except KeyboardInterrupt:
            stopped = True
            totals = {}
        learner.finish()
        meta = json.loads(learner.meta_json())
        summary = {
            "iterations": meta["iteration"],
            "positions": meta["positions"],
            "games": meta["games"],
            "steps": meta["step"],
            "seconds": round(time.monotonic() - t0, 1),
            "iterations_this_session": meta["iteration"] - start,
            "workers": n,
            "stopped": stopped,
            "checkpoint": learner.checkpoint_dir,
            **totals,
        }
        return (130 if stopped else 0), summary
    except Error as e:
        _say(f"error: {e}")
        return 1, None
    finally:
        if ray.is_initialized():
            ray.shutdown()


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
