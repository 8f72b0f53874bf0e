"""The project's house rules, checked on the source tree (in the spirit of
git's t/ checks on its own code): a rule written in CONVENTIONS.md that
nothing enforces is a wish.

  - rules judge: nothing in src/rules/ reads a file or starts a process;
  - nothing below src/commands/ writes to the terminal (stdio), apart from
    the child side of isolated probes, whose stdout is the key=value
    protocol (core/kv.h), and the parsers' own tests;
  - every header opens with what it is for ("name.h - purpose") and how it
    is used (a usage sketch, or the functions and types it offers named in
    that opening comment);
  - no comment cites a file outside the repository (the team's reference
    notes facts.md / failures.md, a path under /work or a home directory),
    which no reader of the repository has: cite the primary source;
  - the folders are layers, and no lower folder includes a higher one
    (LAYERS below: facts, then verdicts, then words, then the commands);
  - no include circles: no two source files call each other, directly or
    round a longer loop (read from the objects' symbols with nm: file A
    depends on file B when A uses a symbol B defines);
  - one shell-quote helper (core/shquote.c) and one terminal-escape helper
    (core/termesc.c): the quoting idiom ' -> '\\'' and the visible \\xNN
    escape appear in no other source file, except markdown's own escaping;
  - one verdict model (issue 22): no string literal equal to a catalogue id
    outside causes.def (code names causes by enum; bench is the listed
    debt, which may only shrink), no cause id compared as a string, and no
    severity decided outside report/ and the severity policy;
  - fixes are word lists (issue 22): no conversion (%s, %d, %.*s ...) in
    the format of finding_fix(), where a machine value would be pasted
    into a shell as code; a value goes in finding_fix_cmd()'s words, each
    quoted on its own, and FIX_SH (our own shell text, written as it is)
    is followed by a string literal only.  bench/ and burn/ are the listed
    debt, which may only shrink;
  - one declaration per NVIDIA library interface (issue 22): NVML's and the
    CUDA driver API's types, constants and entry-point tables live in one
    header each (probes/driver/nvml_api.h, probes/cuda/cuda_api.h), bound
    by its one function; cuDNN's and NCCL's in probes/libraries/
    (cudnn_api.h, nccl_api.h: the libversion probe and bench share them),
    cuBLAS's in the one bench file that uses it.  No other source file typedefs their types, defines their
    status constants or declares a pointer to one of their entry points,
    and none but the homes resolves an NVML, CUDA driver, cuDNN or NCCL
    entry point by name with dlsym (or a wrapper of it).
"""
import os
import re
import shutil
import subprocess
import unittest
from unittest.mock import ANY

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SRC = os.path.join(REPO, "src")


def sources(sub="", exts=(".c", ".h")):
    base = os.path.join(SRC, sub)
    for dirpath, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(dirpath, f)


def code_only(text):
    """The text with comments and string/char literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def calls(code, names):
    """(line, name) for every call of one of names in code."""
    pat = re.compile(r"(?<![\w.>])(" + "|".join(map(re.escape, names)) + r")\s*\(")
    return [(code.count("\n", 0, m.start()) + 1, m.group(1)) for m in pat.finditer(code)]


def rel(p):
    return os.path.relpath(p, REPO)


# Reading the machine or running something: libc and the project's own doors.
FILE_AND_PROCESS = [
    "open", "openat", "fopen", "freopen", "read", "pread", "fread", "fgets", "getline",
    "opendir", "readdir", "scandir", "stat", "lstat", "fstat", "access", "readlink",
    "realpath", "mmap", "popen", "system", "fork", "vfork", "execv", "execve", "execvp",
    "execl", "execlp", "posix_spawn", "dlopen", "getenv",
    "fs_path", "fs_read_file", "fs_read_line", "fs_list_dir", "fs_resolve", "fs_stat",
    "fs_lstat", "fs_exists", "fs_is_dir", "fs_readlink",
    "child_run_probe", "child_run_argv", "child_start_probe", "child_start_argv",
    "elf_open", "ldso_init", "ldso_resolve", "kb_open", "pyenv_discover",
]
STDIO = ["printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc",
         "putc", "perror", "fwrite", "dprintf", "vdprintf"]
# The child side of isolated probes: stdout is the key=value protocol to the parent.
STDIO_ALLOWED = {
    "src/core/kv.c",                # kv_emit/kv_end: the protocol itself
    "src/core/child.c",             # the forked child's stderr after a failed exec, read by the parent
    "src/core/xalloc.c",            # out of memory: the one message before abort()
    "src/probes/cuda/cuda_child.c", "src/probes/driver/nvml_child.c", "src/probes/libraries/libversion_child.c",
    "src/bench/bench_child.c", "src/bench/bench_gpu.c",
}


# The folders of src/ from the bottom up.  A file may include its own folder
# and the folders before it, never one after it.
LAYERS = [("core",), ("cfg",), ("loader",), ("knowledge",), ("python",),
          ("inventory",), ("probes",), ("report",), ("rules",), ("render",),
          ("bench",), ("engine",), ("plan",), ("explain",), ("health",), ("watch",), ("burn",), ("commands",)]

# Each NVIDIA interface's one home (issue 22), and the names that mark a
# declaration of it: its types, its status constants, its entry points (the
# last: the pattern of its symbol names, for look-ups by name; None for
# cuBLAS, which only bench calls, binding its struct's fields by their own
# names).  cuDNN's and NCCL's homes sit in probes/libraries/, below bench,
# because the libversion probe's child asks their versions too.
NVIDIA_DECLS = {
    "NVML": (("src/probes/driver/nvml_api.h", "src/probes/driver/nvml_api.c"),
             r"nvml[A-Za-z0-9_]*_t|nvmlDevice_st", r"NVML_(?:SUCCESS|ERROR_[A-Z_]+)\b", r"nvmlReturn_t",
             r"nvml[A-Z][A-Za-z0-9_]*"),
    "CUDA driver API": (("src/probes/cuda/cuda_api.h", "src/probes/cuda/cuda_api.c"),
                        r"CU(?:result|device|deviceptr|context|stream|event|module|function)|CU[a-z]+_st",
                        r"(?:GD_)?CUDA_(?:SUCCESS|ERROR_[A-Z_]+)\b", r"CUresult", r"cu[A-Z][A-Za-z0-9_]*"),
    "cuDNN": (("src/probes/libraries/cudnn_api.h", "src/probes/libraries/cudnn_api.c"), r"cudnn[A-Za-z0-9_]*_t",
              r"(?:GD_)?CUDNN_STATUS_[A-Z_]+\b", r"cudnnStatus_t", r"cudnn[A-Z][A-Za-z0-9_]*"),
    "cuBLAS": (("src/bench/bench_cuda.h", "src/bench/bench_cuda.c"), r"cublas[A-Za-z0-9_]*_t",
               r"(?:GD_)?CUBLAS_STATUS_[A-Z_]+\b", r"cublasStatus_t", None),
    "NCCL": (("src/probes/libraries/nccl_api.h", "src/probes/libraries/nccl_api.c"), r"nccl[A-Za-z0-9_]*_t|ncclComm\b",
             r"(?:GD_)?NCCL_(?:SUCCESS|ERROR_[A-Z_]+)\b", r"ncclResult_t", r"nccl[A-Z][A-Za-z0-9_]*"),
}


def nvidia_decls(code, types, consts, ret, fn):
    """The declarations of one interface in a file's code (comments and
    strings blanked): typedefs of its types (also a struct's closing
    "} name;"), #defines of its status constants, pointers to its entry
    points, and dlsym-style look-ups of them by name in the raw text."""
    found = []
    pats = [
        ("typedef", r"typedef\b[^;]*?\b(?:%s)\s*;|\}\s*(?:%s)\s*;" % (types, types)),
        ("constant", r"#\s*define\s+(?:%s)" % consts),
        ("entry-point pointer", r"\b%s\s*\(\s*\*" % ret),
    ]
    for what, pat in pats:
        found += [(what, m.group(0)) for m in re.finditer(pat, code)]
    return found


def nvidia_lookups(text, fn):
    if fn is None:
        return []
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    # an entry point's name given as a literal to dlsym, a wrapper of it
    # (bench_dl_sym, a local sym()) or a helper that calls it by name
    # (libversion's int_version_call(h, "ncclGetVersion") was one)
    return [("look-up by name", m.group(0))
            for m in re.finditer(r'\b\w*(?:sym|_call)\w*\s*\([^;()]*?"%s"' % fn, text)]


FIX_CONV = re.compile(r"%(?!%)[-+ #0'*]*[0-9*]*(?:\.[0-9*]*)?(?:hh|h|ll|l|j|z|t|L)?[diouxXeEfFgGaAcspn]")
# Debt: bench's and burn's judges still build fixes from formats (another
# branch converts them).  The number of calls may only go down.
FIX_FORMAT_DEBT = {}


def call_args(code, start):
    """The text between the parentheses of the call whose '(' is at start."""
    depth, i = 0, start
    while i < len(code):
        c = code[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < len(code) and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            i = j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return code[start + 1:i]
        i += 1
    return code[start + 1:]


def fix_format_conversions(text):
    """(line, format) for each finding_fix() call whose format has a conversion."""
    code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = []
    for m in re.finditer(r"(?<![\w.>])finding_fix\s*\(", code):
        args = call_args(code, m.end() - 1)
        # the format: every string literal of the second argument (a ternary
        # may choose between two)
        rest = args.split(",", 1)[1] if "," in args else ""
        fmt = "".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', _second_arg(rest)))
        if FIX_CONV.search(fmt.replace("%%", "")) or '"' not in _second_arg(rest):
            out.append((code.count("\n", 0, m.start()) + 1, re.sub(r"\s+", " ", args)[:90]))
    return out


def _second_arg(rest):
    """The second argument of a call: up to its first comma outside literals and parentheses."""
    depth, i = 0, 0
    while i < len(rest):
        c = rest[i]
        if c == '"':
            j = i + 1
            while j < len(rest) and rest[j] != '"':
                j += 2 if rest[j] == "\\" else 1
            i = j
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            return rest[:i]
        i += 1
    return rest


def fix_sh_values(text):
    """(line, text) for each FIX_SH not followed by a string literal."""
    code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return [(code.count("\n", 0, m.start()) + 1, m.group(0))
            for m in re.finditer(r'\bFIX_SH\s*,(?!\s*")[^,)]*', code)]


BUILD = os.environ.get("BUILD", os.path.join(REPO, "build"))
# Circles left to their owners (issue 22): remove an entry when its circle goes;
# the test fails on any other circle, and on an entry that is no circle any more.
KNOWN_CIRCLES = set()	# none left (watch's went with src/watch/selfstat.c)

MAX_LINES = 700
# Files over MAX_LINES left to split (issue 22): remove an entry when its file
# is split; the test fails on any other long file without a reason in its
# header, and on an entry that is no longer long.
KNOWN_LONG = set()	# none left (issue 22 split the seven)


def long_without_reason(paths, limit=MAX_LINES):
    """The files of paths over limit lines whose opening comment has no line
    "over 700 lines: <why>" (rel paths, sorted)."""
    bad = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        if text.count("\n") + (not text.endswith("\n") and text != "") <= limit:
            continue
        m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        if m and re.search(r"^[\s*]*over %d lines:\s*\S" % MAX_LINES, m.group(1), re.M):
            continue
        bad.append(rel(p))
    return sorted(bad)


def link_graph(objdir):
    """{file: {files whose symbols it uses}} over the objects under objdir
    (file = the source's path under src/ without its extension)."""
    defs, uses = {}, {}
    for dirpath, _, files in os.walk(objdir):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            o = os.path.join(dirpath, f)
            me = os.path.relpath(o, objdir)[:-2]
            out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
            uses[me] = set()
            for line in out.splitlines():
                w = line.split()
                if len(w) == 3 and w[1] in "TDBR":
                    defs[w[2]] = me
                elif len(w) == 2 and w[0] == "U":
                    uses[me].add(w[1])
    return {m: {defs[s] for s in u if s in defs and defs[s] != m} for m, u in uses.items()}


def upward_calls(graph, rank):
    """'a uses b' for each object a that uses a symbol of a folder above its own."""
    return sorted(f"{me} uses {other}" for me, uses in graph.items() for other in uses
                  if rank.get(other.split("/")[0], -1) > rank.get(me.split("/")[0], len(rank)))


def circles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return set(out)


class ProjectRules(unittest.TestCase):
    def test_kb_tables_in_step(self):
        """The five parallel lists of a knowledge-base table (CONVENTIONS.md,
        "Adding a knowledge-base table") agree in number and order."""
        kdir = os.path.join(SRC, "knowledge")
        kb_c = open(os.path.join(kdir, "kb.c"), encoding="utf-8").read()
        asm = open(os.path.join(kdir, "kb_data.S"), encoding="utf-8").read()
        internal = open(os.path.join(kdir, "kb_internal.h"), encoding="utf-8").read()

        def block(text, start):
            body = text[text.index(start) + len(start):]
            return code_only(body[:body.index("};")])

        files = re.findall(r'^KB_EMBED\((\w+), "src/knowledge/data/([\w.-]+)"\)', asm, re.M)
        names = re.findall(r'"([\w.-]+\.tsv)"', kb_c[kb_c.index("kb_table_names[KB_NTABLES] = {"):]
                           .split("};")[0])
        data = re.findall(r"\b(kb_data_\w+)", block(kb_c, "static const char *const data[KB_NTABLES] = {"))
        conv = re.findall(r"\b(kb_conv_\w+)", block(kb_c, "converters[KB_NTABLES])(struct conv *c) = {"))
        enum = re.findall(r"\b(KB_\w+)", block(internal, "enum kb_tab {"))
        on_disk = sorted(f for f in os.listdir(os.path.join(kdir, "data"))
                         if f.endswith(".tsv") and f not in ("explain.tsv", "noise.tsv"))
        self.assertEqual(sorted(f for _, f in files), on_disk, "data/*.tsv vs kb_data.S")
        self.assertEqual(names, [f for _, f in files], "kb_table_names[] vs kb_data.S order")
        self.assertEqual(data, [s for s, _ in files], "kb_embedded()'s data[] vs kb_data.S order")
        self.assertEqual(enum[-1], "KB_NTABLES")
        self.assertEqual(len(enum) - 1, len(files), "enum kb_tab vs the tables")
        self.assertEqual(len(conv), len(files), "converters[] vs the tables")
        for e, (_, f) in zip(enum, files):
            self.assertIn(e[3:].replace("_", "")[:4], f.replace("_", "").replace(".tsv", "").upper(),
                          f"enum {e} at the place of {f}")

    def test_no_file_over_700_lines_without_a_reason(self):
        found = set(long_without_reason(sources()))
        self.assertEqual(sorted(found - KNOWN_LONG), [],
                         f"files over {MAX_LINES} lines whose opening comment has no "
                         f"\"over {MAX_LINES} lines: <why>\" line: split them by job")
        self.assertEqual(sorted(KNOWN_LONG - found), [], "KNOWN_LONG lists a file that is short now")

    def test_the_long_file_check_can_fail(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            def mk(name, head, n):
                p = os.path.join(d, name)
                with open(p, "w", encoding="utf-8") as f:
                    f.write(head + "int x;\n" * (n - head.count("\n")))
                return p
            plain = "/*\n * a.c - something.\n */\n"
            why = "/*\n * b.c - something.\n * over 700 lines: one table, split it and nothing reads it.\n */\n"
            late = "/*\n * c.c - x.\n */\n/* over 700 lines: not in the opening comment */\n"
            empty = "/*\n * d.c - x.\n * over 700 lines:\n */\n"
            ps = [mk("a.c", plain, 701), mk("b.c", why, 900), mk("c.c", late, 800),
                  mk("d.c", empty, 800), mk("e.h", plain, 700)]
            got = [os.path.basename(x) for x in long_without_reason(ps)]
        self.assertEqual(got, ["a.c", "c.c", "d.c"])

    def test_no_include_circles(self):
        objdir = os.path.join(BUILD, "obj")
        if not os.path.isdir(objdir) or not shutil.which("nm"):
            self.skipTest(f"needs the objects of a build ({objdir}) and nm")
        graph = link_graph(objdir)
        self.assertGreater(len(graph), 100, "too few objects to judge")
        found = circles(graph)
        self.assertEqual(sorted(found - KNOWN_CIRCLES), [], "files that call each other")
        self.assertEqual(sorted(KNOWN_CIRCLES - found), [], "KNOWN_CIRCLES lists a circle that is gone")
        # the test sees a circle when there is one
        self.assertEqual(circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}), {("a", "b", "c")})

    def test_no_lower_folder_includes_a_higher_one(self):
        rank = {d: i for i, level in enumerate(LAYERS) for d in level}
        folders = sorted(d for d in os.listdir(SRC) if os.path.isdir(os.path.join(SRC, d)))
        self.assertEqual([d for d in folders if d not in rank], [],
                         "a new folder under src/ needs its place in LAYERS")
        bad = []
        for path in sources():
            me = os.path.relpath(path, SRC).split(os.sep)[0]
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
                    if m and m.group(1) in rank and rank[m.group(1)] > rank[me]:
                        bad.append("%s:%d includes %s/" % (rel(path), n, m.group(1)))
        self.assertEqual(bad, [], "\n".join(bad))


    def test_no_object_calls_a_higher_folder(self):
        """The layers hold at link time too: an object uses no symbol defined
        in a folder above its own (the inventory's release once called the
        cuda and libraries probes to kill their children)."""
        objdir = os.path.join(BUILD, "obj")
        if not os.path.isdir(objdir) or not shutil.which("nm"):
            self.skipTest(f"needs the objects of a build ({objdir}) and nm")
        rank = {d: i for i, level in enumerate(LAYERS) for d in level}
        graph = link_graph(objdir)
        self.assertGreater(len(graph), 100, "too few objects to judge")
        bad = upward_calls(graph, rank)
        self.assertEqual(bad, [], "\n".join(bad))
        # the test sees one: the inventory's release calling a probe
        self.assertEqual(upward_calls({"inventory/inventory": {"probes/cuda/cuda", "core/xalloc"},
                                       "probes/cuda/cuda": {"inventory/cuda"}}, rank),
                         ["inventory/inventory uses probes/cuda/cuda"])

    def test_inventory_is_pure_data(self):
        """No live child in the inventory: the engine (src/engine/) or the
        probe holds a started child, so releasing the inventory runs no probe
        code and kills nothing."""
        bad, n = [], 0
        for p in sources("inventory"):
            n += 1
            code = code_only(open(p, encoding="utf-8").read())
            for m in re.finditer(r"\bstruct\s+child\b", code):
                bad.append(f"{rel(p)}:{code.count(chr(10), 0, m.start()) + 1}: struct child")
            for m in re.finditer(r'#\s*include\s+"(probes|core/child\.h)', open(p, encoding="utf-8").read()):
                bad.append(f"{rel(p)}: includes {m.group(1)}")
        self.assertGreater(n, 5, "no inventory sources found: wrong directory?")
        self.assertEqual(bad, [], "the inventory is pure data:\n" + "\n".join(bad))
        # the check sees one
        self.assertTrue(re.search(r"\bstruct\s+child\b", code_only("struct child *pending;\n")))

    def test_rules_read_no_files_and_run_nothing(self):
        bad = []
        n = 0
        for p in sources("rules"):
            text = open(p, encoding="utf-8").read()
            n += 1
            for inc in re.findall(r'#include\s+"(core/(?:fs|child)\.h|loader/ldso\.h)"', text):
                bad.append(f"{rel(p)}: includes {inc}")
            for line, name in calls(code_only(text), FILE_AND_PROCESS):
                bad.append(f"{rel(p)}:{line}: calls {name}()")
        self.assertGreater(n, 5, "no rules found: wrong directory?")
        self.assertEqual(bad, [], "rules judge the inventory; probes read the machine:\n" +
                         "\n".join(bad))

    def test_no_stdio_below_commands(self):
        bad = []
        n = 0
        for p in sources():
            r = rel(p)
            if r.startswith("src/commands/") or r in STDIO_ALLOWED:
                continue
            n += 1
            code = code_only(open(p, encoding="utf-8").read())
            for line, name in calls(code, STDIO):
                # snprintf/vsnprintf into buffers are fine; only streams count
                bad.append(f"{r}:{line}: {name}()")
            for m in re.finditer(r"\b(stdout|stderr)\b", code):
                bad.append(f"{r}:{code.count(chr(10), 0, m.start()) + 1}: uses {m.group(1)}")
        self.assertGreater(n, 50)
        self.assertEqual(bad, [], "only commands/ talk to the terminal (errors are values, "
                         "core/err.h):\n" + "\n".join(bad))

    def test_headers_say_what_and_how(self):
        bad = []
        n = 0
        for p in sources(exts=(".h",)):
            n += 1
            name = os.path.basename(p)
            text = open(p, encoding="utf-8").read()
            m = re.match(r"/\*(.*?)\*/", text, re.S)
            if not m:
                bad.append(f"{rel(p)}: does not open with a comment")
                continue
            head = m.group(1)
            lines = [re.sub(r"^\s*\*?\s?", "", l) for l in head.split("\n")]
            lines = [l for l in lines if l.strip()]
            if not lines or not re.match(re.escape(name) + r" - \S", lines[0].strip()):
                bad.append(f"{rel(p)}: the first line is not \"{name} - what it is for\"")
                continue
            code = code_only(text)
            offered = set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", code))
            offered |= set(re.findall(r"\b(?:struct|enum)\s+([a-z_][a-z0-9_]*)", code))
            offered -= {"if", "for", "while", "switch", "return", "sizeof"}
            sketch = re.search(r"\n\s*\*\t", head) is not None
            named = any(re.search(r"\b" + re.escape(o) + r"\b", head) for o in offered)
            if not (sketch or named):
                bad.append(f"{rel(p)}: the opening comment shows no use (no sketch, "
                           f"names none of what it declares)")
        self.assertGreater(n, 50)
        self.assertEqual(bad, [], "\n".join(bad))

    def test_no_comment_cites_files_outside_the_repo(self):
        bad = []
        notes = r"/work/|\.gdtmp/|\.\./shared/|\b(?:facts|failures|operations|style)\.md\b"
        pat_doc = re.compile("(" + notes + ")")
        pat_code = re.compile("(" + notes + r"|/home/)")   # docs show /home/u/... as examples
        for p in list(sources()) + [os.path.join(REPO, "README.md")] + \
                [os.path.join(REPO, "docs", f) for f in os.listdir(os.path.join(REPO, "docs"))
                 if os.path.isfile(os.path.join(REPO, "docs", f))]:
            text = open(p, encoding="utf-8").read()
            if p.endswith((".c", ".h")):
                comments = "".join(m.group(0) for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, re.S))
            else:
                comments = text
            pat = pat_code if p.endswith((".c", ".h")) else pat_doc
            for m in pat.finditer(comments):
                line = comments[max(0, m.start() - 60):m.end() + 40].replace("\n", " ")
                bad.append(f"{rel(p)}: ...{line}...")
        self.assertEqual(bad, [], "\n".join(bad))

    def test_one_shell_quote_and_one_terminal_escape_helper(self):
        # The C spellings of the idioms, as they stand in a string literal:
        # ' -> '\'' (or '"'"'), and printf's "\\x%02x" for a byte.
        idioms = {
            "shell quoting (use shq()/shquote_buf(), core/shquote.h)":
                (re.compile(r"""'\\\\''|'\\"'\\"'"""), {"src/core/shquote.c"}),
            "terminal escaping (use tesc()/termesc_buf(), core/termesc.h)":
                (re.compile(r"\\\\x%0?2l?[xX]"),
                 {"src/core/termesc.c",
                  "src/render/render_markdown.c"}),   # markdown's own format: see its header
        }
        bad, seen = [], {what: 0 for what in idioms}
        for p in sources():
            r = rel(p)
            with open(p, encoding="utf-8") as f:
                text = f.read()
            for what, (pat, allowed) in idioms.items():
                for m in pat.finditer(text):
                    seen[what] += r in allowed
                    if r not in allowed:
                        bad.append(f"{r}:{text.count(chr(10), 0, m.start()) + 1}: a local {what}")
        # the helpers themselves must still be found, else the patterns are stale
        self.assertTrue(all(seen.values()), f"the idioms were not found in their helpers: {seen}")
        self.assertEqual(bad, [], "one helper for each, so a fix in it fixes every caller:\n" +
                         "\n".join(bad))

    def test_no_cause_id_as_a_string(self):
        # issue 22: health's reboot policy compared a cause with "xid-error",
        # an id nobody emits, and watch --ack with "gpu-xid-error": a string
        # compiles whatever it says.  Code names causes by enum (CAUSE_X),
        # their properties live in causes.def and cause_policy.def.
        with open(os.path.join(SRC, "knowledge", "causes.def"), encoding="utf-8") as f:
            ids = set(re.findall(r'^CAUSE\(\w+, "([a-z0-9-]+)"', f.read(), re.M))
        self.assertGreater(len(ids), 50)
        # No debt left: bench's children pass refusals as finding records
        # (report/finding_record.h), its judge compares enums (issue 22).
        debt = {}
        lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
        cmp_cause = re.compile(r'strn?cmp\s*\([^;]*?\bcause\w*\b[^;]*?"[a-z0-9]+(?:-[a-z0-9]+)+"'
                               r'|strn?cmp\s*\(\s*"[a-z0-9]+(?:-[a-z0-9]+)+"[^;]*?\bcause')
        bad = []
        for p in sources():
            r = rel(p)
            with open(p, encoding="utf-8") as f:
                text = f.read()
            # comments blanked, string literals kept
            code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
            found = [(code.count("\n", 0, m.start()) + 1, m.group(1))
                     for m in lit.finditer(code) if m.group(1) in ids]
            if len(found) > debt.get(r, 0):
                bad += [f"{r}:{ln}: \"{cid}\" (use CAUSE_{cid.upper().replace('-', '_')})"
                        for ln, cid in found]
            for m in cmp_cause.finditer(code if r not in debt else ""):
                bad.append(f"{r}:{code.count(chr(10), 0, m.start()) + 1}: a cause compared as a "
                           f"string: {m.group(0)[:80]}")
        self.assertEqual(bad, [], "\n".join(bad))

    def test_no_severity_decided_outside_the_policy(self):
        # A status is finding_status(cause, reach) (report/) through the
        # severity policy (knowledge/severity.c); commands do not pick warn or
        # fail, nor keep severity enums of their own (watch's enum wsev,
        # bench's enum bench_severity and health's string causes went in
        # issue 22).
        allowed_policy = {"src/report/report.c", "src/knowledge/severity.c", "src/knowledge/severity.h"}
        own_enums = re.compile(r"\benum\s+(wsev|bench_severity|health_severity)\b|\bWSEV_\w+")
        debt = set()
        pick = re.compile(r"(?:->|\.)(?:status|sev|severity)\s*=\s*(?:STATUS|SEV)_(?:WARN|FAIL)\b")
        bad = []
        for p in sources():
            r = rel(p)
            with open(p, encoding="utf-8") as f:
                code = code_only(f.read())
            ln = lambda m: code.count("\n", 0, m.start()) + 1
            if r not in allowed_policy:
                bad += [f"{r}:{line}: severity_status() outside the policy (use finding_status())"
                        for line, _ in calls(code, ["severity_status"])]
            if r not in debt:
                bad += [f"{r}:{ln(m)}: a severity enum of its own: {m.group(0)}"
                        for m in own_enums.finditer(code)]
            if not r.startswith("src/report/"):
                bad += [f"{r}:{ln(m)}: a status picked by hand: {m.group(0)}"
                        for m in pick.finditer(code)]
        self.assertEqual(bad, [], "\n".join(bad))

    def test_fixes_are_word_lists(self):
        # issue 22: "fixes as word lists".  A format conversion in a fix is a
        # machine value pasted into a shell; finding_fix_cmd() quotes each word.
        self.assertEqual(fix_format_conversions('finding_fix(f, "sudo rm %s", shq(p));'), [(1, ANY)])
        self.assertEqual(len(fix_format_conversions('finding_fix(f, x ? "a %d" : "b", n);')), 1)
        self.assertEqual(len(fix_format_conversions('finding_fix(f, "R%.*s", n, s);')), 1)
        self.assertEqual(len(fix_format_conversions('finding_fix(f, fix.s);')), 1)
        self.assertEqual(fix_format_conversions('finding_fix(f, "100%% sure, a, b");\n'
                                                 'finding_fix_cmd(f, "rm", p, NULL);\n'
                                                 'finding_fix(f, "x (y, z)");'), [])
        self.assertEqual(len(fix_sh_values('finding_fix_cmd(f, "a", FIX_SH, dir, NULL);')), 1)
        self.assertEqual(fix_sh_values('finding_fix_cmd(f, FIX_SH, "$(uname -r)", NULL);'), [])
        bad, debt_seen = [], {}
        for p in sources():
            r = rel(p)
            if r.startswith("src/report/"):     # the functions themselves
                continue
            with open(p, encoding="utf-8") as f:
                text = f.read()
            found = fix_format_conversions(text)
            debt_seen[r] = len(found)
            if len(found) > FIX_FORMAT_DEBT.get(r, 0):
                bad += [f"{r}:{ln}: finding_fix({args}) has a conversion (use finding_fix_cmd)"
                        for ln, args in found]
            bad += [f"{r}:{ln}: {t}: FIX_SH takes a string literal, never a value"
                    for ln, t in fix_sh_values(text)]
            # rules build every fix from words: no value quoted by hand into a string
            if r.startswith("src/rules/"):
                bad += [f"{r}:{ln}: shq() in a rule (use finding_fix_cmd's words)"
                        for ln, _ in calls(code_only(text), ["shq", "shquote_buf"])]
        self.assertEqual(bad, [], "fixes are word lists:\n" + "\n".join(bad))
        # the debt may only shrink: lower a number when a file is converted
        over = {r: n for r, n in FIX_FORMAT_DEBT.items() if debt_seen.get(r, 0) < n}
        self.assertEqual(over, {}, "the debt shrank: lower FIX_FORMAT_DEBT to match")

    def test_one_declaration_per_nvidia_interface(self):
        # the patterns see what they are for
        t, c, r, f = NVIDIA_DECLS["NVML"][1:]
        sample = code_only("typedef int nvmlReturn_t;\ntypedef struct nvmlDevice_st *nvmlDevice_t;\n"
                           "typedef struct {\n\tunsigned a;\n} nvmlMemory_t;\n#define NVML_SUCCESS 0\n"
                           "static nvmlReturn_t (*init)(void);\n")
        self.assertEqual([w for w, _ in nvidia_decls(sample, t, c, r, f)],
                         ["typedef", "typedef", "typedef", "constant", "entry-point pointer"])
        self.assertEqual(len(nvidia_lookups('bench_dl_sym(h, "nvmlInit_v2", &init)', f)), 1)
        self.assertEqual(nvidia_decls(code_only("nvmlDevice_t d; nv.init();\n"), t, c, r, f), [])
        bad, homes = [], {k: 0 for k in NVIDIA_DECLS}
        for p in sources():
            rp = rel(p)
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            code = code_only(text)
            for iface, (home, types, consts, ret, fn) in NVIDIA_DECLS.items():
                found = nvidia_decls(code, types, consts, ret, fn) + nvidia_lookups(text, fn)
                if rp in home:
                    homes[iface] += len(found)
                    continue
                bad += [f"{rp}: a {what} of {iface} ({m.strip()[:60]}): it belongs in {home[0]}"
                        for what, m in found]
        # each home still holds its declarations, else the patterns are stale
        self.assertEqual([k for k, n in homes.items() if n == 0], [], "homes without declarations")
        self.assertEqual(bad, [], "one declaration per NVIDIA interface:\n" + "\n".join(bad))


if __name__ == "__main__":
    unittest.main()
