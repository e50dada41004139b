"""Writes src/__fixtures__/grading-cases.json: programs, their tests and the verdict upstream's code RL harness gives.

Usage: python make-grading-fixture.py PATH/TO/lcb_utils.py
  lcb_utils.py is upstream tinker-cookbook's tinker_cookbook/recipes/code_rl/lcb_utils.py (it holds the LiveCodeBench
  run_test harness as the strings TEST_UTIL and TEST_CODE). Each case runs that harness exactly as upstream's Modal
  backend does (testing_util.py, code.py, test_cases.txt, run.py in a fresh folder; `python run.py`; pass = exit 0),
  with upstream's total limit (timeout + 1) * tests + 5 seconds.
Generated with Python 3.11, numpy 2.4 (the harness imports numpy), tinker-cookbook main of 2026-11.
CI never runs this: grading.test.ts reads the committed fixture and checks our harness gives the same verdicts.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

spec = importlib.util.spec_from_file_location("lcb_utils", sys.argv[1])
lcb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lcb)

S = lambda code, ins, outs, timeout=6: {"code": code, "tests": {"inputs": ins, "outputs": outs}, "timeout": timeout}
F = lambda code, fn, ins, outs, timeout=6: {"code": code, "tests": {"inputs": ins, "outputs": outs, "fn_name": fn}, "timeout": timeout}
SUM = "a, b = map(int, input().split())\nprint(a + b)"

CASES = {
    "stdin sum": S(SUM, ["1 2", "3 4"], ["3", "7"]),
    "stdin wrong answer": S("a, b = map(int, input().split())\nprint(a - b)", ["1 2"], ["3"]),
    "second test wrong": S("print(3)", ["1 2", "3 4"], ["3", "7"]),
    "trailing space in output": S("print('3 ')", [""], ["3"]),
    "expected has trailing newline": S("print(3)", [""], ["3\n"]),
    "trailing spaces on several lines": S("print('1 2 ')\nprint('3 4 ')", [""], ["1 2\n3 4"]),
    "leading spaces on a line": S("print('  1 2')\nprint('3 4')", [""], ["1 2\n3 4"]),
    "inner double space": S("print('1  2')", [""], ["1 2"]),
    "float close": S("print(0.1 + 0.2)", [""], ["0.3"]),
    "float not close": S("print(0.31)", [""], ["0.3"]),
    "float lines close": S("print(1.0000001)\nprint(2.5)", [""], ["1.0\n2.5"]),
    "float vs int text": S("print('3.0')", [""], ["3"]),
    "zero-padded int": S("print('03')", [""], ["3"]),
    "two floats on one line": S("print(0.1 + 0.2, 1.0)", [""], ["0.3 1.0"]),
    "blank lines in output": S("print(1)\nprint()\nprint(2)", [""], ["1\n2"]),
    "empty output expected": S("pass", [""], [""]),
    "runtime error": S("raise ValueError('no')", [""], ["1"]),
    "error after correct output": S("print(1)\nraise ValueError('late')", [""], ["1"]),
    "sys.exit after output": S("import sys\nprint(1)\nsys.exit(0)", [""], ["1"]),
    "sys.exit(1) after output": S("import sys\nprint(1)\nsys.exit(1)", [""], ["1"]),
    "exit() builtin": S("print(1)\nexit()", [""], ["1"]),
    "timeout": S("while True:\n    pass", ["1"], ["1"], 1),
    "huge output": S("print('x' * 10**7)", [""], ["x"]),
    "stdin read": S("import sys\nprint(sum(map(int, sys.stdin.read().split())))", ["1 2\n3"], ["6"]),
    "stdin readline": S("import sys\nn = int(sys.stdin.readline())\nprint(n * 2)", ["21\n"], ["42"]),
    "stdin readline keeps no newline": S("import sys\nprint(repr(sys.stdin.readline()))", ["ab\ncd"], ["'ab'"]),
    "stdin iteration": S("import sys\nprint(sum(int(l) for l in sys.stdin))", ["1\n2\n3"], ["6"]),
    "open(0)": S("print(open(0).read().split()[1])", ["a b"], ["b"]),
    "main guard last": S("def main():\n    print(int(input()) + 1)\n\nif __name__ == '__main__':\n    main()", ["1"], ["2"]),
    "prelude names without import": S("print(int(sqrt(16)))", [""], ["4"]),
    "list input": S("print(input())", [["a", "b"]], ["a"]),
    "input past end": S("input()\ninput()\nprint(1)", ["only"], ["1"]),
    "syntax error": S("print(1", [""], ["1"]),
    "list output lines": S("print(1)\nprint(2)", [""], [["1", "2"]]),
    "functional add": F("def add(a, b):\n    return a + b", "add", ["1\n2", "5\n-5"], ["3", "0"]),
    "functional starter class": F("class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return (seen[target - x], i)\n            seen[x] = i", "twoSum", ["[2, 7, 11, 15]\n9"], ["[0, 1]"]),
    "functional wrong": F("def add(a, b):\n    return a - b", "add", ["1\n2"], ["3"]),
    "functional result is first of list": F("def f(x):\n    return [x, x]", "f", ["1"], ["[[1, 1]]"]),
    "functional float exact only": F("def f(x):\n    return 0.1 + 0.2", "f", ["0"], ["0.3"]),
    "functional exception": F("def f(x):\n    return 1 // x", "f", ["0"], ["1"]),
    "functional timeout": F("def f(x):\n    while True:\n        pass", "f", ["1"], ["1"], 1),
    "functional missing name": F("def g(x):\n    return x", "f", ["1"], ["1"]),
    "functional int dict keys": F("def f(x):\n    return {1: x}", "f", ["\"a\""], ["{\"1\": \"a\"}"]),
    "functional tuple list": F("def f(x):\n    return [(1, 2), (3, 4)]", "f", ["0"], ["[[[1, 2], [3, 4]]]"]),
    "functional no-argument input": F("def f():\n    return 1", "f", [""], ["1"]),
    "functional tuple result": F("def f(x):\n    return (x, x)", "f", ["2"], ["[2, 2]"]),
}


def verdict(case):
    tests = case["tests"]
    n = len(tests["inputs"])
    sample = {"input_output": json.dumps(tests)}
    with tempfile.TemporaryDirectory() as d:
        files = {
            "testing_util.py": lcb.TEST_UTIL,
            "code.py": case["code"],
            "test_cases.txt": json.dumps(sample),
            "run.py": lcb.TEST_CODE % {"timeout": case["timeout"]},
        }
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        try:
            r = subprocess.run([sys.executable, "run.py"], cwd=d, capture_output=True, timeout=(case["timeout"] + 1) * n + 5)
        except subprocess.TimeoutExpired:
            return False
        return r.returncode == 0


out = []
for name, case in CASES.items():
    passed = verdict(case)
    print(f"{'PASS' if passed else 'fail'}  {name}")
    out.append({"name": name, **case, "passed": passed})
target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "__fixtures__", "grading-cases.json")
with open(target + ".tmp", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
os.replace(target + ".tmp", target)
