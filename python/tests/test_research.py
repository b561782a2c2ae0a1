"""The research API: the trained networks, judging any agent, the batched search, PyTorch."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kalaha

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def net():
    return kalaha.Network.load("auto")


@pytest.fixture(scope="module")
def judge_set():
    return kalaha.JudgeSet.load()


def test_shipped_network_loads_for_every_preset():
    for preset in ["international", "swedish", "danish", "norwegian", "children"]:
        n = kalaha.Network.load("auto", preset)
        assert n.rules == kalaha.Rules(preset)
        # The embedded networks keep their release ids, checked against their weights.
        card = n.card["release"]
        assert n.id == card["id"], (n.id, card["id"])
        assert n.id.endswith(card["weights_sha256"][:8]) and n.id in repr(n)
    pie = kalaha.Network.load("auto", kalaha.Rules(pie=True))
    assert pie.rules.pie
    with pytest.raises(ValueError, match="no network was trained for Kalah\\(3,2\\)"):
        kalaha.Network.load("auto", kalaha.Rules(pits=3, seeds=2))
    with pytest.raises(ValueError, match="nowhere"):
        kalaha.Network.load("/nowhere")


def test_network_outputs_and_errors(net, judge_set):
    assert (net.obs_dim, net.action_count, net.input, net.block) == (16, 7, "onehot", "plain")
    obs, mask = judge_set.obs(), judge_set.mask()
    out = net.forward(obs[:10])
    assert out["logits"].shape == (10, 7) and out["value"].shape == (10,)
    assert np.all(np.abs(out["value"]) <= 1) and np.all(np.abs(out["margin"]) <= 1)
    assert out["lost"].shape == (10, 7)
    # Observations or positions: the same floats.
    by_pos = net.forward(judge_set.positions()[:10])
    assert np.array_equal(by_pos["logits"], out["logits"])
    # As an agent: illegal actions at -inf.
    logits = net(obs[:10], mask[:10])
    assert np.all(np.isneginf(logits[~mask[:10]])) and np.all(np.isfinite(logits[mask[:10]]))
    bad = obs[:2].copy()
    bad[0, 3] = 0.1
    with pytest.raises(ValueError, match="row 0: observation entry 3 is 0.1"):
        net.forward(bad)
    with pytest.raises(ValueError, match="has 16 floats, not 15"):
        net.forward(obs[:2, :15])
    with pytest.raises(ValueError, match="played under|position of"):
        net.forward([kalaha.Position.start("swedish")])


def test_policy_bots_play_from_python():
    pos = kalaha.Position.start()
    move = kalaha.Bot("policy:auto:64", seed=1).act(pos)
    assert move in pos.legal_moves()
    assert kalaha.Bot("policy:auto", seed=1).act(pos) in pos.legal_moves()
    # The endgame database answers exactly: inside it every move is optimal.
    inside = [p for p in kalaha.JudgeSet.load().positions() if sum(p.pits("s")) + sum(p.pits("n")) <= 18]
    bot = kalaha.Bot("policy:auto", seed=0)
    for p in inside[:30]:
        value, moves = kalaha.solve(p)
        assert moves[bot.act(p)] == value, str(p)
    trained = kalaha.Network.load("auto").path
    with pytest.raises(ValueError, match="was trained for"):
        kalaha.Bot(f"policy:{trained}").act(kalaha.Position.start("swedish"))


def test_judge_a_network_gives_the_commands_figures(net, judge_set):
    """`kalaha.judge(Network)` plays the moves `kalaha judge --network` plays, and scores them
    with the same code: the library's own picks give the same report."""
    report = kalaha.judge(net)
    rust_picks = judge_set.network_picks(net)
    score = json.loads(judge_set.score(rust_picks))
    assert {k: report[k] for k in score} == score
    assert report["positions"] == 1200 and report["unsolved"] == 0
    assert 0.85 < report["optimal_rate"] < 1.0
    assert report["inside_db"]["positions"] + report["outside_db"]["positions"] == 1200
    # Misses are the positions it gets wrong, each losing seeds.
    with_misses = kalaha.judge(net, misses=True)
    wrong = round((1 - report["optimal_rate"]) * 1200)
    assert len(with_misses["misses"]) == wrong
    assert all(m["chosen"][1] < m["value"] for m in with_misses["misses"])


def test_judge_returns_the_commands_report(net):
    """`kalaha.judge` returns the report type `kalaha judge` prints: the same text, the same JSON
    (`--json`), read as attributes or as that dict."""
    report = kalaha.judge(net)
    assert isinstance(report, kalaha.JudgeReport)
    assert (report.network, report.network_id) == (net.path, net.id)
    assert report.optimal_rate == report["optimal_rate"] == report.to_dict()["optimal_rate"]
    assert json.loads(report.to_json()) == report.to_dict() == report
    assert {"optimal_rate", "std_err", "inside_db", "phases", "network_id", "seed"} <= set(report.keys())
    assert "misses" not in report and "misses" in kalaha.judge(net, misses=True)
    with pytest.raises(KeyError, match="nonexistent"):
        report["nonexistent"]
    assert repr(report).startswith(f"JudgeReport({net.path}: ")
    assert kalaha.research.summary(report) == str(report)
    binary = ROOT / "target" / "release" / "kalaha"
    cli = subprocess.run([str(binary), "judge", "--network", net.path, "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == report.to_dict()
    text = subprocess.run([str(binary), "judge", "--network", net.path], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert text.stdout == str(report)
    # An agent that gives actions: named, no release id, no KL on the held-out sets.
    first_legal = kalaha.judge(lambda obs, m: np.argmax(m, axis=1), heldout=True, heldout_positions=2000)
    assert first_legal.network_id == "agent (no release id)"
    assert "KL" not in str(first_legal).split("held-out", 1)[1]
    assert str(first_legal).startswith("agent (no release id): ")


def test_judge_any_agent_by_actions_or_logits(judge_set):
    mask = judge_set.mask()
    first_legal = lambda obs, m: np.argmax(m, axis=1)  # noqa: E731
    r = kalaha.judge(first_legal)
    assert 0.0 < r["optimal_rate"] < 0.8
    # Logits that prefer the first legal action are the same agent.
    as_logits = lambda obs, m: -np.arange(m.shape[1], dtype=np.float32)[None, :].repeat(len(m), 0)  # noqa: E731
    assert kalaha.judge(as_logits) == r
    # Bots are agents too (asked position by position): greedy beats the first legal move.
    greedy = kalaha.judge(kalaha.Bot("greedy", seed=0))
    assert r["optimal_rate"] < greedy["optimal_rate"] < 0.9
    # An illegal action is an error naming the position, never scored.
    # An illegal action (swap, without the pie rule) is an error naming the position, never scored.
    with pytest.raises(ValueError, match="position 0 .*action 6 is not a legal move"):
        kalaha.judge(lambda obs, m: np.full(len(m), 6))
    with pytest.raises(ValueError, match="expected actions"):
        kalaha.judge(lambda obs, m: np.zeros((len(m), 3)))
    assert mask.shape == (1200, 7)


def test_judge_sets_for_other_rules_and_missing_ones():
    js = kalaha.JudgeSet.load("swedish")
    assert len(js) == 600 and js.obs().shape == (600, 16)
    with pytest.raises(ValueError, match="no judge set .* build=True"):
        kalaha.JudgeSet.load(kalaha.Rules(pits=4, seeds=2))
    small = kalaha.Rules(pits=3, seeds=2)
    js = kalaha.JudgeSet.load(small, positions=20, build=True)
    assert len(js) + js.unsolved == 20
    r = kalaha.judge(kalaha.Bot("solver", seed=0), small, positions=20)
    assert r["optimal_rate"] == 1.0


def test_heldout_sets_score_logits_and_actions(net):
    sets = kalaha.HeldoutSet.load_all(positions=2000)
    assert [s.kind for s in sets] == ["train", "judge"] and all(len(s) == 2000 for s in sets)
    r = kalaha.judge(net, heldout=True, heldout_positions=2000)
    assert [h["set"] for h in r["heldout"]] == ["train", "judge"]
    assert all(h["kl"] is not None and h["kl"] > 0 for h in r["heldout"])
    # By actions: the same optimal rate, no KL.
    acts = kalaha.judge(lambda o, m: kalaha.research.pick(net(o, m), m), heldout=True, heldout_positions=2000)
    for a, b in zip(acts["heldout"], r["heldout"]):
        assert a["optimal_rate"] == b["optimal_rate"] and a["kl"] is None


def test_search_python_evaluator_matches_the_native_network(net, judge_set):
    roots = judge_set.positions()[:64]

    def evaluator(obs):
        d = net.forward(obs)
        return d["logits"], d["value"], d["margin"]

    cfg = dict(simulations=32, temperature=1.0, seed=7)
    native = kalaha.search(roots, net, **cfg)
    # The network's own settings, given explicitly to the Python evaluator.
    search = net.card["config"]["search"]
    py = kalaha.search(roots, evaluator, c_scale=search["c_scale"], c_visit=search["c_visit"], margin_weight=search["margin_weight"], **cfg)
    for k in ["action", "policy", "value", "visits"]:
        assert np.array_equal(native[k], py[k]), k
    assert native["evaluations"] == py["evaluations"] > 64
    assert np.allclose(native["policy"].sum(axis=1), 1.0, atol=1e-5)
    legal = judge_set.mask()[:64]
    assert np.all(native["visits"][~legal] == 0) and np.all(np.isnan(native["q"][~legal]))
    # The endgame database answers leaves: fewer evaluations.
    db = kalaha.search(roots, net, simulations=32, endgame_db=True)
    assert db["evaluations"] < kalaha.search(roots, net, simulations=32)["evaluations"]


def test_a_proving_search_proves_what_the_database_solves(net, judge_set):
    # Every move from these few-seed positions reaches the endgame database: a proving search
    # proves each root, its value and every move's q the exact margin (margin weight 1: margin
    # over 48 seeds), its move a best one. A plain search does not claim a proof.
    roots = [p for p in judge_set.positions() if sum(p.pits("south")) + sum(p.pits("north")) <= 12 and len(p.legal_actions()) > 1][:16]
    assert len(roots) >= 8
    out = kalaha.search(roots, net, simulations=32, endgame_db=True, prove=True)
    assert out["proved"].dtype == bool and out["proved"].all()
    for i, p in enumerate(roots):
        q = out["q"][i][p.action_mask()]
        assert np.allclose(q * 48, np.round(q * 48), atol=1e-4)
        assert out["value"][i] == q.max() == out["q"][i][out["action"][i]]
    plain = kalaha.search(roots, net, simulations=32, endgame_db=True)
    assert not plain["proved"].any()


def test_search_on_a_vec_env_and_errors(net):
    env = kalaha.VecEnv(16, seed=3, threads=1)
    env.reset(seed=3)
    out = kalaha.search(env, lambda obs: (np.zeros((len(obs), 7), np.float32), np.zeros(len(obs), np.float32)), simulations=8)
    assert out["action"].shape == (16,) and np.all(env.mask()[np.arange(16), out["action"]])
    with pytest.raises(ValueError, match="returned 1 arrays|must return"):
        kalaha.search(env, lambda obs: (np.zeros((len(obs), 7)),), simulations=4)
    with pytest.raises(ValueError, match="logits have shape"):
        kalaha.search(env, lambda obs: (np.zeros((len(obs), 5)), np.zeros(len(obs))), simulations=4)
    with pytest.raises(ZeroDivisionError):
        kalaha.search(env, lambda obs: 1 / 0, simulations=4)
    with pytest.raises(ValueError, match="finished game"):
        kalaha.search([kalaha.Position("0,0,0,0,0,0,24/0,0,0,0,0,0,24 s")], net)
    with pytest.raises(ValueError, match="network plays"):
        kalaha.search([kalaha.Position.start("swedish")], net)


def test_torch_export_matches_the_rust_network(net, judge_set, tmp_path):
    torch = pytest.importorskip("torch")
    from kalaha.torch import TorchNetwork, export

    obs = judge_set.obs()
    want = net.forward(obs)
    # Float32 sums of 512 terms, in another order than the Rust backend's: the two differ by up to
    # ~2e-5 on logits of magnitude ~25 (the float64 forward pass is within 1.6e-5 of the Rust one).
    tol = dict(rtol=1e-5, atol=1e-4)
    for module in [TorchNetwork.from_network(net), TorchNetwork.load(export(net, tmp_path / "k64.npz"))]:
        with torch.no_grad():
            logits, value, margin = module(torch.from_numpy(obs))
            lost = module.lost(torch.from_numpy(obs))
        assert np.allclose(logits.numpy(), want["logits"], **tol)
        assert np.allclose(value.numpy(), want["value"], **tol)
        assert np.allclose(margin.numpy(), want["margin"], **tol)
        assert np.allclose(lost.numpy(), want["lost"], **tol)
    # Judged through PyTorch: the same moves (no logit within float noise of another here).
    module = TorchNetwork.from_network(net)
    agent = lambda o, m: module(torch.from_numpy(o))[0].detach().numpy()  # noqa: E731
    assert kalaha.judge(agent)["optimal_rate"] == kalaha.judge(net)["optimal_rate"]


def test_torch_reads_a_network_of_margin_bins(judge_set, tmp_path):
    """A network with a margin distribution (network.margin_bins) in PyTorch: value and margin
    as the Rust network reads them, the distribution's chances summing to one."""
    torch = pytest.importorskip("torch")
    from kalaha.torch import TorchNetwork, export

    smoke = Path(__file__).resolve().parents[2] / "configs" / "smoke.toml"
    sets = [f'run.checkpoint_dir="{tmp_path}"', 'run.name="bins"', "network.margin_bins=49",
            "eval.every=0", "eval.solver_positions=0", f'run.experiment_dir="{tmp_path}"']
    learner = kalaha._kalaha.Learner(kalaha._kalaha.train_config(str(smoke), sets))
    learner.finish()
    net = kalaha.Network.load(str(tmp_path / "bins"))
    assert net.margin_bins == 49
    obs = judge_set.obs()[:200]
    want = net.forward(obs)
    for module in [TorchNetwork.from_network(net), TorchNetwork.load(export(net, tmp_path / "bins.npz"))]:
        with torch.no_grad():
            logits, value, margin = module(torch.from_numpy(obs))
            p = module.margin_distribution(torch.from_numpy(obs))
        assert np.allclose(logits.numpy(), want["logits"], rtol=1e-5, atol=1e-4)
        assert np.allclose(value.numpy(), want["value"], rtol=1e-5, atol=1e-5)
        assert np.allclose(margin.numpy(), want["margin"], rtol=1e-5, atol=1e-5)
        assert p.shape == (200, 49) and np.allclose(p.sum(dim=1).numpy(), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match="no margin distribution"):
        TorchNetwork.from_network(kalaha.Network.load("auto")).margin_distribution(torch.from_numpy(obs))


def test_policy_auto_from_another_folder(tmp_path):
    """The shipped networks are found wherever Python runs (the floor's one-liner)."""
    code = "import kalaha; print(kalaha.Bot('policy:auto:64').act(kalaha.Position.start()))"
    env = {"KALAHA_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) in range(1, 7)
    # The package's own networks and judge sets were written to the cache, to be found anywhere.
    shipped = list((tmp_path / "cache").glob("python-*/networks/kalah64/meta.json"))
    assert len(shipped) == 1
    assert list((tmp_path / "cache").glob("python-*/judge/judge2-6x4-*.json"))


def test_evaluate_a_python_agent_plays_as_the_rust_bot(net):
    """The network as a Python agent plays the games `policy:PATH:db=off` (the same network in
    Rust, its best legal logit) plays: the same results, game for game."""
    kw = dict(games=6, opening_moves=4, seed=3, judge=False)
    py = kalaha.evaluate(net, ["greedy"], **kw)
    rust = kalaha.evaluate(f"policy:{net.path}:db=off", ["greedy"], **kw)
    assert py["players"] == ["agent", "greedy"]
    # The agent's name differs, and the moves' wall times (``*_move_seconds``) are no result.
    strip = lambda p: {k: v for k, v in p.items() if k != "a" and not k.endswith("_move_seconds")}  # noqa: E731
    assert [strip(p) for p in py["pairings"]] == [strip(p) for p in rust["pairings"]]
    assert py["games_played"] == 6 and not py["interrupted"]


def test_evaluate_judges_every_move_and_reports_errors():
    small = kalaha.Rules(pits=3, seeds=2)

    def perfect(obs, mask):
        # Rebuild the position from the observation and ask the solver: a perfect agent.
        c = np.rint(obs[0] * small.total_seeds).astype(int)
        pos = kalaha.Position(f"{','.join(map(str, c[:3]))},{c[6]}/{','.join(map(str, c[3:6]))},{c[7]} s", small)
        value, moves = kalaha.solve(pos, db_seeds=0)
        return np.array([[moves.get(a + 1, -99) for a in range(4)]], np.float32)

    r = kalaha.evaluate(perfect, ["random"], rules=small, games=4, opening_moves=2, seed=1)
    assert r["judge"]["all"]["optimal_rate"] == 1.0 and r["judge"]["all"]["moves"] > 0
    with pytest.raises(ZeroDivisionError):
        kalaha.evaluate(lambda o, m: 1 / 0, ["random"], rules=small, games=2)
    with pytest.raises(ValueError, match="not a legal move"):
        kalaha.evaluate(lambda o, m: np.array([3]), ["random"], rules=small, games=2)
    with pytest.raises(ValueError, match="unknown bot"):
        kalaha.evaluate(net_free_agent, ["nobody"], rules=small)


def net_free_agent(obs, mask):
    return np.argmax(mask, axis=1)


def test_pick_is_the_librarys_best_logit_rule():
    # The cases of kalaha::search::best_logit's documentation: the highest logit, ties to the
    # highest action, whatever the order; illegal actions never.
    logits = np.array([[0.5, 2.0, -1.0, 2.0]] * 3)
    mask = np.array([[True] * 4, [True, True, False, True], [True, False, True, False]])
    np.testing.assert_array_equal(kalaha.research.pick(logits, mask), [3, 3, 0])
    # float32 ties, a legal -inf beside illegal ones, -0.0 below 0.0 (IEEE total order), NaN.
    edge = np.array(
        [
            [1.0, 1.0, 1.0, 0.0],
            [-np.inf, -np.inf, -np.inf, -np.inf],
            [0.0, -0.0, -1.0, -2.0],
            [np.nan, 5.0, 1.0, 0.0],
            [-np.nan, 5.0, 1.0, 0.0],
        ],
        dtype=np.float32,
    )
    legal = np.array(
        [[True, True, True, False], [True, False, False, False], [True, True, True, True]]
        + [[True, True, True, True]] * 2
    )
    picks = kalaha.research.pick(edge, legal)
    assert picks.dtype == np.int64
    np.testing.assert_array_equal(picks, [2, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        kalaha.research.pick(np.zeros((2, 3)), np.array([[True, False, False], [False] * 3]))
    with pytest.raises(ValueError, match="shape"):
        kalaha.research.pick(np.zeros((2, 3)), np.ones((2, 4), dtype=bool))
