"""Distributed training on a local multi-node Ray cluster: two nodes, two self-play workers, one
killed with SIGKILL mid-run; the run finishes and its checkpoint is judged. The driver killed with
SIGKILL mid-run resumes from its last checkpoint and finishes the run."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import kalaha

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMOKE = str(ROOT / "configs" / "smoke.toml")


@pytest.fixture(scope="module")
def cluster():
    """A head node and one more node, one CPU each: two 'machines' on loopback."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    c.shutdown()


def driver(*args, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", "kalaha.distributed", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "RAYON_NUM_THREADS": "1", **(env or {})},
    )


def overrides(tmp):
    return [
        "--set", f"run.checkpoint_dir={tmp / 'ck'}",
        "--set", f"run.experiment_dir={tmp / 'ex'}",
        "--set", "run.name=dist",
        "--set", "run.iterations=10",
        "--set", "run.checkpoint_every=2",
        "--set", "selfplay.positions_per_iteration=8192",
        "--set", "search.simulations=16",
        "--set", "optim.steps_per_iteration=8",
    ]


def run_killing_worker_1(*args, at="iteration 1/"):
    """Runs the driver, kills worker 1 with SIGKILL once a stderr line starts with ``at``; the exit
    code, stdout, stderr, the workers' nodes and whether the kill happened."""
    p = driver(*args)
    lines, pids, nodes, killed = [], {}, {}, []

    def read():
        for line in p.stderr:
            lines.append(line)
            if "started (pid" in line:
                wid = int(line.split("worker ")[1].split()[0])
                pids[wid] = int(line.split("pid ")[1].split()[0])
                nodes[wid] = line.split("node ")[1].split(")")[0]
            if line.startswith(at) and not killed and 1 in pids:
                os.kill(pids[1], signal.SIGKILL)
                killed.append(pids[1])

    t = threading.Thread(target=read)
    t.start()
    out = p.stdout.read()
    p.wait(timeout=600)
    t.join()
    return p.returncode, out, "".join(lines), nodes, bool(killed)


def test_two_workers_on_two_nodes_survive_a_killed_worker(cluster, tmp_path):
    code, out, text, nodes, killed = run_killing_worker_1(
        "--config", SMOKE, "--address", cluster.address, "--workers", "2", "--json",
        *overrides(tmp_path))
    assert code == 0, text
    assert killed, f"the run ended before a worker could be killed:\n{text}"
    assert "worker 1 died" in text and "worker 1 is back" in text, text
    summary = json.loads(out)
    assert summary["iterations"] == 10 and summary["workers"] == 2
    assert summary["worker_failures"] >= 1
    assert summary["positions"] >= 10 * 8192
    assert len(set(nodes.values())) == 2, f"one worker on each node: {nodes}"

    # The checkpoint is kalaha train's: it loads, plays and is judged.
    ck = tmp_path / "ck" / "dist"
    meta = json.loads((ck / "meta.json").read_text())
    assert meta["iteration"] == 10 and meta["step"] > 0
    net = kalaha.Network.load(str(ck))
    report = kalaha.judge(net)
    assert report["positions"] > 1000 and 0 < report["optimal_rate"] <= 1
    binary = ROOT / "target" / "release" / "kalaha"
    if binary.exists():
        j = subprocess.run([str(binary), "judge", "--network", str(ck), "--json"],
                           capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert j.returncode == 0, j.stderr
        assert json.loads(j.stdout)["optimal_rate"] == pytest.approx(report["optimal_rate"])

    # A finished run goes on with --resume, to a longer run.
    p = driver("--config", SMOKE, "--address", cluster.address, "--workers", "2", "--json",
               "--resume", *overrides(tmp_path), "--set", "run.iterations=12")
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    assert json.loads(out)["iterations"] == 12
    assert "iteration 11/12" in err


def test_a_driver_killed_mid_run_resumes_from_its_last_checkpoint(cluster, tmp_path):
    """SIGKILL to the driver (no Ctrl-C, no checkpoint of its own) once iteration 5 of 10 is done
    (checkpoints every 2 iterations); ``--resume`` goes on from the last checkpoint the killed
    run wrote, keeps its iterations and positions, and finishes the run."""
    p = driver("--config", SMOKE, "--address", cluster.address, "--workers", "2", "--json",
               *overrides(tmp_path))
    lines = []
    for line in p.stderr:
        lines.append(line)
        if line.startswith("iteration 5/10"):
            p.send_signal(signal.SIGKILL)
            break
    p.wait(timeout=60)
    text = "".join(lines)
    assert p.returncode == -signal.SIGKILL, f"the run ended before the driver could be killed:\n{text}"
    ck = tmp_path / "ck" / "dist"
    before = json.loads((ck / "meta.json").read_text())
    # The checkpoint of iteration 4 (the one at 6 may or may not have been written by then).
    assert before["iteration"] in (4, 6), before["iteration"]
    assert before["positions"] >= before["iteration"] * 8192

    p = driver("--config", SMOKE, "--address", cluster.address, "--workers", "2", "--json",
               "--resume", *overrides(tmp_path))
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    summary = json.loads(out)
    done = before["iteration"]
    assert summary["iterations"] == 10
    assert summary["iterations_this_session"] == 10 - done, summary
    progress = [l for l in err.splitlines() if l.startswith("iteration ")]
    assert progress[0].startswith(f"iteration {done + 1}/10"), progress
    after = json.loads((ck / "meta.json").read_text())
    assert after["iteration"] == 10
    # The killed run's work is kept: its positions and steps, and the evaluations it made.
    assert after["positions"] >= before["positions"] + (10 - done) * 8192
    assert after["step"] > before["step"]
    assert after["evaluations"][: len(before["evaluations"])] == before["evaluations"]
    kalaha.Network.load(str(ck))


def test_a_worker_that_stays_down_is_reported_and_the_run_goes_on(cluster, tmp_path):
    code, out, text, _, killed = run_killing_worker_1(
        "--config", SMOKE, "--address", cluster.address, "--workers", "2", "--json",
        "--max-restarts", "0", *overrides(tmp_path))
    assert code == 0 and killed, text
    assert "worker 1 failed 1 times and stays down; going on without it" in text, text
    assert "workers 1" in text.splitlines()[-1], text
    assert json.loads(out)["iterations"] == 10


def test_bad_input_is_one_line_and_quick(cluster, tmp_path):
    t = time.monotonic()
    p = driver("--config", SMOKE, "--address", "127.0.0.1:1", *overrides(tmp_path))
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "cannot reach the Ray cluster at 127.0.0.1:1" in err
    assert len(err.strip().splitlines()) == 1, err
    p = driver("--config", SMOKE, "--address", cluster.address, *overrides(tmp_path),
               "--set", "network.hidden=0")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1 and "network.hidden" in err, err
    assert len(err.strip().splitlines()) == 1, err
    p = driver("--config", str(tmp_path / "missing.toml"), "--address", cluster.address)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1 and "missing.toml" in err, err
    # A checkpoint to resume that is not there.
    p = driver("--config", SMOKE, "--address", cluster.address, "--resume", *overrides(tmp_path),
               "--set", "run.name=nothing-here")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1 and "no checkpoint" in err, err
    assert time.monotonic() - t < 240
