#!/usr/bin/env python3
"""Split the collected corpus (pool/*.txt) into dev/ and test/ by thread.

A file's thread is its source URL without a #fragment; sha1(thread) decides:
first hex digit 0-7 -> dev (rules may be written from it), 8-f -> test
(held out: rules are never written from it).  Run once after collecting;
the split is reproducible and independent of file order.
"""
import hashlib
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def side(url):
    thread = url.split("#", 1)[0]
    return "dev" if hashlib.sha1(thread.encode()).hexdigest()[0] in "01234567" else "test"


def main():
    pool = os.path.join(HERE, "pool")
    for d in ("dev", "test"):
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
    for name in sorted(os.listdir(pool)):
        path = os.path.join(pool, name)
        url = open(path, encoding="utf-8").readline().split(": ", 1)[1].strip()
        shutil.move(path, os.path.join(HERE, side(url), name))
    os.rmdir(pool)


if __name__ == "__main__":
    main()
