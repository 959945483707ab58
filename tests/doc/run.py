#!/usr/bin/env python3
"""Doc tests: run every shell example of the docs (tests/doc/examples.py
says what an example is) and check that it does what the doc shows.

Each example runs in a scratch folder that links the repository's build/,
tests/, bench/ and contrib/ and holds the files the examples read, with
build/ first on PATH, after the substitutions of tests/doc/placeholders.
It gets DEADLINE seconds (with a workload, -c or --, WORKLOAD_DEADLINE), then SIGINT (Ctrl-C, which ends a measurement
and prints it), then SIGKILL 10 s later (a failure).  It passes when:
  - the exit status is 2 if the doc shows an error line ("kdist: bad ...")
    and 0 otherwise (diff --fail-on: 0 or 1), and no error line is printed that the doc does not show;
  - it printed something (on stdout, or into its --output FILE);
  - every line of the output the doc shows that has a recognisable shape
    (a histogram header, a stats line, a CSV header, a table header, the
    lost/unmatched lines, a JSON object's first member, an event line, an
    error message) has a line of that shape in what it printed;
  - -o json on stdout parses as JSON (one document, or one per line).
"""
import json, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from examples import all_examples

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DEADLINE = float(os.environ.get('DOCTEST_DEADLINE', '2'))
WORKLOAD_DEADLINE = 20

# Examples the tier does not run, by their start, and why.  Everything
# else must run.
NOT_RUN = [
    ('make check', 'runs this tier itself'),
    ('make && sudo make install', 'installs into the system; cli.test.sh installs into a DESTDIR'),
    ('scripts/deps.sh', 'installs packages; make check ran it before this tier'),
    ('bench/', 'a benchmark of minutes: make bench runs it'),
    ('FUNC_BENCH_PARTS=', 'a benchmark of minutes: make bench runs it'),
    ('UPROBE_BENCH_', 'a benchmark of minutes: make bench runs it'),
    ('sudo BENCH_PARTS=', 'a benchmark of minutes: make bench runs it'),
    ('sudo flock /tmp/kdist-bpf.lock bench/', 'a benchmark of minutes: make bench runs it'),
]

# Shapes of output lines: (what, regex on the doc's line, how to find it
# in kdist's output: a regex, or None for the same text).
SHAPES = [
    ('error', r'^kdist: ', None),
    ('histogram header', r'^\s+\S+\s+: count\s+distribution', r'^\s+\S+\s+: count\s+distribution'),
    ('stats line', r'^count \d+\s+mean ', r'^count \d+\s+mean '),
    ('event count', r'^count \d+$', r'^count \d+$'),
    ('lost line', r'^lost: ', r'^lost: \d+ \('),
    ('unmatched line', r'^unmatched: ', r'^unmatched: \d+ \('),
    ('event line', r'^\d\d:\d\d:\d\d\.\d{6} ', r'^\d\d:\d\d:\d\d\.\d{6} '),
    ('interval title', r'^\[interval \d+', r'^\[interval \d+'),
    ('heatmap', r'^heatmap: ', r'^heatmap: '),
    ('groups left out', r'^\(\d+ more groups?, ', r'^\(\d+ more groups?, [\d.]+% of the events'),
    ('stack rank', r'^#\d+\s+\d+ ns', r'^#\d+\s+\d+ ns'),
    ('status line', r'^Tracing ', r'^Tracing '),
    ('comparison', r'^(BASE|NEW) ', None),
    ('fail-on verdict', r'^--fail-on ', None),
    ('exit status', r'^\d+$', None),
]


def placeholders():
    subs = []
    for line in open(os.path.join(TOP, 'tests', 'doc', 'placeholders')):
        line = line.rstrip('\n')
        if line and not line.startswith('#'):
            a, b = line.split('\t')
            subs.append((a, b))
    return subs


def csv_header(line):
    f = line.split(',')
    return len(f) > 2 and re.match(r'^[a-z]', line) and \
        not any(re.match(r'^-?[\d.]+$', x) for x in f) and ' ' not in line


def expected(line):
    """What a doc output line asks to find: (what, regex) or None."""
    s = line.rstrip()
    for what, doc_re, out_re in SHAPES:
        if re.match(doc_re, s):
            return what, out_re or '^' + re.escape(s) + '$'
    if csv_header(s):
        return 'CSV header', '^' + re.escape(s) + '$'
    m = re.match(r'^\{"(\w+)":("[^"]*"|\d+)', s)
    if m:
        return 'JSON object', '^' + re.escape(m.group(0))
    w = s.split()
    if len(w) >= 2 and all(re.match(r'^[A-Z][A-Z0-9]+$', x) for x in w[:2]):
        return 'table header', r'^\s*' + r'\s+'.join(map(re.escape, w[:2])) + r'\s'
    m = re.match(r'^([\w:]+) = \S', s)
    if m:
        return 'group title', '^' + re.escape(m.group(1)) + ' = '
    m = re.match(r'^(.* -> .*|event count: .*|value distribution: .*|func .*: calls.*|events of .*|off-CPU .*|run-queue .*|on-CPU .*), [\d.]+ (ns|us|ms|s)$', s)
    if m:
        return 'measurement title', '^' + re.escape(m.group(1)) + ', '
    return None


def setup(work, top):
    for d in ('build', 'tests', 'bench', 'contrib', 'docs'):
        os.symlink(os.path.join(top, d), os.path.join(work, d))
    for f in os.listdir(os.path.join(top, 'tests', 'host', 'diff')):
        shutil.copy(os.path.join(top, 'tests', 'host', 'diff', f), work)
    # the folded stacks diff.md compares: 200 and 240 samples
    with open(os.path.join(work, 'before.folded'), 'w') as f:
        f.write('main;work;a 50\nmain;work;b 50\nmain;idle 100\n')
    with open(os.path.join(work, 'after.folded'), 'w') as f:
        f.write('main;work;a 90\nmain;work;b 30\nmain;new 20\nmain;idle 100\n')
    with open(os.path.join(work, 'serve.conf'), 'w') as f:
        f.write('runq\nsyscalls\n')
    kd = os.path.join(top, 'build', 'kdist')
    wl = ['--', os.path.join(top, 'build', 'tests', 'syserr'), '100', '5']
    for name, cmd in (('syscalls.json', ['syscalls']), ('base.json', ['syscalls']),
                      ('new.json', ['syscalls']),
                      ('runq.json', ['pair', 'sched:sched_wakeup', 'sched:sched_switch', '--key', 'pid=next_pid'])):
        subprocess.run([kd] + cmd + ['-o', 'json', '--output', os.path.join(work, name)] + wl,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def run(cmd, work, env, deadline):
    p = subprocess.Popen(['bash', '-c', cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, errors='replace',
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=deadline)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT)
    try:
        out, err = p.communicate(timeout=10)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return p.returncode, out, err, True


def check(ex, cmd, rc, out, err, work):
    problems = []
    shown = [l for l in ex.output if l.strip() and l.strip() != '...']
    is_error = any(l.startswith('kdist: ') and not l.startswith('kdist: warning') for l in shown)
    want = 2 if is_error else 0
    # diff --fail-on exits 1 for a regression: a verdict, not a failure
    if rc != want and not (want == 0 and rc == 1 and '--fail-on' in cmd):
        problems.append(f'exit {rc}, the doc shows {"an error" if is_error else "a result"} (exit {want})')
    lines = (out + err).split('\n')
    for l in err.split('\n'):
        if re.match(r'^kdist: (bad|unknown|failed|no |error)', l) and l not in shown:
            problems.append(f'says: {l}')
            break
    m = re.search(r'--output (\S+)', cmd)
    if m and not is_error:
        path = os.path.join(work, m.group(1))
        if not os.path.exists(path) or not os.path.getsize(path):
            problems.append(f'--output {m.group(1)}: not written')
    elif re.match(r'(sudo )?kdist serve ', ex.cmd) and not is_error:
        if not re.search(r'^Serving \d+ measurements? on http', err, re.M):
            problems.append('serve did not say that it serves')
    elif not out.strip() and not is_error:
        problems.append('printed nothing on stdout')
    if re.search(r'^no events', out, re.M) and not any(l.startswith('no events') for l in shown):
        problems.append('recorded no events')
    for l in shown:
        e = expected(l)
        if e and not any(re.search(e[1], x) for x in lines):
            problems.append(f'no {e[0]} like the doc\'s: {l.strip()[:100]}')
    if re.search(r'-o json(\s|$)', cmd) and '--output' not in cmd and '|' not in cmd and out.strip():
        try:
            json.loads(out)
        except ValueError:
            try:
                [json.loads(x) for x in out.split('\n') if x.strip()]
            except ValueError as e:
                problems.append(f'-o json: not JSON: {e}')
    return problems


def main():
    filt = os.environ.get('TEST_FILTER', '')
    subs = placeholders()
    passed = failed = skipped = 0
    work = tempfile.mkdtemp(prefix='kdist-doc.')
    sleeper = None
    try:
        setup(work, TOP)
        sleeper = subprocess.Popen(['bash', '-c', 'while :; do sleep 0.05; done'])
        env = dict(os.environ, PATH=os.path.join(TOP, 'build') + ':' + os.environ['PATH'],
                   SLEEPER=str(sleeper.pid), CONF=os.path.join(work, 'serve.conf'))
        for ex in all_examples(TOP):
            name = f'{ex.where}: {ex.cmd[:90]}'
            if filt and filt not in name:
                continue
            why = ex.needs or next((w for s, w in NOT_RUN if ex.cmd.startswith(s)), None)
            if why:
                print(f'SKIP {name}: {why}')
                skipped += 1
                continue
            cmd = ex.cmd
            for a, b in subs:
                cmd = cmd.replace(a, b)
            if cmd.startswith('sudo '):	# the tier runs as root
                cmd = cmd[5:]
            t = time.monotonic()
            # a workload ends the measurement itself; the rest runs until Ctrl-C
            wl = re.search(r'(^| )(-c|--) ', cmd) or cmd.startswith('make ')
            rc, out, err, hung = run(cmd, TOP if cmd.startswith('make ') else work, env,
                                     WORKLOAD_DEADLINE if wl else DEADLINE)
            problems = ['did not end 10 s after SIGINT'] if hung else check(ex, cmd, rc, out, err, work)
            dt = time.monotonic() - t
            if problems:
                failed += 1
                print(f'FAIL {name} ({dt:.1f} s)\n     ran: {cmd}')
                for p in problems:
                    print(f'     {p}')
                for l in (err.strip().split('\n')[-3:] if err.strip() else []):
                    print(f'     stderr: {l[:160]}')
            else:
                passed += 1
                print(f'PASS {name} ({dt:.1f} s)')
    finally:
        if sleeper:
            sleeper.kill()
            sleeper.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f'\n{passed} passed, {failed} failed, {skipped} skipped')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
