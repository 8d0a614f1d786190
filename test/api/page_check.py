#!/usr/bin/env python3
"""Judge pmemk's status page (net/api_page.html) as a browser draws it.

  test/api/page_check.py BASE_URL TOKEN OUTDIR [--expect-region DEV...]
                         [--expect-ns DEV[=MODE]...] [--expect-from FILE]
                         [--budget-ms N] [--timeout S] [--chromium PATH]

Runs one headless Chromium (Debian's /usr/bin/chromium, --headless=new, as
root: --no-sandbox; the API's certificate is self-signed:
--ignore-certificate-errors) on BASE_URL/#token=TOKEN for N ms of virtual
time (default 5000: the first refresh and two more, so rates show), with a
fresh profile in a temporary directory, which is also its $HOME (Chromium
puts crash reports and a dconf cache there whatever the profile) and is
removed afterwards. The same run writes OUTDIR/page.png (1280x900),
OUTDIR/page.html (the DOM as the scripts left it) and OUTDIR/chromium.log
(its stderr, the page's console lines among it). When it exits, or after S
seconds (default 60), its process group (every process it started) is
killed. Options go after the three positional arguments (--expect-ns takes
several values). One run takes about 1-1.5 s on a loaded 2-core machine.

Then it checks the DOM:
  - #status has data-state="ok" (the last refresh had no error);
  - for each --expect-region DEV: an element id="region-DEV" holding an
    <svg> with at least one <rect>;
  - for each --expect-ns DEV: an element id="ns-DEV" inside an <svg>,
    holding at least one <rect>, with a data-mode attribute (equal to MODE
    when DEV=MODE is given).
--expect-from FILE adds every region and namespace (with its mode) of an
ndctl-style JSON (what `list -RN` prints, a bare object or an array, or
{"regions": [...]}): e.g. the fixture the mock serves, or what the kernel's
/v1/regions answered.

Exit 0 with one "page_check: ok ..." line; 1 with one "page_check: FAIL: ..."
line per failure; 2 on a usage error.
"""
import argparse
import html.parser
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param',
        'source', 'track', 'wbr'}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids, self.text = tag, dict(attrs), parent, [], ''

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()

    def ancestors(self):
        n = self.parent
        while n:
            yield n
            n = n.parent


class Dom(html.parser.HTMLParser):
    """The dumped DOM as a tree of Nodes, and its elements by id."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node('#root', {}, None)
        self.ids = {}
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if n.attrs.get('id') is not None:
            self.ids.setdefault(n.attrs['id'], n)
        if tag not in VOID:
            self.cur = n

    def handle_endtag(self, tag):
        for n in [self.cur, *self.cur.ancestors()]:
            if n.tag == tag:        # close it and anything left open inside
                self.cur = n.parent or self.root
                return

    def handle_data(self, data):
        self.cur.text += data


def expectations_from(path):
    """(regions, {namespace: mode}) of an ndctl-style JSON file."""
    with open(path) as f:
        text = f.read()
    doc = json.loads(text) if text.strip() else []
    if isinstance(doc, dict) and 'regions' in doc:
        doc = doc['regions']
    as_list = lambda x: [] if x is None else x if isinstance(x, list) else [x]
    regions, nss = [], {}
    for r in as_list(doc):
        regions.append(r['dev'])
        for ns in as_list(r.get('namespaces')):
            nss[ns['dev']] = ns.get('mode')
    return regions, nss


def run_chromium(args, url, outdir):
    """Run Chromium once; (seconds taken, failure or None)."""
    profile = tempfile.mkdtemp(prefix='page_check-')
    cmd = [args.chromium, '--headless=new', '--no-sandbox', '--ignore-certificate-errors',
           '--disable-gpu', '--user-data-dir=' + profile, '--no-first-run',
           '--disable-extensions', '--disable-background-networking', '--disable-sync',
           '--enable-logging=stderr', '--v=0',     # the page's console lines go to chromium.log
           '--virtual-time-budget=%d' % args.budget_ms, '--window-size=1280,900',
           '--screenshot=' + os.path.join(outdir, 'page.png'), '--dump-dom', url]
    # its crash reports and dconf cache would go to $HOME whatever --user-data-dir says
    env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=os.path.join(profile, 'config'),
               XDG_CACHE_HOME=os.path.join(profile, 'cache'))
    t0 = time.monotonic()
    failure = 'chromium did not finish within %d s' % args.timeout
    with open(os.path.join(outdir, 'page.html'), 'w') as out, \
            open(os.path.join(outdir, 'chromium.log'), 'w') as err:
        # its own session: the group id is its pid, and takes every child along
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                             start_new_session=True)
        try:
            # wait without reaping: while it is a zombie its group id stays its own
            while time.monotonic() - t0 < args.timeout:
                if os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                    failure = None
                    break
                time.sleep(0.05)
            try:
                os.killpg(p.pid, signal.SIGKILL)    # leftovers of its group, or all on a timeout
            except ProcessLookupError:
                pass
            if p.wait() and not failure:
                failure = 'chromium exited with status %d (see %s)' % (
                    p.returncode, os.path.join(outdir, 'chromium.log'))
        finally:
            if p.returncode is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            shutil.rmtree(profile, ignore_errors=True)
    return time.monotonic() - t0, failure


def has_rect(n):
    return any(k.tag == 'rect' for k in n.walk())


def check(dom, regions, nss):
    fails = []
    st = dom.ids.get('status')
    if st is None:
        fails.append('no element id="status"')
    elif st.attrs.get('data-state') != 'ok':
        fails.append('status is %r, not ok: %s' % (st.attrs.get('data-state'), st.text.strip()))
    for dev in regions:
        n = dom.ids.get('region-' + dev)
        if n is None:
            fails.append('region %s: no element id="region-%s"' % (dev, dev))
        elif not any(k.tag == 'svg' and has_rect(k) for k in n.walk()):
            fails.append('region %s: no <svg> with a <rect> inside id="region-%s"' % (dev, dev))
    for dev, mode in nss.items():
        n = dom.ids.get('ns-' + dev)
        if n is None:
            fails.append('namespace %s: no element id="ns-%s"' % (dev, dev))
            continue
        if not any(a.tag == 'svg' for a in n.ancestors()) or not has_rect(n):
            fails.append('namespace %s: id="ns-%s" is not drawn in an <svg> (no <rect>)' % (dev, dev))
        got = n.attrs.get('data-mode')
        if not got or (mode and got != mode):
            fails.append('namespace %s: data-mode %r, expected %r' % (dev, got, mode or 'a mode'))
    return fails


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split('\n\n')[1])
    ap.add_argument('base_url')
    ap.add_argument('token')
    ap.add_argument('outdir')
    ap.add_argument('--expect-region', nargs='+', default=[], metavar='DEV')
    ap.add_argument('--expect-ns', nargs='+', default=[], metavar='DEV[=MODE]')
    ap.add_argument('--expect-from', metavar='FILE')
    ap.add_argument('--budget-ms', type=int, default=5000)
    ap.add_argument('--timeout', type=int, default=60)
    ap.add_argument('--chromium', default='/usr/bin/chromium')
    args = ap.parse_args()

    regions = list(args.expect_region)
    nss = dict((e.split('=', 1) + [None])[:2] for e in args.expect_ns)
    if args.expect_from:
        r, n = expectations_from(args.expect_from)
        regions += [d for d in r if d not in regions]
        nss.update({d: m for d, m in n.items() if d not in nss})
    if not regions and not nss:
        ap.error('nothing expected: give --expect-region, --expect-ns or --expect-from')
    os.makedirs(args.outdir, exist_ok=True)
    for name in ('page.png', 'page.html', 'chromium.log'):     # no stale result can pass
        if os.path.exists(os.path.join(args.outdir, name)):
            os.remove(os.path.join(args.outdir, name))
    url = args.base_url.rstrip('/') + '/#token=' + args.token

    secs, failure = run_chromium(args, url, args.outdir)
    fails = [failure] if failure else []
    with open(os.path.join(args.outdir, 'page.html'), errors='replace') as f:
        text = f.read()
    if not text.strip():
        fails.append('chromium dumped no DOM')
    else:
        fails += check(Dom(text), regions, nss)
    png = os.path.join(args.outdir, 'page.png')
    if not os.path.exists(png) or not os.path.getsize(png):
        fails.append('no screenshot at ' + png)
    for f in fails:
        print('page_check: FAIL: ' + f)
    if fails:
        return 1
    print('page_check: ok: %d regions, %d namespaces drawn, status ok (chromium %.1f s; %s)' % (
        len(regions), len(nss), secs, os.path.join(args.outdir, 'page.png')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
