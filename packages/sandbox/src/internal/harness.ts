/**
 * The grading harness that runs inside the sandbox: a Python program with the LiveCodeBench / APPS `run_test`
 * semantics that upstream's code RL grades with (written anew here, checked against upstream's harness by
 * `grading.test.ts` on cases whose verdicts upstream's harness gave: `scripts/make-grading-fixture.py`).
 *
 * It reads `tests.json` (`{inputs, outputs, fn_name?}`) and `solution.py`, runs every test in-process with a
 * per-test alarm of `timeout` seconds, and exits 0 only when every test passes; otherwise it prints one JSON line
 * (`{"verdict": …, "test": i, …}`) and exits 1.
 *
 * - stdin/stdout tests: the program runs as `__main__` with `sys.stdin` a text buffer holding the test's input, its
 *   printed output captured (as upstream: `sys.stdout.buffer`, `open(0)` do not see the test). It passes
 *   when the output matches by upstream's chain of checks: the whole text or its stripped lines equal the expected
 *   text stripped; or the non-empty lines equal the expected non-empty lines stripped; or, unless every pair is
 *   integers, every line is a float and they agree within `allclose` (rtol 1e-5, atol 1e-8).
 * - functional tests (`fn_name`): the program is loaded once (an instance of `Solution` when it defines one), each
 *   input is JSON lines (one per argument), and the result (a tuple as a list) must equal the expected JSON value, or
 *   its first element when that is a list.
 * - like upstream, the program sees the same star-imports of the standard library first, `exit`/`quit` and the
 *   destructive `os` / `shutil` / `subprocess` functions are disabled, and SystemExit ends a program normally.
 *
 * Deliberate difference: upstream runs a stdin program as the body of a function (so a `__main__` guard that is not
 * its last statement never runs); here it runs as a module, so every guard runs.
 */
export const HARNESS_PY = String.raw`
import builtins, io, json, signal, sys

STAR = ["string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
        "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing"]
PRELUDE = "".join("from %s import *\n" % m for m in STAR) + "".join(
    "import %s\n" % m for m in STAR if m not in ("builtins", "typing")) + "sys.setrecursionlimit(6*10**5)\n"


class Alarm(Exception):
    pass


def on_alarm(signum, frame):
    raise Alarm()


def disable():
    import os, shutil, subprocess
    builtins.exit = None
    builtins.quit = None
    for name in ["kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"]:
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    for name in ["ipdb", "joblib", "resource", "psutil", "tkinter"]:
        sys.modules[name] = None


def is_int(v):
    return isinstance(v, int) or (isinstance(v, str) and v.isdigit())


def close(a, b):
    return a == b or abs(a - b) <= 1e-8 + 1e-5 * abs(b)


def stdout_matches(text, expected):
    lines = text.splitlines()
    want = expected.strip()
    if "\n".join(lines).strip() == want or "\n".join(x.strip() for x in lines).strip() == want:
        return True
    if lines == [expected]:
        return True
    exp = [x.strip() for x in expected.split("\n") if x]
    got = [x for x in lines if x]
    if lines == exp or got == exp:
        return True
    if not all(is_int(a) and is_int(b) for a, b in zip(got, exp)):
        try:
            fg = [float(x) for x in got]
            fe = [float(x) for x in exp]
        except (ValueError, TypeError):
            return False
        return len(fg) == len(fe) and all(close(a, b) for a, b in zip(fg, fe))
    return False


def int_keys(d):
    return {int(k): v for k, v in d.items()}


def values_match(got, want):
    if isinstance(got, tuple):
        got = list(got)
    if got == want:
        return True
    if isinstance(want, list) and want and got == want[0]:
        return True
    try:
        if isinstance(got[0], tuple) and [list(x) for x in got] == want[0]:
            return True
    except Exception:
        pass
    return False


def fail(verdict, test, **extra):
    print(json.dumps(dict(verdict=verdict, test=test, **extra))[:2000])
    sys.stdout.flush()
    sys.exit(1)


def main():
    timeout = int(sys.argv[1])
    with open("tests.json") as f:
        spec = json.load(f)
    with open("solution.py") as f:
        code = f.read()
    real_stdout = sys.stdout
    signal.signal(signal.SIGALRM, on_alarm)
    disable()
    fn_name = spec.get("fn_name")
    inputs, outputs = spec["inputs"], spec["outputs"]
    if fn_name is not None:
        ns = {"__name__": "solution"}
        signal.alarm(timeout)
        try:
            exec(compile(PRELUDE + code, "solution.py", "exec"), ns)
            target = ns["Solution"]() if "class Solution" in code else None
            method = getattr(target, fn_name) if target is not None else ns[fn_name]
        except BaseException as e:
            signal.alarm(0)
            fail("Compilation Error", -1, error=repr(e))
        signal.alarm(0)
        for i, (raw_in, raw_out) in enumerate(zip(inputs, outputs)):
            args = [json.loads(line) for line in raw_in.split("\n")]
            want = json.loads(raw_out)
            try:
                if isinstance(args[0], dict):
                    args = [int_keys(args[0])]
            except Exception:
                pass
            try:
                if isinstance(want, dict):
                    want = [int_keys(want)]
                elif isinstance(want[0], dict):
                    want = [int_keys(want[0])]
            except Exception:
                pass
            signal.alarm(timeout)
            try:
                got = method(*args)
                signal.alarm(0)
            except Alarm as e:
                fail("Time Limit Exceeded", i)
            except BaseException as e:
                signal.alarm(0)
                fail("Runtime Error", i, error=repr(e)[:300])
            if not values_match(got, want):
                fail("Wrong Answer", i, got=repr(got)[:200])
        return
    try:
        compiled = compile(PRELUDE + code, "solution.py", "exec")
    except BaseException as e:
        fail("Compilation Error", -1, error=repr(e))
    for i, (raw_in, raw_out) in enumerate(zip(inputs, outputs)):
        if not isinstance(raw_in, str) or not isinstance(raw_out, str):
            fail("Runtime Error", i, error="a test input or output is not a string")
        expected = raw_out
        captured = io.StringIO()
        sys.stdin = io.StringIO(raw_in)
        sys.stdout = captured
        verdict = None
        signal.alarm(timeout)
        try:
            exec(compiled, {"__name__": "__main__"})
        except SystemExit:
            pass
        except Alarm:
            verdict = "Time Limit Exceeded"
        except BaseException as e:
            verdict = "Runtime Error"
            err = repr(e)[:300]
        finally:
            signal.alarm(0)
            sys.stdout = real_stdout
        if verdict == "Time Limit Exceeded":
            fail(verdict, i)
        if verdict is not None:
            fail(verdict, i, error=err)
        if not stdout_matches(captured.getvalue(), expected):
            fail("Wrong Answer", i, got=captured.getvalue()[:200])


main()
`;
