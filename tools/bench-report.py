#!/usr/bin/env python3
"""Turn tools/bench's serial logs into results.csv, results.md and PNG plots.

usage: tools/bench-report.py DIR   (reads DIR/logs/<N>G-<fresh|written>.log, usable-written.log)

Every `bench: name=...` line becomes one CSV row; the Markdown tables pick
the medians of the `written` boot (the steady state) and, for bring-up, the
first repetition of the `fresh` boot (the host allocating a sparse file on
first touch); usable-written.log is the one boot with every size
(bench=usable, its rows `oneboot`, the size from each line). Plots need gnuplot (Debian
gnuplot-nox).
"""
import csv
import os
import re
import shutil
import subprocess
import sys

LINE = re.compile(r'^bench: name=(\S+) size=(\S+) mode=(\S+) metric=(\S+) median=(\S+) '
                  r'min=(\S+) max=(\S+) first=(\S+) unit=(\S+) n=(\d+)$')
LOG = re.compile(r'^(\d+)G-(fresh|written)\.log$')
FIELDS = ['size_gib', 'backing', 'name', 'mode', 'metric', 'median', 'min', 'max', 'first',
          'unit', 'n']


def read_logs(logdir):
    rows, meta = [], {}
    for f in sorted(os.listdir(logdir)):
        m = LOG.match(f)
        if f == 'usable-written.log':
            size, backing = None, 'oneboot'
        elif not m:
            continue
        else:
            size, backing = int(m.group(1)), m.group(2)
        with open(os.path.join(logdir, f), errors='replace') as fh:
            for line in fh:
                line = line.rstrip()
                if line.startswith('bench: begin') or line.startswith('bench: tsc_khz'):
                    meta.setdefault(line.split()[1].split('=')[0], line)
                m2 = LINE.match(line)
                if m2:
                    g = m2.groups()
                    line_size = size
                    if line_size is None:
                        if not g[1].endswith('G'):
                            continue
                        line_size = int(g[1][:-1])
                    rows.append({'size_gib': line_size, 'backing': backing, 'name': g[0],
                                 'mode': g[2], 'metric': g[3], 'median': float(g[4]),
                                 'min': float(g[5]), 'max': float(g[6]), 'first': float(g[7]),
                                 'unit': g[8], 'n': int(g[9])})
    rows.sort(key=lambda r: (r['size_gib'], r['backing'], r['mode'] != 'dev', r['name']))
    return rows, meta


class Index:
    def __init__(self, rows):
        self.d = {(r['size_gib'], r['backing'], r['name'], r['mode'], r['metric']): r
                  for r in rows}
        self.sizes = sorted({r['size_gib'] for r in rows})

    def get(self, size, name, mode, metric, backing='written', field='median'):
        r = self.d.get((size, backing, name, mode, metric))
        return None if r is None else r[field]


def fmt(v, digits=2):
    if v is None:
        return 'n/a'
    if v == 0:
        return '0'
    if abs(v) >= 100:
        return f'{v:,.0f}'
    return f'{v:.{digits}f}'


def fmt_bytes(v):
    if v is None:
        return 'n/a'
    for unit, div in (('GiB', 1 << 30), ('MiB', 1 << 20), ('KiB', 1 << 10)):
        if v >= div:
            return f'{v / div:.4g} {unit}'
    return f'{v:.0f} B'


def tables(ix, meta):
    out = []
    add = out.append
    add('Medians of the `written` boot (every byte the suite touches already '
        'written); "first, fresh" is the first repetition of the boot on a fresh '
        'sparse backing file. Ranges are min–max.\n')
    add('### Bring-up and memory cost\n')
    add('| pmem | map | bring-up GiB/s | bring-up ms (min–max) | first, fresh, ms | '
        'ns / struct page | struct page init GiB/s | store baseline GiB/s | init / baseline | '
        'teardown ms | RAM B/GiB (minimum) | pmem MiB/GiB (minimum) |')
    add('|---|---|---|---|---|---|---|---|---|---|---|---|')
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            g = lambda metric, **kw: ix.get(s, 'memmap', mode, metric, **kw)
            o = lambda metric: ix.get(s, 'overhead', mode, metric)
            init, fill = g('init'), g('fill')
            ratio = init / fill if init and fill else None
            ram, ram_min = o('ram_total'), o('ram_min')
            pm, pm_min = o('pmem_total'), o('pmem_min')
            add(f'| {s} GiB | {mode} | {fmt(g("bringup"))} | {fmt(g("bringup_time"))} '
                f'({fmt(g("bringup_time", field="min"))}–{fmt(g("bringup_time", field="max"))}) | '
                f'{fmt(g("bringup_time", backing="fresh", field="first"))} | '
                f'{fmt(g("ns_per_page"))} | {fmt(init)} | {fmt(fill)} | {fmt(ratio)} | '
                f'{fmt(g("teardown_time"))} | {fmt(ram, 0)} ({fmt(ram_min, 0)}) | '
                f'{fmt(pm / 2**20 if pm is not None else None)} '
                f'({fmt(pm_min / 2**20 if pm_min is not None else None)}) |')
    add('')
    add('### Deferred struct page init (`memmap_init=deferred`, the default)\n')
    add('Time from `create-namespace -f` starting to a usable block device, and to the '
        'last struct page ready (idle vCPUs and the bench CPU taking sections), next to '
        'the synchronous bring-up above (`memmap_init=sync`). Every struct page differs '
        'from what the media held (scrubbed first), as in the bring-up rows.\n')
    add('| pmem | map | usable ms (min–max) | of which memremap_pages ms | '
        'of which sections+vmemmap ms | every struct page ready ms (min–max) | '
        'sync bring-up ms | usable / sync |')
    add('|---|---|---|---|---|---|---|---|')
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            g = lambda metric, **kw: ix.get(s, 'memmap', mode, metric, **kw)
            u, r, b = g('usable_time'), g('ready_time'), g('bringup_time')
            if u is None:
                continue
            add(f'| {s} GiB | {mode} | {fmt(u, 3)} ({fmt(g("usable_time", field="min"), 3)}–'
                f'{fmt(g("usable_time", field="max"), 3)}) | {fmt(g("usable_memremap_time"), 3)} | '
                f'{fmt(g("usable_vmemmap_time"), 3)} | {fmt(r)} ({fmt(g("ready_time", field="min"))}–'
                f'{fmt(g("ready_time", field="max"))}) | {fmt(b)} | '
                f'{fmt(u / b if u is not None and b else None, 4)} |')
    add('')
    usable = [s for s in ix.sizes if ix.get(s, 'usable', 'dev', 'usable_time', backing='oneboot')]
    if usable:
        add('### Time to a usable map=dev device, every size in one boot (`bench=usable`)\n')
        add('One boot with an nvdimm of each size; within each repetition the sizes take '
            'turns, the order rotated (detach, then `create-namespace -f` with deferred '
            'init, timed to its return; then every struct page readied). The `written` '
            'boot of two: its media hold every struct page already, so nothing is '
            'stored. Every size is timed under the same emulator and host state.\n')
        add('| pmem | usable ms (min–max) | of which memremap_pages ms | '
            'of which sections+vmemmap ms | usable / smallest |')
        add('|---|---|---|---|---|')
        g0 = ix.get(usable[0], 'usable', 'dev', 'usable_time', backing='oneboot')
        for s in usable:
            g = lambda metric, **kw: ix.get(s, 'usable', 'dev', metric, backing='oneboot', **kw)
            u = g('usable_time')
            add(f'| {s} GiB | {fmt(u, 3)} ({fmt(g("usable_time", field="min"), 3)}–'
                f'{fmt(g("usable_time", field="max"), 3)}) | {fmt(g("usable_memremap_time"), 3)} | '
                f'{fmt(g("usable_vmemmap_time"), 3)} | {fmt(u / g0 if u and g0 else None)} |')
        add('')
    add('### Block I/O: GiB/s, and in parentheses the fraction of `memcpy` over the same '
        'buffers in the same guest\n')
    cols = [(d, p, r) for r in ('4k', '1m') for p in ('seq', 'rand') for d in ('read', 'write')]
    add('| pmem | map | ' + ' | '.join(f'{p} {d} {r.upper()}' for d, p, r in cols) + ' |')
    add('|---|---|' + '---|' * len(cols))
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            cells = []
            for d, p, r in cols:
                m = f'{d}_{p}_{r}'
                cells.append(f'{fmt(ix.get(s, "blk", mode, m))} '
                             f'({fmt(ix.get(s, "blk", mode, m + "_vs_memcpy"))})')
            add(f'| {s} GiB | {mode} | ' + ' | '.join(cells) + ' |')
    add('')
    add('Writes against the non-temporal copy (`arch_memcpy_flushcache` + one fence per '
        'pass, the fastest durable copy), same buffers:\n')
    wcols = [(p, r) for r in ('4k', '1m') for p in ('seq', 'rand')]
    add('| pmem | map | ' + ' | '.join(f'{p} write {r.upper()}' for p, r in wcols) +
        ' | memcpy seq write 1M GiB/s | NT seq write 1M GiB/s |')
    add('|---|---|' + '---|' * (len(wcols) + 2))
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            cells = [fmt(ix.get(s, 'blk', mode, f'write_{p}_{r}_vs_nt')) for p, r in wcols]
            cells.append(fmt(ix.get(s, 'blk', mode, 'write_seq_1m_memcpy')))
            cells.append(fmt(ix.get(s, 'blk', mode, 'write_seq_1m_nt')))
            add(f'| {s} GiB | {mode} | ' + ' | '.join(cells) + ' |')
    add('')
    add('### Machine-check-safe reads: block reads against a plain copy, same buffers\n')
    add('`pmem_rw` reads (the bad-block check, then the machine-check-safe copy) over a '
        'plain `memcpy` from the pmem\'s kernel address (what a read was before issue 29); '
        'split into the copy (`arch_copy_mc` over `memcpy`) and the check on a device with '
        'nothing listed (`nsio_read` over `arch_copy_mc` alone); and the block read while '
        'one bad sector is listed past the working set (over the read with none). '
        'Medians of the per-repetition ratios, 4K seq / 4K rand / 1M seq / 1M rand:\n')
    add('| pmem | map | block read / plain | copy_mc / plain | checked / copy_mc | '
        'one listed / none |')
    add('|---|---|---|---|---|---|')
    rcols = [(p, r) for r in ('4k', '1m') for p in ('seq', 'rand')]
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            cells = [' / '.join(fmt(ix.get(s, 'blk', mode, f'read_{p}_{r}{suffix}'))
                                for p, r in rcols)
                     for suffix in ('_vs_plain', '_copy_mc_vs_plain', '_checked_vs_copy_mc',
                                    '_listed_vs_clean')]
            add(f'| {s} GiB | {mode} | ' + ' | '.join(cells) + ' |')
    add('')
    add('### Sector mode (BTT): GiB/s, and in parentheses the fraction of the raw block '
        'device of the same namespace in the same boot\n')
    add('| pmem | device | ' + ' | '.join(f'{p} {d} {r.upper()}' for d, p, r in cols) + ' |')
    add('|---|---|' + '---|' * len(cols))
    for s in ix.sizes:
        for mode, label in (('raw', 'raw pmemN'), ('s4096', 'BTT 4096'), ('s512', 'BTT 512')):
            cells = []
            for d, p, r in cols:
                m = f'{d}_{p}_{r}'
                v = fmt(ix.get(s, 'btt', mode, m))
                cells.append(v if mode == 'raw' else
                             f'{v} ({fmt(ix.get(s, "btt", mode, m + "_vs_raw"))})')
            add(f'| {s} GiB | {label} | ' + ' | '.join(cells) + ' |')
    add('')
    add('### Reprobe (bringing an existing device back) and lookups\n')
    add('| pmem | map | at boot: ms | at boot: pmem written | reprobe ms | pmem written | '
        'Linux 6.1 way (rewrite): ms | pmem written | usable again, deferred init: ms | '
        'pfn_to_page ns | pfn_t_to_page ns | direct_access ns | kmap_pfn round trip ns |')
    add('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for s in ix.sizes:
        for mode in ('dev', 'mem'):
            g = lambda metric: ix.get(s, 'reprobe', mode, metric)
            lk = lambda metric: ix.get(s, 'lookup', mode, metric)
            rw_t = fmt(g('time_rewrite')) if mode == 'dev' else '–'
            rw_b = fmt_bytes(g('pmem_bytes_rewrite')) if mode == 'dev' else '–'
            boot_t = g('boot_time')
            add(f'| {s} GiB | {mode} | {fmt(boot_t) if boot_t is not None else "–"} | '
                f'{fmt_bytes(g("boot_pmem_bytes")) if boot_t is not None else "–"} | '
                f'{fmt(g("time"))} | {fmt_bytes(g("pmem_bytes"))} | {rw_t} | {rw_b} | '
                f'{fmt(g("usable_time"))} | {fmt(lk("pfn_to_page"))} | {fmt(lk("pfn_t_to_page"))} | '
                f'{fmt(lk("direct_access"))} | {fmt(lk("kmap_pfn"))} |')
    add('')
    return '\n'.join(out)


def environment(meta):
    def run(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ''
    cpu = ''
    try:
        with open('/proc/cpuinfo') as fh:
            cpu = next((l.split(':', 1)[1].strip() for l in fh if l.startswith('model name')), '')
    except OSError:
        pass
    qemu = run(['qemu-system-x86_64', '--version']).splitlines()
    lines = [f'- host: {cpu}, {os.cpu_count()} CPUs; '
             f'{qemu[0] if qemu else "qemu"}, accel {os.environ.get("QEMU_ACCEL", "tcg")}']
    for k in ('tsc_khz', 'begin'):
        if k in meta:
            lines.append(f'- one boot\'s `{meta[k]}`')
    return '\n'.join(lines) + '\n'


GNUPLOT_COMMON = '''set terminal pngcairo size 900,560 font "DejaVu Sans,11" noenhanced
set key top left
set grid
set xlabel "pmem size (GiB)"
'''
LOG_X = '''set logscale x 2
set xrange [0.8:320]
set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
'''
LIN_X = '''set xrange [0:272]
set xtics (1, 16, 64, 128, 192, 256)
'''


def plots(ix, outdir):
    if not shutil.which('gnuplot'):
        print('bench-report: gnuplot missing (apt-get install gnuplot-nox): no plots',
              file=sys.stderr)
        return []
    dat = os.path.join(outdir, 'plot.dat')
    with open(dat, 'w') as fh:
        fh.write('# size dev_ms dev_min dev_max mem_ms mem_min mem_max dev_first_fresh '
                 'mem_first_fresh ram_mem_mib ram_dev_mib pmem_dev_mib rewrite_mib diff_mib '
                 'reprobe_dev_ms reprobe_rewrite_ms usable_dev_ms ready_dev_ms usable_mem_ms '
                 'ready_mem_ms oneboot_usable_ms oneboot_min oneboot_max\n')
        for s in ix.sizes:
            v = lambda *a, **kw: ix.get(s, *a, **kw)
            mib = lambda x: (x or 0) / 2**20
            row = [s,
                   v('memmap', 'dev', 'bringup_time'), v('memmap', 'dev', 'bringup_time', field='min'),
                   v('memmap', 'dev', 'bringup_time', field='max'),
                   v('memmap', 'mem', 'bringup_time'), v('memmap', 'mem', 'bringup_time', field='min'),
                   v('memmap', 'mem', 'bringup_time', field='max'),
                   v('memmap', 'dev', 'bringup_time', backing='fresh', field='first'),
                   v('memmap', 'mem', 'bringup_time', backing='fresh', field='first'),
                   mib(v('overhead', 'mem', 'ram_total_bytes')),
                   mib(v('overhead', 'dev', 'ram_total_bytes')),
                   mib(v('overhead', 'dev', 'pmem_total_bytes')),
                   mib(v('reprobe', 'dev', 'pmem_bytes_rewrite')),
                   mib(v('reprobe', 'dev', 'pmem_bytes')),
                   v('reprobe', 'dev', 'time'), v('reprobe', 'dev', 'time_rewrite'),
                   v('memmap', 'dev', 'usable_time'), v('memmap', 'dev', 'ready_time'),
                   v('memmap', 'mem', 'usable_time'), v('memmap', 'mem', 'ready_time'),
                   v('usable', 'dev', 'usable_time', backing='oneboot'),
                   v('usable', 'dev', 'usable_time', backing='oneboot', field='min'),
                   v('usable', 'dev', 'usable_time', backing='oneboot', field='max')]
            fh.write(' '.join('nan' if x is None else f'{x:g}' for x in row) + '\n')
    first = ix.sizes[0]
    ref = ix.get(first, 'memmap', 'dev', 'bringup_time') or 1
    dev_ram = [ix.get(s, 'overhead', 'dev', 'ram_total_bytes') for s in ix.sizes]
    dev_ram_note = 'RAM for map=dev: ' + ', '.join(
        f'{s} GiB: {(b or 0) / 1024:.0f} KiB' for s, b in zip(ix.sizes, dev_ram))
    scripts = {
        'bringup.png': GNUPLOT_COMMON + LOG_X + f'''
set logscale y 10
set ylabel "bring-up time (ms, log scale)"
set title "pfn device bring-up (info block + memremap_pages + struct pages) against size"
plot "{dat}" using 1:2:3:4 with yerrorlines lw 2 pt 7 title "map=dev (median, min-max)", \\
     "{dat}" using 1:5:6:7 with yerrorlines lw 2 pt 5 title "map=mem (median, min-max)", \\
     "{dat}" using 1:8 with linespoints lw 1 pt 6 dt 2 title "map=dev, first on a fresh sparse file", \\
     "{dat}" using 1:9 with linespoints lw 1 pt 4 dt 2 title "map=mem, first (fresh guest RAM)", \\
     {ref:g} * x / {first} with lines lc rgb "black" dt 3 title "linear in size (through map=dev at {first} GiB)"
''',
        'deferred.png': GNUPLOT_COMMON + LOG_X + f'''
set logscale y 10
set ylabel "ms (log scale)"
set title "Deferred struct page init: time to a usable block device and to every struct page ready"
plot "{dat}" using 1:17 with linespoints lw 2 pt 7 title "map=dev: block device usable", \\
     "{dat}" using 1:19 with linespoints lw 2 pt 5 title "map=mem: block device usable", \\
     "{dat}" using 1:18 with linespoints lw 2 pt 6 dt 2 title "map=dev: every struct page ready", \\
     "{dat}" using 1:20 with linespoints lw 2 pt 4 dt 2 title "map=mem: every struct page ready", \\
     "{dat}" using 1:21:22:23 with yerrorlines lw 2 pt 9 title "map=dev: usable, every size in one boot (median, min-max)", \\
     "{dat}" using 1:2 with lines lw 1 lc rgb "gray" title "map=dev: synchronous bring-up"
''',
        'overhead.png': GNUPLOT_COMMON + LIN_X + f'''
set ylabel "MiB"
set title "Memory a pfn device costs, against pmem size"
set label 1 "{dev_ram_note}" at graph 0.03, graph 0.72
plot "{dat}" using 1:12 with lines lw 9 lc rgb "#9fd3ea" title "pmem, map=dev (struct pages + info block + alignment)", \\
     "{dat}" using 1:10 with linespoints lw 2 pt 5 lc rgb "#9400d3" title "RAM, map=mem (struct pages in RAM)", \\
     "{dat}" using 1:11 with linespoints lw 2 pt 7 lc rgb "#009e73" title "RAM, map=dev (page tables only)"
''',
        'reprobe.png': GNUPLOT_COMMON + LIN_X + f'''
set ylabel "MiB stored to pmem per reprobe"
set title "Bringing an unchanged map=dev device back: pmem written"
plot "{dat}" using 1:13 with linespoints lw 2 pt 5 title "rewrite every struct page (Linux 6.1)", \\
     "{dat}" using 1:14 with linespoints lw 2 pt 7 title "pmemk: store only what differs"
''',
    }
    made = []
    for name, script in scripts.items():
        path = os.path.join(outdir, name)
        r = subprocess.run(['gnuplot'], input=f'set output "{path}"\n' + script, text=True,
                           capture_output=True)
        if r.returncode:
            print(f'bench-report: gnuplot {name}: {r.stderr.strip()}', file=sys.stderr)
        else:
            made.append(name)
    return made


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    rows, meta = read_logs(os.path.join(outdir, 'logs'))
    if not rows:
        print(f'bench-report: no bench lines in {outdir}/logs', file=sys.stderr)
        return 1
    with open(os.path.join(outdir, 'results.csv'), 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f'{r[k]:.3f}' if isinstance(r[k], float) else r[k]) for k in FIELDS})
    ix = Index(rows)
    made = plots(ix, outdir)
    with open(os.path.join(outdir, 'results.md'), 'w') as fh:
        fh.write('# pmemk benchmark results\n\n' + environment(meta) + '\n' + tables(ix, meta))
        for name in made:
            fh.write(f'\n![{name}]({name})\n')
    print(f'bench-report: {len(rows)} figures -> {outdir}/results.csv, results.md'
          + (', ' + ', '.join(made) if made else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
