"""The native VecEnv: the same games as the Rust library, dtypes and shapes, errors, pickling.

`data/env_trajectories.json` comes from the library itself: `cargo run --release -p kalaha-python
--example env_trajectory > python/tests/data/env_trajectories.json`.
"""

import json
import pathlib
import pickle
import threading

import numpy as np
import pytest

import kalaha

DATA = pathlib.Path(__file__).parent / "data" / "env_trajectories.json"


def fnv(data: bytes, h: int) -> int:
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def counts(obs: np.ndarray, total: int) -> np.ndarray:
    """Observations back to seed counts (the two flags stay 0/1), as the Rust side digests them."""
    c = np.rint(obs * total)
    c[..., -2:] = np.rint(obs[..., -2:])
    return c.astype(np.uint8)


def digest(env: kalaha.VecEnv, out, stepped: bool) -> int:
    obs, mask, to_play, reward, done = out
    total = env.rules.total_seeds
    c = counts(obs, total)
    h = 0xCBF29CE484222325
    if stepped:
        fobs, fscore, flen = counts(env.final_obs(), total), env.final_score(), env.final_len()
    for i in range(env.games):
        h = fnv(c[i].tobytes() + mask[i].astype(np.uint8).tobytes() + bytes([to_play[i]]), h)
        if stepped:
            h = fnv(bytes([np.int8(reward[i]).view(np.uint8), int(done[i])]), h)
            if done[i]:
                h = fnv(fobs[i].tobytes() + fscore[i].tobytes() + np.uint32(flen[i]).tobytes(), h)
    return h


def pick(mask: np.ndarray, t: int) -> np.ndarray:
    """Game i's legal action number (7t + 13i) mod count, as the Rust reference picks it."""
    actions = np.empty(len(mask), dtype=np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        actions[i] = legal[(7 * t + 13 * i) % len(legal)]
    return actions


REFERENCE = json.loads(DATA.read_text())


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("threads", [1, 2])
def test_same_games_as_the_rust_env_on_the_same_seed_and_actions(case, threads):
    rules = case["rules"]
    env = kalaha.VecEnv(case["games"], rules if isinstance(rules, str) else kalaha.Rules(**rules), seed=case["seed"], threads=threads)
    expected = case["digests"]
    got = [digest(env, (*env.reset(case["seed"]), None, None), stepped=False)]
    t = 0
    for kind, steps in REFERENCE["phases"]:
        for _ in range(steps):
            out = env.step_random() if kind == "random" else env.step(pick(env.mask(), t))
            got.append(digest(env, out, stepped=True))
            t += 1
    got_hex = [f"{h:016x}" for h in got]
    first_bad = next((i for i, (a, b) in enumerate(zip(got_hex, expected)) if a != b), None)
    assert first_bad is None, f"step {first_bad}: python {got_hex[first_bad]}, rust {expected[first_bad]}"
    assert len(got_hex) == len(expected)


def test_observations_and_masks_agree_with_the_positions():
    env = kalaha.VecEnv(64, "international", seed=5, threads=1)
    rng = np.random.default_rng(0)
    for _ in range(100):
        mask = env.mask()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        before = env.positions()
        obs, mask, to_play, reward, done = env.step(actions)
        for i, pos in enumerate(env.positions()):
            np.testing.assert_array_equal(obs[i], pos.observation())
            assert list(np.flatnonzero(mask[i])) == pos.legal_actions()
            after = before[i].play_action(int(actions[i]))
            if done[i]:
                assert after.is_over and pos == kalaha.Position.start()
                south, north = after.score
                assert sorted(env.final_score()[i]) == sorted([south, north])
                np.testing.assert_array_equal(env.final_obs()[i], after.observation(before[i].to_move))
            else:
                assert after == pos and reward[i] == 0


def test_dtypes_and_shapes():
    env = kalaha.VecEnv(10, {"pits": 5, "seeds": 3, "pie": True}, seed=1, threads=1)
    assert (env.games, env.obs_dim, env.action_count, len(env)) == (10, 14, 6, 10)
    obs, mask, to_play = env.reset(2)
    assert obs.dtype == np.float32 and obs.shape == (10, 14)
    assert mask.dtype == np.bool_ and mask.shape == (10, 6)
    assert to_play.dtype == np.uint8 and to_play.shape == (10,)
    obs, mask, to_play, reward, done = env.step_random()
    assert reward.dtype == np.float32 and reward.shape == (10,)
    assert done.dtype == np.bool_ and done.shape == (10,)
    assert env.final_obs().shape == (10, 14) and env.final_obs().dtype == np.float32
    assert env.final_score().shape == (10, 2) and env.final_score().dtype == np.uint8
    assert env.final_len().dtype == np.uint32 and env.game_len().dtype == np.uint32
    assert env.swapped().dtype == np.bool_
    assert np.allclose(obs[:, :12].sum(axis=1), 1.0)


def test_outputs_are_copies_not_views_the_next_step_overwrites():
    env = kalaha.VecEnv(8, seed=3, threads=1)
    obs, *_ = env.step_random()
    kept = obs.copy()
    env.step_random()
    np.testing.assert_array_equal(obs, kept)
    obs[:] = 9  # writing to a returned array changes nothing inside
    assert env.obs().max() <= 1.0


def test_actions_take_any_integer_dtype_and_sequences():
    env = kalaha.VecEnv(4, seed=0, threads=1)
    for dt in (np.int64, np.int32, np.uint8, np.uint32, np.int16):
        env.reset(0)
        env.step(np.zeros(4, dtype=dt))
    env.reset(0)
    env.step([0, 1, 2, 3])
    env.step(np.arange(8)[::2] % 3)  # a strided view


def test_an_illegal_action_raises_naming_game_and_move_and_changes_nothing():
    env = kalaha.VecEnv(5, seed=0, threads=1)
    env.step([2, 2, 2, 2, 2])  # pit 3: last seed in the store, extra turn; pit 3 is now empty
    before = [str(p) for p in env.positions()]
    obs_before = env.obs()
    with pytest.raises(ValueError, match=r"game 3: action 2 \(3\) is illegal: pit 3 is empty"):
        env.step([0, 0, 0, 2, 0])
    assert [str(p) for p in env.positions()] == before
    np.testing.assert_array_equal(env.obs(), obs_before)
    with pytest.raises(ValueError, match=r"game 1: action 7 is out of range \(actions are 0 to 6\)"):
        env.step([0, 7, 0, 0, 0])
    with pytest.raises(ValueError, match=r"game 2: action -1 is out of range"):
        env.step([0, 0, -1, 0, 0])
    with pytest.raises(ValueError, match="actions has 4 rows; the environment has 5 games"):
        env.step([0, 0, 0, 0])
    with pytest.raises(TypeError, match="1-D integer array"):
        env.step(np.zeros((5, 1), dtype=np.int64))
    assert [str(p) for p in env.positions()] == before


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="games must be an integer from 1 to"):
        kalaha.VecEnv(0)
    with pytest.raises(ValueError, match="threads must be an integer from 1 to 1024, not 0"):
        kalaha.VecEnv(4, threads=0)
    with pytest.raises(ValueError, match="unknown rules preset 'chess'"):
        kalaha.VecEnv(4, "chess")
    with pytest.raises(ValueError, match="pits must be an integer from 1 to 15, not 16"):
        kalaha.VecEnv(4, {"pits": 16})
    with pytest.raises(ValueError, match="unknown rule option 'colour'"):
        kalaha.VecEnv(4, {"colour": "red"})
    with pytest.raises(ValueError, match="unknown capture rule"):
        kalaha.Rules(capture="sometimes")


def test_thread_count_and_rayon_num_threads(monkeypatch):
    assert kalaha.VecEnv(4, threads=3).threads == 3
    monkeypatch.setenv("RAYON_NUM_THREADS", "1")
    assert kalaha.VecEnv(4).threads == 1
    monkeypatch.setenv("RAYON_NUM_THREADS", "2")
    assert kalaha.VecEnv(4).threads == 2


def test_results_do_not_depend_on_threads():
    a = kalaha.VecEnv(3000, seed=9, threads=1)
    b = kalaha.VecEnv(3000, seed=9, threads=2)
    for _ in range(50):
        oa, ob = a.step_random(), b.step_random()
        for x, y in zip(oa, ob):
            np.testing.assert_array_equal(x, y)


def test_step_releases_the_gil():
    env = kalaha.VecEnv(20000, seed=1, threads=1)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        env.step_random_n(400)  # long enough that a held GIL would starve the counter
    finally:
        stop.set()
        t.join()
    assert len(ticks) > 100


def test_pickling_restores_the_same_state():
    env = kalaha.VecEnv(16, {"pits": 4, "seeds": 3, "pie": True}, seed=4, threads=1)
    rng = np.random.default_rng(1)
    for k in range(60):
        if k % 3 == 0:
            env.step_random()
        else:
            env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.mask()]))
    clone = pickle.loads(pickle.dumps(env))
    assert [str(p) for p in clone.positions()] == [str(p) for p in env.positions()]
    np.testing.assert_array_equal(clone.game_len(), env.game_len())
    np.testing.assert_array_equal(clone.swapped(), env.swapped())
    # The random streams were restored too: both go on identically.
    for _ in range(30):
        for x, y in zip(env.step_random(), clone.step_random()):
            np.testing.assert_array_equal(x, y)
    assert (clone.games, clone.threads, clone.seed, clone.rules) == (env.games, env.threads, env.seed, env.rules)


def test_an_unpickled_env_steps_on_bit_identically():
    # Step N, pickle, then step M in both: every output agrees, the random streams included.
    env = kalaha.VecEnv(23, {"preset": "norwegian", "pie": True}, seed=11, threads=2)
    rng = np.random.default_rng(3)
    for k in range(45):
        if k % 2:
            env.step_random()
        else:
            env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.mask()]))
    clone = pickle.loads(pickle.dumps(env))
    for name in ["obs", "mask", "to_play", "reward", "done", "swapped", "game_len"]:
        np.testing.assert_array_equal(getattr(clone, name)(), getattr(env, name)(), err_msg=name)
    done = env.done()
    np.testing.assert_array_equal(clone.final_obs()[done], env.final_obs()[done])
    np.testing.assert_array_equal(clone.final_score()[done], env.final_score()[done])
    for k in range(80):
        if k % 3:
            outs = env.step_random(), clone.step_random()
        else:
            a = np.array([rng.choice(np.flatnonzero(m)) for m in env.mask()])
            outs = env.step(a), clone.step(a)
        for x, y in zip(*outs):
            np.testing.assert_array_equal(x, y)
        d = env.done()
        np.testing.assert_array_equal(clone.final_obs()[d], env.final_obs()[d])
        np.testing.assert_array_equal(clone.final_score()[d], env.final_score()[d])
        np.testing.assert_array_equal(clone.final_len()[d], env.final_len()[d])


def test_a_long_run_still_pickles_in_constant_size():
    # The pickle holds the games, not a record of the steps: its size does not grow with them.
    env = kalaha.VecEnv(64, seed=5, threads=1)
    size = len(pickle.dumps(env))
    env.step_random_n(3000)
    assert len(pickle.dumps(env)) <= size + 64 * 70


def test_pickled_state_that_is_damaged_is_refused():
    env = kalaha.VecEnv(4, seed=1, threads=1)
    env.step_random_n(3)
    fn, args, state = env.__reduce__()
    fresh = fn(*args)
    before = fresh.obs()
    flipped = bytearray(state)
    flipped[20] ^= 1
    for bad, why in [
        (b"nope", "not a kalaha saved environment"),
        (state + b"\x00\x01", "checksum mismatch"),
        (state[:-5], "checksum mismatch"),
        (bytes(flipped), "checksum mismatch"),
        (kalaha.VecEnv(5, seed=1).__reduce__()[2], "has 5 games, this one 4"),
        (kalaha.VecEnv(4, "swedish").__reduce__()[2], "the saved environment plays"),
    ]:
        with pytest.raises(ValueError, match="not a pickled kalaha VecEnv: .*" + why):
            fresh.__setstate__(bad)
        np.testing.assert_array_equal(fresh.obs(), before)


def _replay_ops(env):
    """What made tests/data/vec_env_replay_v1.pickle (written by the earlier build)."""
    env.step_random_n(10)
    for _ in range(3):
        env.step(env.mask().argmax(axis=1))
    env.step_random()
    env.step(env.mask().shape[1] - 1 - env.mask()[:, ::-1].argmax(axis=1))


def test_pickles_of_the_earlier_replay_format_still_load():
    with open(pathlib.Path(__file__).parent / "data" / "vec_env_replay_v1.pickle", "rb") as f:
        old = pickle.load(f)
    env = kalaha.VecEnv(5, {"preset": "international", "pie": True}, seed=7, threads=1)
    _replay_ops(env)
    assert (old.games, old.seed, old.threads, old.rules) == (5, 7, 1, env.rules)
    for name in ["obs", "mask", "to_play", "reward", "done", "swapped", "game_len"]:
        np.testing.assert_array_equal(getattr(old, name)(), getattr(env, name)(), err_msg=name)
    for _ in range(40):
        for x, y in zip(env.step_random(), old.step_random()):
            np.testing.assert_array_equal(x, y)
    # A damaged record of that format is refused too, and the env is left as it was.
    fn, args, _ = env.__reduce__()
    fresh = fn(*args)
    header = b"KVE1" + (1).to_bytes(8, "little")
    with pytest.raises(ValueError, match="not a pickled kalaha VecEnv: cut short or damaged"):
        fresh.__setstate__(header + b"\x00\x01")
    fresh.step_random()
    before = fresh.obs()
    with pytest.raises(ValueError, match="not a pickled kalaha VecEnv: game 0: action 7"):
        fresh.__setstate__(header + b"\x00" + bytes([7, 0, 0, 0, 0]))
    np.testing.assert_array_equal(fresh.obs(), before)


def test_reset_without_a_seed_draws_one_and_reports_it():
    env = kalaha.VecEnv(4, seed=1, threads=1)
    env.reset()
    s = env.seed
    again = kalaha.VecEnv(4, seed=s, threads=1)
    for x, y in zip(env.step_random(), again.step_random()):
        np.testing.assert_array_equal(x, y)


def test_legal_bits_are_the_mask_as_integers():
    env = kalaha.VecEnv(50, {"pie": True}, seed=2, threads=1)
    for _ in range(40):
        bits, mask = env.legal_bits(), env.mask()
        assert bits.dtype == np.uint16 and bits.shape == (50,)
        expected = (mask.astype(np.uint16) << np.arange(mask.shape[1], dtype=np.uint16)).sum(axis=1)
        np.testing.assert_array_equal(bits, expected)
        env.step_random()


def test_step_with_skip_leaves_those_games_and_reset_games_restarts_only_those():
    """``step(actions, skip)``: the games ``skip`` marks stay as they were (reward 0, not done; their
    action, even an illegal one, not played), the others step as a twin stepped with ``step``;
    ``reset_games(which)`` restarts only the games marked. Wrong lengths and an illegal action in a
    game not skipped raise ValueError and change nothing."""
    rules = kalaha.Rules(pits=3, seeds=2)
    env = kalaha.VecEnv(12, rules, seed=4, threads=1)
    obs, mask, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    skipped = ended = 0
    for t in range(200):
        twin = pickle.loads(pickle.dumps(env))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        skip = rng.random(12) < 0.3
        before = [str(p) for p in env.positions()]
        # A skipped game's action is not read: an illegal one (a pit without seeds, or swap) passes.
        given = actions.copy()
        for i in np.flatnonzero(skip):
            bad = np.flatnonzero(~mask[i])
            if len(bad):
                given[i] = bad[0]
        obs, mask, to_play, reward, done = env.step(given, skip)
        t_obs, t_mask, t_to_play, t_reward, t_done = twin.step(actions)
        after = [str(p) for p in env.positions()]
        for i in range(12):
            if skip[i]:
                assert after[i] == before[i] and reward[i] == 0.0 and not done[i], (t, i)
            else:
                np.testing.assert_array_equal(obs[i], t_obs[i])
                assert (reward[i], done[i], to_play[i]) == (t_reward[i], t_done[i], t_to_play[i])
        skipped += int(skip.sum())
        ended += int(done.sum())
        if t % 10 == 5:
            which = rng.random(12) < 0.25
            obs, mask, _ = env.reset_games(which)
            start = kalaha.Position.start(rules)
            kept = [str(p) for p in env.positions()]
            for i in range(12):
                assert (kept[i] == str(start)) if which[i] else (kept[i] == after[i])
    assert skipped > 300 and ended > 20
    state = pickle.dumps(env)
    with pytest.raises(ValueError, match="skip has 11 rows"):
        env.step(np.zeros(12, dtype=np.int64), np.zeros(11, dtype=bool))
    with pytest.raises(ValueError, match="which has 13 rows"):
        env.reset_games(np.zeros(13, dtype=bool))
    illegal = np.array([np.flatnonzero(m)[0] for m in mask])
    game = int(np.flatnonzero((~mask).any(axis=1))[0])
    illegal[game] = np.flatnonzero(~mask[game])[0]
    with pytest.raises(ValueError, match=f"game {game}"):
        env.step(illegal, np.zeros(12, dtype=bool))
    assert pickle.dumps(env) == state
