"""Step 2 of recording the differential fixtures (see README.md beside this file).

Reads the cases written by dump-cases.ts (env id, seed, the hidden state our port drew for that seed, the actions),
makes each env with GEM's own `gem.make`, loads that hidden state into it, plays the actions and records GEM's answers
(observation, reward, terminated, truncated, info["suffix"]) -- or the exception GEM raised. Writes the fixture JSON.

Usage: python record-gem.py CASES_JSON OUT_JSON   (GEM's source tree and NLTK's `words` corpus importable;
reasoning_gym, which GEM's registry imports but no game needs, may be absent: it is stubbed.)
"""

import copy
import importlib.resources  # noqa: F401  (GEM's crosswords uses importlib.resources without importing it)
import json
import sys
import types

if "reasoning_gym" not in sys.modules:
    try:
        import reasoning_gym  # noqa: F401
    except ImportError:
        stub = types.ModuleType("reasoning_gym")
        stub.factory = types.SimpleNamespace(DATASETS={})
        sys.modules["reasoning_gym"] = stub
        sys.modules["reasoning_gym.factory"] = stub.factory

import gem.envs  # noqa: E402,F401  (registers the ids)
from gem.envs.registration import make  # noqa: E402


def load_state(env, game, state, after):
    if game == "GuessTheNumber":
        env.min_number, env.max_number = state["min_number"], state["max_number"]
        env.max_turns, env.game_number = state["max_turns"], state["game_number"]
    elif game == "Mastermind":
        env.code_length, env.num_numbers = state["code_length"], state["num_numbers"]
        env.max_turns, env.game_code = state["max_turns"], list(state["game_code"])
    elif game == "Hangman":
        env.word_length, env.max_turns = state["word_length"], state["max_turns"]
        env.secret_word = state["secret_word"]
        env.board = ["_" for _ in env.secret_word]
    elif game == "Wordle":
        env.word_length, env.max_turns = state["word_length"], state["max_turns"]
        env.secret_word = state["secret_word"]
        env.milestones = [0] * env.word_length
    elif game == "Minesweeper":
        # Mines are placed at the first reveal: give GEM the layout our port drew there.
        def setup_mines(row, col):
            env.grid = copy.deepcopy(after[env.turn_count - 1])

        env._setup_mines = setup_mines
    elif game == "Sudoku":
        env.scale, env.max_turns = state["scale"], state["max_turns"]
        env.board = copy.deepcopy(state["board"])
        env.full_grid = copy.deepcopy(state["full_grid"])
        env.init_num_empty = sum(row.count(0) for row in env.board)
    elif game == "TowerofHanoi":
        env.num_disks, env.max_turns = state["num_disks"], state["max_turns"]
        env.board = copy.deepcopy(state["board"])
    elif game == "FifteenPuzzle":
        env.max_turns, env.board = state["max_turns"], copy.deepcopy(state["board"])
    elif game == "Game2048":
        env.target_tile, env.max_turns = state["target_tile"], state["max_turns"]
        env.board = copy.deepcopy(state["board"])
        env.max_tile_achieved = max(max(row) for row in env.board)
        env.init_max_tile_achieved = env.max_tile_achieved
        # The tile that appears after a move is chance: take the board our port had after that step.
        def add_tile():
            env.board = copy.deepcopy(after[env.turn_count - 1])

        env._add_random_tile = add_tile
    elif game == "WordSearch":
        env.max_turns, env.game_board = state["max_turns"], copy.deepcopy(state["game_board"])
        env.placed_words = {w: tuple(p) for w, p in state["placed_words"].items()}
    elif game == "Sokoban":
        import numpy as np

        env.dim_room, env.num_boxes = tuple(state["dim_room"]), state["num_boxes"]
        env.max_turns = state["max_turns"]
        env.room_fixed = np.array(state["room_fixed"])
        env.room_state = np.array(state["room_state"])
        env.player_position = np.argwhere(env.room_state == 5)[0]
    elif game == "Crosswords":
        env.max_turns = state["max_turns"]
        env.solution, env.board = copy.deepcopy(state["solution"]), copy.deepcopy(state["board"])
        env.clues = dict(state["clues"])
        env.placed_words = {w: tuple(p) for w, p in state["placed_words"].items()}
        env.total_letter_cells = sum(1 for row in env.board for cell in row if cell != ".")
    else:
        raise ValueError(f"no state loader for {game}")


SOURCE = (
    "What GEM's own Python games answer (axon-rl/gem 4069f2f, Python 3.11, NLTK words corpus) to scripted actions, "
    "each game loaded with the hidden state @cookbook/gem draws for the case's seed. Recorded by "
    "packages/gem/scripts/differential (dump-cases.ts, then record-gem.py); see its README. Do not edit by hand."
)


def main(cases_path, out_path):
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    records = []
    for case in cases:
        env = make(case["envId"])
        env.reset()
        load_state(env, case["game"], case["state"], case["after"])
        steps = []
        for action in case["actions"]:
            try:
                obs, reward, terminated, truncated, info = env.step(action)
                steps.append(
                    {
                        "action": action,
                        "observation": obs,
                        "reward": float(reward),
                        "terminated": bool(terminated),
                        "truncated": bool(truncated),
                        "suffix": info.get("suffix"),
                    }
                )
            except Exception as e:  # GEM's own crash on this input: recorded as such
                steps.append({"action": action, "raises": f"{type(e).__name__}: {e}"})
                break
        records.append({"name": case["name"], "envId": case["envId"], "seed": case["seed"], "steps": steps})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"source": SOURCE, "cases": records}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
