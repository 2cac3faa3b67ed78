#!/usr/bin/env python3
"""tests/lint-checks.py: find shell-test checks that cannot fail as they should.

In `check "DESC" [ A ] && [ B ]` the shell runs `check "DESC" [ A ]`, and
`[ B ]` after it: check passes or fails on A alone, and B's failure is
dropped (check itself returns 0).  The form that checks all of them is

    { [ A ] && [ B ]; }
    check_status $? "DESC"

and check_status must be given the status, `$?`, first: the tests run
under bash, which sets $? to the status of each command substitution it
expands, so a check_status that read $? itself saw the description's
"$(cat "$err")" succeed, not the conditions fail.

Usage: lint-checks.py DIR [--fix]: lists each such check and each
check_status without `$?` in DIR/*.test (FILE:LINE: DESC) and exits 1
when there is one; --fix rewrites them into the form above and exits 0.  `check D1 X && check D2 Y` is not one (both
are checks).  The shell is read well enough for our tests: quotes, $( ),
( ), backslashes and comments; not here-documents.
"""
import glob
import re
import sys


def top_level(s):
    """Yield (index, open) for each character of s that is outside quotes,
    $( ), ( ) and comments; at the end (len(s), open), open being whether a
    quote is left open (the statement goes on to the next line)."""
    quote = None
    depth = 0
    k = 0
    while k < len(s):
        c = s[k]
        if quote == "'":
            quote = None if c == "'" else quote
        elif quote == '"':
            if c == "\\":
                k += 1
            elif c == '"':
                quote = None
            elif s.startswith("$(", k):
                depth += 1
                k += 1
            elif c == ")" and depth > 0:
                depth -= 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            k += 1
        elif c == "(":
            depth += 1
        elif c == ")" and depth > 0:
            depth -= 1
        elif c == "#" and depth == 0 and (k == 0 or s[k - 1] in " \t\n"):
            end = s.find("\n", k)
            if end < 0:
                break
            k = end
            continue
        elif depth == 0:
            yield k, False
        k += 1
    yield len(s), quote is not None


def operators(s):
    """The indexes of s's top-level && and ||, and whether a quote is open."""
    ops, prev = [], None
    is_open = False
    for k, is_open in top_level(s):
        if prev == k - 1 and s[prev:k + 1] in ("&&", "||"):
            ops.append((prev, s[prev:k + 1]))
            prev = None
        else:
            prev = k
    return ops, is_open


def word_end(s):
    """The end of s's first shell word."""
    for k, _ in top_level(s):
        if k == len(s) or s[k] in " \t\n":
            return k
    return len(s)


def statement(lines, i):
    """The statement that starts at lines[i]: its text and last line."""
    j, text = i, lines[i]
    while j + 1 < len(lines):
        _, is_open = operators(text)
        tail = text.rstrip()
        if not (is_open or tail.endswith(("\\", "&&", "||", "|"))):
            break
        j += 1
        text += "\n" + lines[j]
    return text, j


def lost(text):
    """For a check statement whose later conditions are lost: (DESC, the
    conditions); else None."""
    ops, _ = operators(text)
    if not ops or ops[0][1] != "&&":
        return None
    after = text[ops[0][0] + 2:].lstrip(" \t\\\n")
    if re.match(r"check\s", after):
        return None
    body = text.lstrip()[len("check"):].lstrip(" \t")
    end = word_end(body)
    cond = body[end:].lstrip(" \t")
    if cond.startswith("\\\n"):
        cond = cond[2:].lstrip(" \t")
    return body[:end], cond.rstrip()


def lint(path, fix):
    """The lost checks of one file, rewritten when fix."""
    lines = open(path).read().split("\n")
    out, found, i = [], 0, 0
    while i < len(lines):
        m = re.match(r"^(\s*)check_status(\s+)(?!\$\?\s)(.*)$", lines[i])
        if m:
            found += 1
            print("%s:%d: check_status without $?: %s" %
                  (path, i + 1, m.group(3)[:50]))
            out.append(lines[i][:m.start(3)] + "$? " + m.group(3))
            i += 1
            continue
        m = re.match(r"^(\s*)check\s", lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        text, j = statement(lines, i)
        bad = lost(text)
        if bad is None:
            out.extend(lines[i:j + 1])
        else:
            found += 1
            desc, cond = bad
            print("%s:%d: %s" % (path, i + 1, desc[:70]))
            ind = m.group(1)
            group = ("{ %s; }" % cond if "\n" not in cond else
                     "{ %s\n%s}" % (cond, ind))
            out.extend((ind + group + "\n" + ind + "check_status $? " +
                        desc).split("\n"))
        i = j + 1
    if fix and found:
        with open(path, "w") as f:
            f.write("\n".join(out))
    return found


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--fix"]):
        sys.exit("usage: lint-checks.py DIR [--fix]")
    fix = sys.argv[2:] == ["--fix"]
    total = sum(lint(p, fix) for p in sorted(glob.glob(sys.argv[1] +
                                                       "/*.test")))
    print("%d found" % total)
    sys.exit(1 if total and not fix else 0)


main()
