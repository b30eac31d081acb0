"""The PNG chart of requests per second per target, drawn with gnuplot."""
import os
import subprocess
import sys
import tempfile

from . import plan

COLOURS = {"clear": "#4477aa", "TLS": "#ee6677",
           "mod_cgiplus static fast path": "#228833",
           "Apache default handler": "#ccbb44", "nginx": "#66ccee"}


def _panel(f_gp, datname, rows, cols, title, note="", logy=True):
    with open(datname, "w") as d:
        d.write("# label " + " ".join('"%s"' % c for c in cols) + "\n")
        for label, vals in rows:
            d.write('"%s" %s\n' % (label.replace('"', "'"),
                                   " ".join("%.1f" % v if v else "-" for v in vals)))
    f_gp.write('set title "%s"\n' % title)
    if note:
        f_gp.write('set label 1 "%s" at graph 0.02, graph 0.95 left\n' % note.replace('"', "'"))
    else:
        f_gp.write("unset label 1\n")
    f_gp.write("set logscale y\n" if logy else "unset logscale y\n")
    parts = []
    for i, c in enumerate(cols):
        src = "'%s'" % datname if i == 0 else "''"
        parts.append("%s using %d%s title '%s' lc rgb '%s'" % (
            src, i + 2, ":xtic(1)" if i == 0 else "", c, COLOURS.get(c, "#888888")))
    f_gp.write("plot " + ", ".join(parts) + "\n")


def draw(cells, png, meta):
    """Writes png; returns its path, or None when gnuplot failed."""
    idx = {c.key(): c for c in cells}

    def rps(section, target, size, conc, tr):
        c = idx.get((section, target, size, conc, tr))
        return c.median.get("rps") if c and c.median else None

    panels = []
    conc = plan.MAIN_CONC
    for size in plan.SCRIPT_BODIES:
        targets = [t for t in plan.SCRIPTING
                   if any((c.target == t[0] and c.size == size and c.conc == conc)
                          for c in cells)]
        if targets:
            rows = [(t[1].replace("mod_cgiplus ", "cgiplus "),
                     [rps("scripting", t[0], size, conc, tr) for tr in plan.TRANSPORTS])
                    for t in targets]
            panels.append((rows, ["clear", "TLS"],
                           "Scripting, %s body, %d connections (req/s, log scale)"
                           % (plan.size_label(size), conc), ""))
    for tr in plan.TRANSPORTS:
        files = [(f, s) for f, s in plan.STATIC_FILES
                 if any(c.section == "static" and c.size == s and c.conc == conc
                        and c.transport == tr for c in cells)]
        if files:
            have = [t for t in plan.STATIC
                    if any(c.target == t[0] and c.status == "measured" for c in cells)]
            if not have:
                continue
            missing = [t[1] for t in plan.STATIC if t not in have]
            rows = [(plan.size_label(s), [rps("static", t[0], s, conc, tr) for t in have])
                    for f, s in files]
            panels.append((rows, [t[1] for t in have],
                           "Static files, %s, %d connections (req/s, log scale)"
                           % ("TLS" if tr == "tls" else "clear HTTP", conc),
                           ("not measured: " + ", ".join(missing)) if missing else ""))
    if not panels:
        return None
    ncol = 2
    nrow = (len(panels) + 1) // 2
    with tempfile.TemporaryDirectory(prefix="cgiplus-chart.") as tmp:
        gp = os.path.join(tmp, "chart.gp")
        with open(gp, "w") as f:
            f.write("set terminal pngcairo noenhanced size %d,%d font 'sans,10'\n" % (1600, 560 * nrow))
            f.write("set output '%s'\n" % png)
            f.write("set datafile missing '-'\n")
            f.write("set style data histograms\n")
            f.write("set style histogram clustered gap 1\n")
            f.write("set style fill solid 0.85 border -1\n")
            f.write("set boxwidth 0.9\n")
            f.write("set grid ytics\n")
            f.write("set yrange [1:*]\n")
            f.write("set key outside top center horizontal\n")
            f.write("set ylabel 'requests/s'\n")
            f.write("set xtics rotate by -30 left nomirror\n")
            f.write("set bmargin 9\n")
            f.write("set tmargin 5\n")
            f.write("set multiplot layout %d,%d title \"mod_cgiplus bench, %s%s, %s\"\n" % (
                nrow, ncol, meta["date"], " (quick)" if meta["quick"] else "",
                meta["machine"]["cpu"].replace('"', "'")))
            for i, (rows, cols, title, note) in enumerate(panels):
                _panel(f, os.path.join(tmp, "p%d.dat" % i), rows, cols, title, note)
            f.write("unset multiplot\n")
        r = subprocess.run(["gnuplot", gp], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode or not os.path.exists(png):
            sys.stderr.write("gnuplot: %s\n" % r.stdout)
            if os.path.exists(png):
                os.unlink(png)
            return None
    return png
