#!/usr/bin/env python3
"""The shell examples of README.md, docs/*.md and docs/kdist.1.in.

What is an example (docs/testing.md, "Doc tests"):
  - in a fenced block, a line starting with "$ " is a command; the lines
    after it, up to the next "$ " line or the end of the block, are the
    output the doc claims for it;
  - in a ```sh block, every line that is not empty and not a comment is a
    command (no output shown);
  - in the man page, each line between .nf and .fi in EXAMPLES.
A line ending in "\\" continues on the next; in a ```sh block, a line
"VAR=$?" belongs to the command before it.  A trailing "# needs: WHAT"
(or "# ...; needs: WHAT") names a prerequisite the test host may lack:
the example is skipped with WHAT as the reason.
"""
import glob, os, re, sys


class Example:
    def __init__(self, path, line, cmd, output):
        self.path, self.line, self.cmd, self.output = path, line, cmd, output
        m = re.search(r'#.*\bneeds:\s*(.*)$', cmd)
        self.needs = m.group(1).strip() if m else None

    @property
    def where(self):
        return f"{os.path.relpath(self.path)}:{self.line}"


def _join(lines, i):
    """The command starting at lines[i], its continuations joined."""
    cmd = lines[i]
    while cmd.endswith('\\') and i + 1 < len(lines):
        i += 1
        cmd = cmd[:-1] + ' ' + lines[i].strip()
    return cmd, i


def from_markdown(path):
    out = []
    lines = open(path).read().split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^```(\S*)', lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        end = start
        while end < len(lines) and not lines[end].startswith('```'):
            end += 1
        block = lines[start:end]
        j = 0
        cur = None
        while j < len(block):
            line = block[j]
            if line.startswith('$ '):
                cmd, j2 = _join(block, j)
                cur = Example(path, start + j + 1, cmd[2:].strip(), [])
                out.append(cur)
                j = j2 + 1
                continue
            if lang == 'sh' and re.match(r'^\w+=\$\?', line) and out and out[-1].path == path:
                out[-1].cmd += '\n' + line  # status=$? belongs to the command before
                j += 1
                continue
            if lang == 'sh' and line.strip() and not line.lstrip().startswith('#'):
                cmd, j2 = _join(block, j)
                out.append(Example(path, start + j + 1, cmd.strip(), []))
                cur = None
                j = j2 + 1
                continue
            if cur is not None:
                cur.output.append(line)
            j += 1
        i = end + 1
    return out


def from_man(path):
    out = []
    lines = open(path).read().split('\n')
    try:
        sec = lines.index('.SH EXAMPLES')
    except ValueError:
        return out
    inside = False
    for n, line in enumerate(lines[sec + 1:], sec + 2):
        if line.startswith('.SH'):
            break
        if line == '.nf':
            inside = True
        elif line == '.fi':
            inside = False
        elif inside and line.strip():
            out.append(Example(path, n, line.replace('\\-', '-').replace('\\e', '\\'), []))
    return out


def all_examples(top):
    ex = from_markdown(os.path.join(top, 'README.md'))
    for p in sorted(glob.glob(os.path.join(top, 'docs', '*.md'))):
        ex += from_markdown(p)
    ex += from_man(os.path.join(top, 'docs', 'kdist.1.in'))
    return ex


if __name__ == '__main__':
    for e in all_examples(sys.argv[1] if len(sys.argv) > 1 else '.'):
        print(f"{e.where}: {e.cmd}" + (f"   [{len(e.output)} lines]" if e.output else ''))
