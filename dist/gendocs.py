#!/usr/bin/env python3
"""gendocs.py - man pages and shell completions from gpudoctor's own --help.

    python3 dist/gendocs.py BINARY OUTDIR

writes OUTDIR/man/gpudoctor.1, OUTDIR/man/gpudoctor-<command>.1 for every
command that `gpudoctor --help` lists, and OUTDIR/completions/{gpudoctor.bash,
_gpudoctor, gpudoctor.fish}.  Nothing here names a command or an option: the
commands come from the command table (the "commands:" list of --help), the
options from each `gpudoctor COMMAND --help`, so a new command or option
shows up in the man pages and completions at the next build, and the two can
never say something --help does not.

The help format it reads (every command's --help follows it):
  - "usage: ..." lines first (continued by indented lines);
  - paragraphs of prose;
  - option blocks: lines "  -x, --name ARG   description", continued by
    lines indented deeper than the option;
  - "heading:" lines followed by indented lines (examples) or option lines.
An option's argument word says what to complete: DIR -> directories,
PATH/FILE -> files, a word with a value list -> those values, anything else
-> nothing.  A value list is a line at the margin of any --help,
"WORD: value, value, value." (check's "LAYER: hardware, kernel, ..."); the
words ID and CAUSE-ID take the cause ids of `gpudoctor explain --list-causes`.
A command whose usage names FILE or CAUSE-ID as an operand completes file
names or cause ids there.

Besides the pages of the commands, gpudoctor-causes(7) is the cause
catalogue (`explain --list-causes`, then `explain --json ID` for each), and
gpudoctor(1) gets the sections of dist/man-sections.txt (EXIT STATUS,
ENVIRONMENT, FILES, EXAMPLES).

SOURCE_DATE_EPOCH (reproducible builds) dates the pages.  GENDOCS_EXEC is a
prefix for running BINARY, for a cross build: GENDOCS_EXEC="qemu-aarch64 -L
/usr/aarch64-linux-gnu" (the help text does not depend on the architecture).
"""
import datetime
import json
import os
import re
import shlex
import subprocess
import sys

OPT_RE = re.compile(r"^ {1,4}(-[A-Za-z0-9](?:, |/))?(--?[A-Za-z0-9][-A-Za-z0-9]*)"
                    r"((?:[ =]\S+)*)(?:\s{2,}(.*))?$")


def runner(binary):
    return shlex.split(os.environ.get("GENDOCS_EXEC", "")) + [binary]


def run_help(binary, *args):
    p = subprocess.run(runner(binary) + list(args) + ["--help"], capture_output=True, text=True,
                       timeout=30, env=dict(os.environ, NO_COLOR="1"))
    if p.returncode != 0:
        raise SystemExit(f"gendocs: '{binary} {' '.join(args)} --help' exited {p.returncode}: {p.stderr}")
    return p.stdout


def version(binary):
    out = subprocess.run(runner(binary) + ["--version"], capture_output=True, text=True,
                         timeout=30).stdout
    return out.split()[-1] if out.split() else "unknown"


# Closed sets of argument values, by argument word (filled by main() from
# the --help texts' "WORD: a, b, c." lines and the cause catalogue).
VALUE_SETS = {}
VALUE_LINE = re.compile(r"^([A-Z][A-Z-]*): ([a-z0-9_.-]+(?:, [a-z0-9_.-]+)+)\.$")


def value_sets(text):
    return {m.group(1): m.group(2).split(", ") for m in
            (VALUE_LINE.match(line) for line in text.split("\n")) if m}


class Option:
    def __init__(self, short, name, arg, desc):
        self.short, self.name, self.arg, self.desc = short, name, arg, desc

    def arg_kind(self):
        a = (self.arg or "").strip("[]=")
        if " " in a:
            return "value"
        if not a:
            return None
        if a in VALUE_SETS:
            return "choice:" + "|".join(VALUE_SETS[a])
        if a in ("DIR",) or a.endswith("DIR"):
            return "dir"
        if a in ("PATH", "FILE") or a.endswith(("PATH", "FILE")):
            return "file"
        if "|" in a and a.islower():
            return "choice:" + a
        return "value"


class _Shared:
    """Several options sharing one description (continuation lines go to all)."""

    def __init__(self, opts):
        self.opts = opts

    @property
    def desc(self):
        return self.opts[0].desc

    @desc.setter
    def desc(self, value):
        for o in self.opts:
            o.desc = value


class Help:
    """One --help text, split into usage, prose blocks and options."""

    def __init__(self, text):
        self.usage, self.blocks, self.options = [], [], []
        lines = text.rstrip("\n").split("\n")
        i = 0
        while i < len(lines) and (lines[i].startswith("usage:") or
                                  (self.usage and lines[i].startswith(" ") and lines[i].strip())):
            first = lines[i].startswith("usage:")
            self.usage.append(lines[i][len("usage:"):].strip() if first else lines[i].strip())
            i += 1
        block = []
        for line in lines[i:] + [""]:
            if line.strip():
                block.append(line)
                continue
            if block:
                self._block(block)
                block = []

    def _block(self, block):
        heading = None
        if re.match(r"^[A-Za-z][^:]*:$", block[0]):
            heading, block = block[0][:-1], block[1:]
        opts, cur, n = [], None, 0
        for line in block:
            m = OPT_RE.match(line)
            if m and line.lstrip().startswith("-"):
                short = (m.group(1) or "").rstrip(", /") or None
                arg = (m.group(3) or "").strip() or None
                desc = (m.group(4) or "").strip()
                # "--tf V / --torch V / --jax V   the release": three options.
                alts = [a.strip() for a in arg.split(" / ")] if arg and " / -" in arg else []
                cur = Option(short, m.group(2), alts[0] if alts else arg, desc)
                opts.append(cur)
                for alt in alts[1:]:
                    name, _, alt_arg = alt.partition(" ")
                    opts.append(Option(None, name, alt_arg or None, desc))
                if alts:
                    # Continuation lines extend every alternative's description.
                    cur = _Shared(opts[-len(alts):])
            elif cur is not None and line.startswith("      ") and not line.lstrip().startswith("-"):
                cur.desc = (cur.desc + " " + line.strip()).strip()
            else:
                break
            n += 1
        rest = block[n:]
        if opts and rest and not rest[0].startswith(" "):
            # Options, then a note at the margin with no blank line between:
            # the note is a paragraph of its own.
            self.options += opts
            self.blocks.append(("options", heading, opts))
            self._block(rest)
            return
        if opts and not rest:
            self.options += opts
            self.blocks.append(("options", heading, opts))
        elif any(re.match(r"^ {1,4}-", line) for line in block):
            # An option line the parser cannot read would silently vanish
            # from the man page and the completions: stop the build instead.
            raise SystemExit("gendocs: cannot parse this option block of --help "
                             "(format: '  --name ARG   description', continuation lines "
                             "indented deeper):\n" + "\n".join(block))
        elif heading and all(line.startswith(" ") for line in block):
            self.blocks.append(("literal", heading, [line.strip() for line in block]))
        else:
            text = " ".join(line.strip() for line in block)
            self.blocks.append(("prose", heading, text))


def commands_of(top_help):
    """(name, summary) of every command the top-level --help lists."""
    out, inside = [], False
    for line in top_help.split("\n"):
        if line.strip() == "commands:":
            inside = True
            continue
        if inside:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s+(.*)$", line)
            if not m:
                break
            out.append((m.group(1), m.group(2).strip()))
    if not out:
        raise SystemExit("gendocs: no 'commands:' list in gpudoctor --help")
    return out


# ---- man pages ---------------------------------------------------------

def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line
                     for line in text.split("\n"))


def man_options(opts):
    out = []
    for o in opts:
        names = (f"\\fB{roff(o.short)}\\fR, " if o.short else "") + f"\\fB{roff(o.name)}\\fR"
        if o.arg:
            names += ("" if o.arg.startswith(("=", "[")) else " ") + f"\\fI{roff(o.arg)}\\fR"
        out += [".TP", names, roff(o.desc) if o.desc else ""]
    return out


def man_blocks(h, skip_first_prose=False):
    out, first = [], True
    for kind, heading, body in h.blocks:
        if heading:
            out += [f".SS {roff(heading.capitalize())}"]
        elif kind == "options" and not (out and out[-1].startswith(".SH OPTIONS")):
            out += [".SH OPTIONS"]
        if kind == "options":
            out += man_options(body)
        elif kind == "literal":
            out += [".PP", ".nf", ".RS 4"] + [roff(x) for x in body] + [".RE", ".fi"]
        else:
            if first and skip_first_prose:
                first = False
                continue
            out += [".PP", roff(body)]
        first = False
    return out


def man_header(name, section_date, ver, title):
    return [f'.TH {name.upper()} 1 "{section_date}" "gpudoctor {ver}" "{title}"',
            ".\\\" Generated by dist/gendocs.py from gpudoctor's --help: do not edit."]


def man_top(top, cmds, ver, date):
    h = Help(top)
    out = man_header("gpudoctor", date, ver, "User Commands")
    out += [".SH NAME", "gpudoctor \\- diagnose the NVIDIA GPU stack for deep learning",
            ".SH SYNOPSIS", ".B gpudoctor", "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR]",
            ".SH DESCRIPTION", ".PP",
            "gpudoctor verifies the chain a deep-learning job depends on, bottom-up: PCI",
            "device, kernel module, device nodes, driver libraries, CUDA driver API, CUDA",
            "runtime, cuDNN, cuBLAS, NCCL, framework builds.  Each command has its own",
            "page, listed under COMMANDS.",
            ".SH COMMANDS"]
    for name, summary in cmds:
        out += [".TP", f"\\fBgpudoctor\\-{roff(name)}\\fR(1)", roff(summary)]
    for kind, heading, body in h.blocks:
        if kind == "options":
            out += [f".SH {roff((heading or 'options').upper())}"] + man_options(body)
        elif kind == "prose" and heading != "commands":
            out += [".SH NOTES" if not heading else f".SH {roff(heading.upper())}", ".PP", roff(body)]
        elif kind == "literal" and heading and heading != "commands":
            # "exit status (every command):" becomes the page's EXIT STATUS section
            title = heading.split(" (")[0].upper()
            out += [f".SH {roff(title)}", ".PP", ".nf", ".RS 4"] + [roff(x) for x in body] + [".RE", ".fi"]
    out += man_sections()
    out += [".SH SEE ALSO"] + [", ".join([f"\\fBgpudoctor\\-{roff(n)}\\fR(1)" for n, _ in cmds] +
                                         ["\\fBgpudoctor\\-causes\\fR(7)"])]
    return "\n".join(out) + "\n"


SECTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "man-sections.txt")


def man_sections():
    """dist/man-sections.txt: "== HEADING" lines, then paragraphs; a line
    "  TERM" followed by deeper lines is a tagged paragraph, "$ cmd" an example."""
    out = []
    with open(SECTIONS) as f:
        lines = [x.rstrip("\n") for x in f if not x.startswith("#")]
    para = []

    def flush():
        if para:
            out.extend([".PP", roff(" ".join(para))])
            para.clear()
    for line in lines:
        if line.startswith("== "):
            flush()
            out.append(f".SH {roff(line[3:].strip())}")
        elif line.startswith("$ "):
            flush()
            out += [".PP", ".nf", ".RS 4", roff(line[2:]), ".RE", ".fi"]
        elif line.startswith("    ") and out and out[-1] != ".PP":
            out.append(roff(line.strip()))
        elif line.startswith("  ") and line.strip():
            flush()
            out += [".TP", f"\\fB{roff(line.strip())}\\fR"]
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
    flush()
    return out


def man_causes(binary, ids, ver, date):
    """gpudoctor-causes(7): every cause of the catalogue, from explain."""
    out = [f'.TH GPUDOCTOR-CAUSES 7 "{date}" "gpudoctor {ver}" "Miscellaneous"',
           ".\\\" Generated by dist/gendocs.py from gpudoctor explain: do not edit.",
           ".na", ".nh",  # URLs and paths: no justification or hyphenation warnings
           ".SH NAME", "gpudoctor\\-causes \\- the cause ids of gpudoctor's findings",
           ".SH DESCRIPTION", ".PP",
           "Every finding of \\fBgpudoctor\\fR(1) that is not ok names a cause id from this",
           "catalogue: what is wrong, why it breaks GPU work, how to verify it, the",
           "generic fix and the sources of the facts.  Ids are a public contract (alerts,",
           "drain reasons and scripts key on them): an id never changes meaning.",
           "\\fBgpudoctor explain\\fR \\fIID\\fR prints one entry.", ".SH CAUSES"]
    for cid in ids:
        p = subprocess.run(runner(binary) + ["explain", "--json", cid], capture_output=True, text=True,
                           timeout=30)
        try:
            d = json.loads(p.stdout)
        except ValueError:
            raise SystemExit(f"gendocs: 'explain --json {cid}' printed no JSON: {p.stderr}")
        out += [".TP", f"\\fB{roff(cid)}\\fR ({roff(d.get('layer') or '')})", roff(d.get("title") or "")]
        for key in ("why", "verify", "fix", "sources"):
            val = d.get(key)
            if isinstance(val, list):
                val = "; ".join(val)
            if val:
                # a long URL may break after a slash (\\: is an invisible break point)
                text = re.sub(r"\S{40,}", lambda m: re.sub(r"([/|])", r"\1\\:", m.group(0)), roff(val))
                out += [".RS", ".PP", f"\\fI{key}:\\fR {text}", ".RE"]
    out += [".SH SEE ALSO", "\\fBgpudoctor\\fR(1), \\fBgpudoctor\\-explain\\fR(1)"]
    return "\n".join(out) + "\n"


def man_command(name, summary, text, ver, date):
    h = Help(text)
    out = man_header(f"gpudoctor-{name}", date, ver, "User Commands")
    out += [".SH NAME", f"gpudoctor\\-{roff(name)} \\- {roff(summary)}", ".SH SYNOPSIS", ".nf"]
    out += [roff(u) for u in h.usage] + [".fi"]
    out += [".SH DESCRIPTION"]
    prose = [b for b in h.blocks if b[0] == "prose" and not b[1]]
    if not prose:
        out += [".PP", roff(summary)]
    out += man_blocks(h)
    out += [".SH GLOBAL OPTIONS", ".PP",
            "The global options of \\fBgpudoctor\\fR(1) (\\fB\\-\\-root\\fR, \\fB\\-\\-no\\-load\\fR,",
            "\\fB\\-\\-json\\fR, \\fB\\-\\-timeout\\fR ...) may come before or after the command name.",
            ".SH SEE ALSO", "\\fBgpudoctor\\fR(1)"]
    return "\n".join(out) + "\n"


# ---- completions -------------------------------------------------------

def words(opts):
    w = []
    for o in opts:
        w.append(o.name if not (o.arg or "").startswith("=") else o.name + "=")
        if o.short:
            w.append(o.short)
    return w


def operands(usage):
    """What a command's operands complete to, from its usage lines."""
    text = " ".join(usage)
    return ("CAUSE-ID" in text, bool(re.search(r"\bFILE\b", text)))


def bash(cmds, top_opts, per_cmd, usages):
    def case_args(opts):
        lines = []
        dirs = [o.name for o in opts if o.arg_kind() == "dir"]
        files = [o.name for o in opts if o.arg_kind() == "file"]
        vals = [o.name for o in opts if o.arg_kind() == "value"]
        for o in opts:
            kind = o.arg_kind()
            if kind and kind.startswith("choice:"):
                lines.append(f"\t\t{o.name}) COMPREPLY=($(compgen -W '{' '.join(kind[7:].split('|'))}'"
                             " -- \"$cur\")); return ;;")
        if dirs:
            lines.append(f"\t\t{'|'.join(dirs)}) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;")
        if files:
            lines.append(f"\t\t{'|'.join(files)}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;")
        if vals:
            lines.append(f"\t\t{'|'.join(vals)}) return ;;")
        return lines

    out = ["# bash completion for gpudoctor -*- shell-script -*-",
           "# Generated by dist/gendocs.py from gpudoctor's --help: do not edit.",
           "_gpudoctor()", "{",
           "\tlocal cur prev cmd i",
           "\tCOMPREPLY=()",
           "\tcur=${COMP_WORDS[COMP_CWORD]}",
           "\tprev=${COMP_WORDS[COMP_CWORD-1]}",
           "\tcmd=",
           "\tfor ((i = 1; i < COMP_CWORD; i++)); do",
           "\t\tcase ${COMP_WORDS[i]} in",
           f"\t\t{'|'.join(n for n, _ in cmds)}) cmd=${{COMP_WORDS[i]}}; break ;;",
           "\t\tesac",
           "\tdone",
           "\tcase $prev in"]
    out += case_args(top_opts)
    out += ["\tesac", "\tcase $cmd in"]
    for name, _ in cmds:
        opts = per_cmd[name]
        extra = case_args(opts)
        out.append(f"\t{name})")
        if extra:
            out += ["\t\tcase $prev in"] + ["\t" + x for x in extra] + ["\t\tesac"]
        ids, files = operands(usages[name])
        if ids or files:
            out.append("\t\tif [[ $cur != -* ]]; then")
            if ids:
                out.append(f"\t\t\tCOMPREPLY=($(compgen -W '{' '.join(VALUE_SETS.get('CAUSE-ID', []))}'"
                           " -- \"$cur\"))")
            if files:
                out.append("\t\t\tCOMPREPLY+=($(compgen -f -- \"$cur\"))")
            out.append("\t\t\treturn")
            out.append("\t\tfi")
        out.append(f"\t\tCOMPREPLY=($(compgen -W '{' '.join(words(opts + top_opts))}' -- \"$cur\"))")
        out.append("\t\t;;")
    out += ["\t*)",
            "\t\tif [[ $cur == -* ]]; then",
            f"\t\t\tCOMPREPLY=($(compgen -W '{' '.join(words(top_opts))}' -- \"$cur\"))",
            "\t\telse",
            f"\t\t\tCOMPREPLY=($(compgen -W '{' '.join(n for n, _ in cmds)}' -- \"$cur\"))",
            "\t\tfi",
            "\t\t;;",
            "\tesac",
            "}",
            "complete -F _gpudoctor gpudoctor", ""]
    return "\n".join(out)


def zsh_escape(s):
    return s.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]") \
            .replace(":", "\\:")


def zsh_spec(o):
    desc = zsh_escape(o.desc.split(". ")[0][:70]) if o.desc else ""
    kind = o.arg_kind()
    action = ""
    if kind == "dir":
        action = f":{o.arg.lower()}:_files -/"
    elif kind == "file":
        action = f":{o.arg.lower()}:_files"
    elif kind and kind.startswith("choice:"):
        action = f":{o.arg.strip('[]=').lower()}:({' '.join(kind[7:].split('|'))})"
    elif kind == "value":
        action = f":{o.arg.strip('[]=').lower()}: "
    name = o.name + ("=" if (o.arg or "").startswith("=") else "")
    specs = [f"'{name}[{desc}]{action}'"]
    if o.short:
        specs.append(f"'{o.short}[{desc}]{action}'")
    return specs


def zsh(cmds, top_opts, per_cmd, usages):
    out = ["#compdef gpudoctor",
           "# Generated by dist/gendocs.py from gpudoctor's --help: do not edit.",
           "", "_gpudoctor() {", "\tlocal -a global_opts commands",
           "\tglobal_opts=("]
    for o in top_opts:
        out += ["\t\t" + s for s in zsh_spec(o)]
    out += ["\t)", "\tcommands=("]
    for name, summary in cmds:
        out.append(f"\t\t'{name}:{zsh_escape(summary)}'")
    out += ["\t)",
            "\t_arguments -C $global_opts '1:command:->command' '*::arg:->args' && return",
            "\tcase $state in",
            "\tcommand) _describe -t commands 'gpudoctor command' commands ;;",
            "\targs)",
            "\t\tcase $words[1] in"]
    for name, _ in cmds:
        out.append(f"\t\t{name}) _arguments $global_opts \\")
        for o in per_cmd[name]:
            for s in zsh_spec(o):
                out.append(f"\t\t\t{s} \\")
        ids, _ = operands(usages[name])
        if ids:
            out.append("\t\t\t'*:cause id or file:_alternative \"ids:cause id:("
                       + " ".join(VALUE_SETS.get("CAUSE-ID", [])) + ")\" \"files:file:_files\"' ;;")
        else:
            out.append("\t\t\t'*:file:_files' ;;")
    out += ["\t\tesac ;;", "\tesac", "}", "", '_gpudoctor "$@"', ""]
    return "\n".join(out)


def fish_escape(s):
    return s.replace("\\", "\\\\").replace("'", "\\'")


def fish_line(o, cond):
    parts = ["complete -c gpudoctor", f"-n '{cond}'", f"-l {o.name.lstrip('-')}"]
    if o.short:
        parts.append(f"-s {o.short.lstrip('-')}")
    kind = o.arg_kind()
    if kind == "dir":
        parts.append("-r -a '(__fish_complete_directories)'")
    elif kind == "file":
        parts.append("-r -F")
    elif kind and kind.startswith("choice:"):
        parts.append(f"-x -a '{' '.join(kind[7:].split('|'))}'")
    elif kind == "value":
        parts.append("-x")
    if o.desc:
        parts.append(f"-d '{fish_escape(o.desc.split('. ')[0][:70])}'")
    return " ".join(parts)


def fish(cmds, top_opts, per_cmd, usages):
    names = " ".join(n for n, _ in cmds)
    out = ["# fish completion for gpudoctor",
           "# Generated by dist/gendocs.py from gpudoctor's --help: do not edit.",
           "complete -c gpudoctor -f"]
    for name, summary in cmds:
        out.append(f"complete -c gpudoctor -n 'not __fish_seen_subcommand_from {names}' "
                   f"-a {name} -d '{fish_escape(summary)}'")
    for o in top_opts:
        if o.name.lstrip("-") == "version" or o.name == "--help":
            cond = f"not __fish_seen_subcommand_from {names}"
        else:
            cond = "true"
        out.append(fish_line(o, cond))
    for name, _ in cmds:
        for o in per_cmd[name]:
            out.append(fish_line(o, f"__fish_seen_subcommand_from {name}"))
        ids, files = operands(usages[name])
        if ids:
            out.append(f"complete -c gpudoctor -n '__fish_seen_subcommand_from {name}' "
                       f"-a '{' '.join(VALUE_SETS.get('CAUSE-ID', []))}'")
        if files:
            out.append(f"complete -c gpudoctor -n '__fish_seen_subcommand_from {name}' -F")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: gendocs.py BINARY OUTDIR")
    binary, outdir = sys.argv[1], sys.argv[2]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)
    when = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc) if epoch else \
        datetime.datetime.now(datetime.timezone.utc)
    date = when.strftime("%Y-%m-%d")
    ver = version(binary)
    top = run_help(binary)
    cmds = commands_of(top)
    top_opts = Help(top).options
    per_cmd, texts, usages = {}, {}, {}
    VALUE_SETS.update(value_sets(top))
    # The catalogue comes from explain; a binary without explain has none.
    ids = []
    if "explain" in (n for n, _ in cmds):
        ids = [line.split()[0] for line in subprocess.run(
            runner(binary) + ["explain", "--list-causes"], capture_output=True, text=True,
            timeout=30).stdout.split("\n") if line.strip()]
        if len(ids) < 10:
            raise SystemExit("gendocs: 'explain --list-causes' listed no cause ids")
        VALUE_SETS["CAUSE-ID"] = VALUE_SETS["ID"] = ids
    for name, _ in cmds:
        VALUE_SETS.update(value_sets(run_help(binary, name)))
    for name, _ in cmds:
        texts[name] = run_help(binary, name)
        usages[name] = Help(texts[name]).usage
        # The global options are listed once, on gpudoctor(1); a command's
        # own -h/--help is implied.
        per_cmd[name] = [o for o in Help(texts[name]).options if o.name != "--help"]
    os.makedirs(os.path.join(outdir, "man"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "completions"), exist_ok=True)
    files = {os.path.join("man", "gpudoctor.1"): man_top(top, cmds, ver, date)}
    for name, summary in cmds:
        files[os.path.join("man", f"gpudoctor-{name}.1")] = \
            man_command(name, summary, texts[name], ver, date)
    if ids:
        files[os.path.join("man", "gpudoctor-causes.7")] = man_causes(binary, ids, ver, date)
    files[os.path.join("completions", "gpudoctor.bash")] = bash(cmds, top_opts, per_cmd, usages)
    files[os.path.join("completions", "_gpudoctor")] = zsh(cmds, top_opts, per_cmd, usages)
    files[os.path.join("completions", "gpudoctor.fish")] = fish(cmds, top_opts, per_cmd, usages)
    for rel, text in files.items():
        path = os.path.join(outdir, rel)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    print(f"gendocs: {len(cmds)} commands, {len(files)} files in {outdir}")


if __name__ == "__main__":
    main()
