"""checks.py - the tally the tests' scripts report with.

Each check prints "ok      WHAT" or "FAILED  WHAT: DETAIL"; a script ends
with one line "NAME: N passed, M failed" (summary()) and exits non-zero when
any check failed.
"""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        print(("ok      " if ok else "FAILED  ") + what + ("" if ok or not detail else ": " + detail))
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def summary(self, name):
        print("%s: %d passed, %d failed" % (name, self.passed, self.failed))
        return 1 if self.failed else 0
