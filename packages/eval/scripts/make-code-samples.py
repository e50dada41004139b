#!/usr/bin/env python3
"""Writes the offline samples of the code benchmarks: `data/native/mbpp.jsonl` and `data/native/livecodebench.jsonl`.

    python3 packages/eval/scripts/make-code-samples.py

The tasks are written for this project (not rows of the datasets), in each dataset's row format: MBPP sanitized
(`task_id`, `prompt`, `code`, `test_imports`, `test_list`) and LiveCodeBench `code_generation_lite`
(`question_content`, `starter_code`, `difficulty`, `public_test_cases` as a JSON string, `private_test_cases` as
LiveCodeBench publishes it: base64 of zlib-compressed pickled JSON, `metadata` as a JSON string with `func_name`).
Python's own pickle and zlib encode the private tests, so the TypeScript decoder is checked against the real format.
CI never runs this script. Generated with Python 3.11 (pickle protocol 4, zlib level 9).
"""

import base64
import json
import os
import pickle
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "native")


def private(cases):
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases), protocol=4), 9)).decode()


MBPP = [
    {
        "source_file": "cookbook-sample",
        "task_id": 9001,
        "prompt": "Write a function to return the number of vowels (a, e, i, o, u, either case) in a string.",
        "code": "def count_vowels(s):\n    return sum(1 for c in s.lower() if c in 'aeiou')",
        "test_imports": [],
        "test_list": [
            "assert count_vowels('Cookbook') == 4",
            "assert count_vowels('rhythm') == 0",
            "assert count_vowels('AEIOU and y') == 6",
        ],
    },
    {
        "source_file": "cookbook-sample",
        "task_id": 9002,
        "prompt": "Write a function to compute the distance between two points (x1, y1) and (x2, y2) in the plane.",
        "code": "import math\ndef point_distance(x1, y1, x2, y2):\n    return math.hypot(x2 - x1, y2 - y1)",
        "test_imports": ["import math"],
        "test_list": [
            "assert math.isclose(point_distance(0, 0, 3, 4), 5.0)",
            "assert math.isclose(point_distance(1, 1, 1, 1), 0.0)",
            "assert math.isclose(point_distance(-1, 2, 2, -2), 5.0)",
        ],
    },
    {
        "source_file": "cookbook-sample",
        "task_id": 9003,
        "prompt": "Write a function to merge two sorted lists into one sorted list.",
        "code": "def merge_sorted(a, b):\n    return sorted(a + b)",
        "test_imports": [],
        "test_list": [
            "assert merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]",
            "assert merge_sorted([], [5]) == [5]",
            "assert merge_sorted([2, 2], [2]) == [2, 2, 2]",
        ],
    },
]

STDIN_SUM = [
    {"input": "3\n4 -1 10\n", "output": "13\n", "testtype": "stdin"},
    {"input": "1\n7\n", "output": "7\n", "testtype": "stdin"},
]
STDIN_SUM_PRIVATE = [
    {"input": "5\n1 2 3 4 5\n", "output": "15\n", "testtype": "stdin"},
    {"input": "2\n-5 -6\n", "output": "-11\n", "testtype": "stdin"},
]
AVERAGE = [
    {"input": "2 3\n", "output": "2.5\n", "testtype": "stdin"},
    {"input": "1 2 2\n", "output": "1.6666666667\n", "testtype": "stdin"},
]
AVERAGE_PRIVATE = [{"input": "10\n", "output": "10.0\n", "testtype": "stdin"}]
LONGEST_RUN = [
    {"input": "[1, 1, 2, 2, 2, 3]", "output": "3", "testtype": "functional"},
    {"input": "[5]", "output": "1", "testtype": "functional"},
]
LONGEST_RUN_PRIVATE = [{"input": "[4, 4, 4, 4, 1, 4]", "output": "4", "testtype": "functional"}]

LCB = [
    {
        "question_title": "Sum of the Sequence",
        "question_content": "You are given N integers. Print their sum.\n\nInput\n\nThe first line holds N. The second "
        "line holds N integers separated by spaces.\n\nOutput\n\nPrint the sum.\n\nSample Input 1\n\n3\n4 -1 10\n\n"
        "Sample Output 1\n\n13\n",
        "platform": "atcoder",
        "question_id": "cookbook-1",
        "contest_id": "cookbook",
        "contest_date": "2025-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": json.dumps(STDIN_SUM),
        "private_test_cases": private(STDIN_SUM_PRIVATE),
        "metadata": "{}",
    },
    {
        "question_title": "Mean Value",
        "question_content": "Read integers from one line and print their mean. Answers within 1e-6 are accepted.\n\n"
        "Sample Input 1\n\n2 3\n\nSample Output 1\n\n2.5\n",
        "platform": "atcoder",
        "question_id": "cookbook-2",
        "contest_id": "cookbook",
        "contest_date": "2025-01-01T00:00:00",
        "starter_code": "",
        "difficulty": "medium",
        "public_test_cases": json.dumps(AVERAGE),
        "private_test_cases": private(AVERAGE_PRIVATE),
        "metadata": "{}",
    },
    {
        "question_title": "Longest Equal Run",
        "question_content": "Given an integer array nums, return the length of the longest block of consecutive "
        "equal elements.\n\nExample 1:\n\nInput: nums = [1,1,2,2,2,3]\nOutput: 3\n",
        "platform": "leetcode",
        "question_id": "cookbook-3",
        "contest_id": "cookbook",
        "contest_date": "2025-01-01T00:00:00",
        "starter_code": "class Solution:\n    def longestRun(self, nums: List[int]) -> int:\n        ",
        "difficulty": "easy",
        "public_test_cases": json.dumps(LONGEST_RUN),
        "private_test_cases": private(LONGEST_RUN_PRIVATE),
        "metadata": json.dumps({"func_name": "longestRun"}),
    },
]


def write(name, rows):
    path = os.path.join(OUT, name)
    with open(path + ".tmp", "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)


write("mbpp.jsonl", MBPP)
write("livecodebench.jsonl", LCB)
print("wrote", len(MBPP), "MBPP and", len(LCB), "LiveCodeBench rows")
