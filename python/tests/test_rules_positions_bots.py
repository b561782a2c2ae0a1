"""Rules, positions in the project's notation, the bots and the solver from Python."""

import pickle

import numpy as np
import pytest

import kalaha


def test_presets_and_options():
    assert kalaha.presets() == ["international", "swedish", "danish", "norwegian", "children"]
    r = kalaha.Rules("danish")
    assert (r.pits, r.seeds, r.leftover) == (6, 6, "emptier")
    r = kalaha.Rules(pits=4, seeds=3, capture="off", end="on-turn", pie=True)
    assert str(r) == "Kalah(4,3) capture=off leftover=owner end=on-turn pie"
    assert kalaha.Rules(**r.to_dict()) == r
    assert pickle.loads(pickle.dumps(r)) == r
    assert hash(kalaha.Rules()) == hash(kalaha.Rules("international"))
    assert (r.obs_dim, r.action_count, r.total_seeds) == (12, 5, 24)


def test_notation_parse_print_legal_play():
    pos = kalaha.Position.start()
    assert str(pos) == "4,4,4,4,4,4,0/4,4,4,4,4,4,0 s"
    pos = pos.play(3)
    assert str(pos) == "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s"
    assert pos.to_move == "south" and pos.legal_moves() == [1, 2, 4, 5, 6]
    assert pos.legal_actions() == [0, 1, 3, 4, 5]
    assert list(pos.action_mask()) == [True, True, False, True, True, True, False]
    pos = pos.play("1")
    assert str(pos) == "0,5,1,6,6,5,1/4,4,4,4,4,4,0 n"
    same = kalaha.Position("0,5,1,6,6,5,1/4,4,4,4,4,4,0 n")
    assert same == pos and hash(same) == hash(pos)
    assert pickle.loads(pickle.dumps(pos)) == pos
    assert pos.pits("north") == [4] * 6 and pos.store("s") == 1 and pos.score == (1, 0)
    assert pos.play_action(0) == pos.play(1)
    assert pos.action_to_move(0) == 1 and pos.move_to_action(1) == 0


def test_pie_rule_moves_and_swap():
    rules = kalaha.Rules(pie=True)
    pos = kalaha.Position.start(rules).play(1)
    assert pos.swap_allowed and pos.legal_moves()[-1] == "swap"
    assert str(pos).endswith("swap")
    after = pos.play("swap")
    assert after.to_move == "north" and not after.swap_allowed
    assert pos.move_to_action("swap") == 6
    # South's opening turn after an extra turn: the notation and a pickle keep the answer to come.
    opening = kalaha.Position.start(rules).play(3)
    assert str(opening) == "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s opening"
    again = pickle.loads(pickle.dumps(opening))
    assert again.play(1).swap_allowed and kalaha.Position(str(opening), rules).play(1).swap_allowed
    assert not kalaha.Position("4,4,0,5,5,5,1/4,4,4,4,4,4,0 s", rules).play(1).swap_allowed


def test_observation_matches_the_encoder_layout():
    pos = kalaha.Position("1,2,3,4,5,6,7/8,0,0,0,0,9,3 n")
    seeds = np.rint(pos.observation() * 48).astype(int)
    assert list(seeds) == [8, 0, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 3, 7, 0, 0]
    seeds = np.rint(pos.observation("south") * 48).astype(int)
    assert list(seeds) == [1, 2, 3, 4, 5, 6, 8, 0, 0, 0, 0, 9, 7, 3, 0, 0]
    assert pos.observation().dtype == np.float32


def test_bad_input_gives_clear_errors():
    with pytest.raises(ValueError, match="position 'x'"):
        kalaha.Position("x")
    with pytest.raises(ValueError, match="pit 3 is empty"):
        kalaha.Position.start().play(3).play(3)
    with pytest.raises(ValueError, match="pit 9 is out of range"):
        kalaha.Position.start().play(9)
    with pytest.raises(ValueError, match="swap is not allowed"):
        kalaha.Position.start().play("swap")
    with pytest.raises(ValueError, match="'sow' is not a move"):
        kalaha.Position.start().play("sow")
    with pytest.raises(ValueError, match="action must be an integer from 0 to 6, not 7"):
        kalaha.Position.start().play_action(7)
    with pytest.raises(ValueError, match="unknown side"):
        kalaha.Position.start().pits("east")
    with pytest.raises(TypeError, match="a position must be"):
        kalaha.solve(42)


def test_game_over_scores_and_result():
    pos = kalaha.Position("0,0,0,0,0,1,20/0,0,0,0,0,2,25 s")
    end = pos.play(6)
    assert end.is_over and end.score == (21, 27) and end.result == "north" and end.margin == -6
    assert end.legal_moves() == []


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:3", "mcts:50", "solver"])
def test_every_bot_plays_legal_moves(spec):
    bot = kalaha.Bot(spec, seed=1)
    pos = kalaha.Position("0,5,3,1,0,2,15/1,0,2,4,0,3,12 s")
    for _ in range(3):
        mv = bot.act(pos)
        assert mv in pos.legal_moves()
        assert bot.act_action(pos) in pos.legal_actions()
    assert pickle.loads(pickle.dumps(bot)).spec == bot.spec


def test_bots_are_deterministic_in_their_seed():
    pos = kalaha.Position.start()
    a = [kalaha.Bot("mcts:30", seed=5).act(pos) for _ in range(3)]
    assert len(set(a)) == 1


def test_solver_bot_plays_perfectly():
    pos = kalaha.Position("0,5,3,1,0,2,15/1,0,2,4,0,3,12 s")
    assert kalaha.Bot("solver", seed=0).act(pos) == 6


def test_bot_errors():
    with pytest.raises(ValueError, match="unknown bot 'alphazero'"):
        kalaha.Bot("alphazero")
    with pytest.raises(ValueError, match="needs a search depth"):
        kalaha.Bot("minimax")
    with pytest.raises(ValueError, match="nowhere"):
        kalaha.Bot("policy:/nowhere:64")  # refused when made, not at the first move
    with pytest.raises(ValueError, match="the game is over"):
        kalaha.Bot("random").act("0,0,0,0,0,0,24/0,0,0,0,0,0,24 s")


def test_solve_gives_the_value_and_every_move():
    value, moves = kalaha.solve("0,5,3,1,0,2,15/1,0,2,4,0,3,12 s", db_seeds=0)
    assert value == 6
    assert moves == {2: 4, 3: -12, 4: 0, 6: 6}
    value, moves = kalaha.solve(kalaha.Position("0,0,0,0,0,1,20/0,0,0,0,0,2,25 s"), db_seeds=0)
    assert (value, moves) == (-6, {6: -6})


def test_solve_small_game_from_the_start_and_rule_mismatch():
    rules = kalaha.Rules(pits=3, seeds=2, pie=True)
    value, moves = kalaha.solve(kalaha.Position.start(rules), db_seeds=0)
    assert value == max(moves.values())
    with pytest.raises(ValueError, match="played under"):
        kalaha.solve(kalaha.Position.start(rules), rules="international")


def test_import_needs_only_numpy():
    """``import kalaha`` and ``from kalaha import *`` work with gymnasium, pettingzoo and torch
    missing (blocked in a subprocess); the classes that need them say so when first used."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for m in ('gymnasium', 'pettingzoo', 'torch'): sys.modules[m] = None\n"
        "from kalaha import *\n"
        "import kalaha\n"
        "assert Position.start().legal_actions()\n"
        "try:\n"
        "    kalaha.KalahEnv\n"
        "except ImportError as e:\n"
        "    print('ImportError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ImportError") and "gymnasium" in out.stdout, out.stdout
