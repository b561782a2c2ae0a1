"""Long calls answer Ctrl-C within a second (SIGINT sent to a subprocess) and report progress;
bad arguments are refused with ValueError naming the parameter; "auto" means the package's own
network even beside a damaged ./checkpoints."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import kalaha

# Time from SIGINT to the KeyboardInterrupt caught in the child. The floor is 1 s; the margin
# covers a loaded machine's scheduling.
LATENCY = 1.5


def _interrupt(body: str, ready: str, wait: float = 1.0) -> float:
    """Runs `body` in a child Python that prints `ready` once the long call is under way,
    sends SIGINT `wait` seconds later, and returns the seconds until the child caught the
    KeyboardInterrupt (CLOCK_MONOTONIC is shared by both processes)."""
    script = textwrap.dedent(
        """
        import sys, time
        import kalaha
        try:
        {body}
            print("FINISHED", flush=True)
        except KeyboardInterrupt:
            print("INTERRUPTED", time.monotonic(), flush=True)
        """
    ).format(body=textwrap.indent(textwrap.dedent(body), "    "))
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        for line in child.stdout:
            if ready in line:
                break
        else:
            raise AssertionError(f"the child ended before {ready!r}: {child.stderr.read()}")
        time.sleep(wait)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        rest, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    lines = [line for line in rest.splitlines() if line.startswith("INTERRUPTED")]
    assert lines, f"no KeyboardInterrupt: {rest!r} {err[-2000:]!r}"
    return float(lines[0].split()[1]) - sent


def test_ctrl_c_stops_solve_within_a_second():
    body = """
    print("READY", flush=True)
    kalaha.solve(kalaha.Position.start(), db_seeds=0, memory_mb=64)
    """
    latency = _interrupt(body, "READY", wait=1.5)
    print(f"latency {latency:.3f} s")
    assert 0 <= latency < LATENCY, latency


def test_ctrl_c_stops_a_judged_evaluate_within_a_second():
    body = """
    said = []
    def progress(done, total, stage):
        if stage == "judged positions" and done < total and not said:
            said.append(1)
            print("JUDGING", flush=True)
    kalaha.evaluate("greedy", ["random"], games=40, seed=1, judge=True, progress=progress)
    """
    latency = _interrupt(body, "JUDGING", wait=1.0)
    print(f"latency {latency:.3f} s")
    assert 0 <= latency < LATENCY, latency


def test_ctrl_c_stops_the_games_of_an_evaluate_with_a_python_agent():
    body = """
    import time as t
    def agent(obs, mask):
        t.sleep(0.01)
        return np.flatnonzero(mask[0])[:1]
    import numpy as np
    print("READY", flush=True)
    kalaha.evaluate(agent, ["minimax:2"], games=400, judge=False)
    """
    latency = _interrupt(body, "READY", wait=1.0)
    print(f"latency {latency:.3f} s")
    assert 0 <= latency < LATENCY, latency


def test_progress_reaches_the_end_of_each_stage():
    calls = []
    kalaha.evaluate("greedy", ["random"], games=2, seed=0, judge=True, progress=lambda *a: calls.append(a))
    stages = {stage: (done, total) for done, total, stage in calls}
    assert stages["games"] == (2, 2)
    done, total = stages["judged positions"]
    assert done == total > 0
    calls.clear()
    value, moves = kalaha.solve("2,2,2,0/2,2,2,0 s", {"pits": 3, "seeds": 2}, progress=lambda *a: calls.append(a))
    assert calls[-1] == (len(moves), len(moves), "moves proven")


def test_progress_true_draws_a_bar_on_stderr(capfd):
    kalaha.solve("2,2,2,0/2,2,2,0 s", {"pits": 3, "seeds": 2}, progress=True)
    err = capfd.readouterr().err
    assert "solve moves proven: [" in err and "3/3" in err
    with pytest.raises(ValueError, match="progress must be"):
        kalaha.solve("2,2,2,0/2,2,2,0 s", {"pits": 3, "seeds": 2}, progress="yes")


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: kalaha.VecEnv(-1), "games"),
        (lambda: kalaha.VecEnv(0), "games"),
        (lambda: kalaha.VecEnv(2.5), "games"),
        (lambda: kalaha.VecEnv("4"), "games"),
        (lambda: kalaha.VecEnv(4, seed=-1), "seed"),
        (lambda: kalaha.VecEnv(4, seed=2**64), "seed"),
        (lambda: kalaha.VecEnv(4, threads=0), "threads"),
        (lambda: kalaha.VecEnv(4).reset(seed=-1), "seed"),
        (lambda: kalaha.VecEnv(4).reset(seed=1.5), "seed"),
        (lambda: kalaha.VecEnv(4).position(4), "game"),
        (lambda: kalaha.VecEnv(4).step_random_n(-3), "steps"),
        (lambda: kalaha.Rules(pits=-1), "pits"),
        (lambda: kalaha.Rules(pits=16), "pits"),
        (lambda: kalaha.Rules(seeds=2.0), "seeds"),
        (lambda: kalaha.Rules(pie="yes"), "pie"),
        (lambda: kalaha.Rules(**{"pits": True}), "pits"),
        (lambda: kalaha.Bot("random", seed=-1), "seed"),
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", memory_mb=-5), "memory_mb"),
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", db_seeds=1000), "db_seeds"),
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", time_limit=float("nan")), "time_limit"),
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", time_limit=-1), "time_limit"),
        # Past Duration's range: a panic in Duration::from_secs_f64 before (issue 54).
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", time_limit=1e30), "time_limit"),
        (lambda: kalaha.solve("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", time_limit=float("inf")), "time_limit"),
        (lambda: kalaha.judge(lambda o, m: m.argmax(1), time_limit=1e30), "time_limit"),
        (lambda: kalaha.judge(lambda o, m: m.argmax(1), time_limit=float("inf")), "time_limit"),
        (lambda: kalaha.judge(lambda o, m: m.argmax(1), time_limit=-1.0), "time_limit"),
        (lambda: kalaha.evaluate("greedy", ["random"], games=3), "games"),
        (lambda: kalaha.evaluate("greedy", ["random"], games=-2), "games"),
        (lambda: kalaha.evaluate("greedy", ["random"], seed=-1), "seed"),
        (lambda: kalaha.evaluate("greedy", "random"), "opponents"),
        (lambda: kalaha.search([kalaha.Position.start()], lambda o: None, simulations=0), "simulations"),
        (lambda: kalaha.search([kalaha.Position.start()], lambda o: None, seed=-2), "seed"),
        (lambda: kalaha.judge(lambda o, m: m.argmax(1), batch_size=0), "batch_size"),
        (lambda: kalaha.JudgeSet.load(None, -1), "positions"),
        (lambda: kalaha.HeldoutSet.load_all(None, 5), "positions"),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        call()


def test_numpy_integers_are_taken_where_ints_are():
    env = kalaha.VecEnv(np.int64(4), seed=np.uint64(3), threads=np.int32(1))
    env.reset(seed=np.int64(5))
    assert env.games == 4 and env.seed == 5
    assert kalaha.Rules(pits=np.int8(4), seeds=np.int16(3)).pits == 4


def test_a_position_with_the_wrong_number_of_seeds_is_refused():
    with pytest.raises(ValueError, match="holds 52 seeds; a position of Kalah\\(6,4\\)"):
        kalaha.Position("4,4,4,4,4,4,4/4,4,4,4,4,4,0 s")
    assert kalaha.Position("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s") == kalaha.Position.start()


def test_a_policy_bot_with_a_missing_network_is_refused_when_made(tmp_path):
    with pytest.raises(ValueError, match="bot 'policy:.*nonexistent"):
        kalaha.Bot(f"policy:{tmp_path}/nonexistent")


def test_auto_means_the_package_network_even_beside_a_damaged_checkpoints_folder(tmp_path):
    shipped = kalaha.Network.load("auto")
    damaged = tmp_path / "checkpoints" / "kalah64"
    damaged.mkdir(parents=True)
    for name in ("meta.json", "model.mpk", "model.bin"):
        (damaged / name).write_bytes(b"not a network")
    code = (
        "import kalaha\n"
        "n = kalaha.Network.load('auto'); print(n.path)\n"
        "b = kalaha.Bot('policy:auto:8', seed=1); print(b.act(kalaha.Position.start()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "KALAHA_CHECKPOINTS": ""},
    )
    assert out.returncode == 0, out.stderr
    path, move = out.stdout.split()
    assert path == shipped.path and "checkpoints/kalah64" not in path.replace(str(tmp_path), "")
    assert int(move) in range(1, 7)


def test_ctrl_c_stops_a_learners_iteration_and_keeps_its_checkpoint(tmp_path):
    """`kalaha.distributed`'s learner: Ctrl-C in `finish_iteration` (here 100,000 gradient steps)
    ends the iteration early, writes its checkpoint and raises KeyboardInterrupt."""
    smoke = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "smoke.toml")
    body = f"""
    from kalaha._kalaha import Learner, SelfPlayWorker, train_config
    cfg = train_config({smoke!r}, ["run.checkpoint_dir={tmp_path}", "run.experiment_dir={tmp_path}",
        "optim.steps_per_iteration=100000", "eval.every=0", "run.iterations=2"])
    learner = Learner(cfg)
    worker = SelfPlayWorker(cfg, 0)
    worker.set_weights(learner.weights(), learner.version)
    info, batch = learner.peek(worker.generate())
    learner.absorb(batch)
    print("READY", flush=True)
    learner.finish_iteration(1.0)
    """
    latency = _interrupt(body, "READY", wait=1.5)
    print(f"latency {latency:.3f} s")
    assert 0 <= latency < LATENCY, latency
    assert list(tmp_path.glob("smoke*/meta.json")) or list(tmp_path.glob("**/meta.json"))
