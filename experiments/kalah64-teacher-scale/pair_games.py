"""Two networks' games against `solver` on the same openings, paired game by game: for each
network the games reaching the opening's result, those losing no seed and the result changes of
its judged moves, then the games only one of them reaches and the two-sided sign test over them.
Each side is a list of `kalaha eval ... --opponents solver --judge ... --json` outputs, one per
seed, in the same order on both sides (the same seeds give the same openings). PYTHON: an
interpreter with numpy (the kalaha package's venv), for midgame-labels/score.py's sign test.
    $PYTHON pair_games.py --a A-seed1.json A-seed2.json --b B-seed1.json B-seed2.json [--json]"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "midgame-labels"))
from score import sign_test  # noqa: E402


def games(path: str, ap: argparse.ArgumentParser) -> tuple[dict, list[dict]]:
    """The series' seed and judge, and its games against `solver`, from one eval output."""
    try:
        d = json.loads(Path(path).read_text())
        return d, d["judge"]["vs_solver"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        ap.exit(2, f"pair_games.py: {path} is not a judged series against solver: {e}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", nargs="+", required=True, help="the first network's series, one a seed")
    ap.add_argument("--b", nargs="+", required=True, help="the second network's, the same seeds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if len(args.a) != len(args.b):
        ap.exit(2, f"pair_games.py: {len(args.a)} series against {len(args.b)}: give one a seed on both sides\n")
    side = {"a": {"reached": 0, "no_seed_lost": 0, "result_changes": 0, "games": 0},
            "b": {"reached": 0, "no_seed_lost": 0, "result_changes": 0, "games": 0}}
    only_a = only_b = 0
    seeds = []
    for pa, pb in zip(args.a, args.b):
        da, ga = games(pa, ap)
        db, gb = games(pb, ap)
        if da.get("seed") != db.get("seed") or [g["start"] for g in ga] != [g["start"] for g in gb]:
            ap.exit(2, f"pair_games.py: {pa} and {pb} are not the same openings\n")
        seeds.append(da.get("seed"))
        for key, d, gs in (("a", da, ga), ("b", db, gb)):
            s = side[key]
            s["games"] += len(gs)
            s["reached"] += sum(g["reached"] for g in gs)
            s["no_seed_lost"] += sum(g["margin"] >= g["value"] for g in gs)
            s["result_changes"] += d["judge"]["all"]["result_changes"]
        only_a += sum(x["reached"] and not y["reached"] for x, y in zip(ga, gb))
        only_b += sum(y["reached"] and not x["reached"] for x, y in zip(ga, gb))
    out = {"seeds": seeds, "a": side["a"], "b": side["b"], "only_a": only_a, "only_b": only_b,
           "p": round(sign_test(only_a, only_b), 4)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, paths in (("a", args.a), ("b", args.b)):
        s = side[key]
        print(f"{key}: {s['reached']} of {s['games']} reached, {s['no_seed_lost']} lose no seed, "
              f"{s['result_changes']} result changes ({paths[0]} ...)")
    print(f"only a reaches {only_a}, only b {only_b}: sign test p = {out['p']}")


if __name__ == "__main__":
    main()
