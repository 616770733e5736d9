"""What every figure script shares: reading an attnrank result file (never re-simulating),
picking slices of a grid, drawing an estimate with its 95% interval beside the theory,
a paper-like style, a caption line with the grid and trial counts, and saving as SVG,
PDF and PNG."""
import json
import os
import stat
import sys
import traceback

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import warnings  # noqa: E402

# An empty legend is not worth a warning on every figure.
warnings.filterwarnings("ignore", message="No artists with labels")


class PlotError(Exception):
    """A file that cannot give the figure asked of it; the message names what is missing."""


STYLE = {
    "font.family": "serif",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "xtick.direction": "in",
    "ytick.direction": "in",
    "xtick.top": True,
    "ytick.right": True,
    "lines.linewidth": 1.2,
    "lines.markersize": 3.5,
    "figure.dpi": 150,
    "savefig.bbox": "tight",
    "svg.fonttype": "none",
}
plt.rcParams.update(STYLE)
THEORY = dict(color="black", linestyle="--", linewidth=0.9)
# For every text artist that draws text from a file or spec: as it is, never as mathtext.
AS_TEXT = dict(parse_math=False, usetex=False)
# What finish() writes; plot_all.py --svg-only (the report's call) keeps just SVG, which
# is all an HTML page embeds and a third of the time.
FORMATS = ["svg", "png", "pdf"]


def text(value, where="a text attribute"):
    """A stored text; one holding a NUL is refused: C reads it only up to the NUL, so the
    two would read different texts ('hardmax.py\\0/../markov.py')."""
    value = value.decode() if isinstance(value, bytes) else str(value)
    if "\0" in value:
        raise PlotError(f"{where} holds a NUL: damaged")
    return value


# What each theory/<claim> dataset's claim is, (experiment, claim) -> {kind, output,
# statement, formula}, as attnrank re-derives it from the stored spec and its claim table:
# `attnrank report` writes it (figures/theory.tsv) and gives it with --theory, so no title,
# caption or choice of output comes from a dataset's own attributes, which a file can
# forge. None when a script runs by hand: then the attributes are read as stored
# (`attnrank info FILE` says whether they are attnrank's).
THEORY_TEXTS = None


def load_theory_texts(path):
    global THEORY_TEXTS
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    names = lines[0].split("\t")
    THEORY_TEXTS = {}
    for line in lines[1:]:
        if line:
            row = dict(zip(names, line.split("\t")))
            THEORY_TEXTS[(row["experiment"], row["claim"])] = row


class Experiment:
    """One experiment group: its axes (name -> coordinate values), fixed parameters and
    datasets, addressed by parameter values rather than indices."""

    def __init__(self, path, f, name):
        if name not in f:
            raise PlotError(f"{path}: no experiment '{name}'")
        self.path, self.name, self.group = path, name, f[name]
        attrs = self.group.attrs
        for key in ("simulator", "axes", "trials"):
            if key not in attrs:
                raise PlotError(f"{path}: /{name} lacks the attribute '{key}' (not an attnrank result?)")
        self.simulator = text(attrs["simulator"], f"{path}: attribute simulator of /{name}")
        self.axis_names = text(attrs["axes"]).split()
        self.trials = int(attrs["trials"])
        self.coords = {}
        for a in self.axis_names:
            values = self.group[a][...]
            self.coords[a] = [text(v) for v in values] if values.dtype.kind in "SO" else values
        self.claims = text(attrs.get("claims", "")).split()
        # A shard's theory/ datasets are holes until the merge writes them (zeros, at its
        # own points too): it holds no prediction to draw. attnrank checked the attribute.
        self.shard = "shard" in f.attrs  # written on shards alone (I/N, N >= 2)
        self.no_theory = "no prediction drawn: a shard's file holds none until the merge" if self.shard else ""

    def param(self, name):
        """A fixed parameter's value, or the axis values if it is swept."""
        if name in self.coords:
            return self.coords[name]
        if name not in self.group.attrs:
            raise PlotError(f"{self.path}: /{self.name} has no parameter '{name}'")
        return text(self.group.attrs[name]) if isinstance(self.group.attrs[name], (bytes, str)) else \
            self.group.attrs[name]

    def fixed(self, free, **keep):
        """Every axis not named in free fixed at its first value (or as given in keep)."""
        fix = {a: self.coords[a][0] for a in self.axis_names if a not in free}
        fix.update(keep)
        return fix

    def has(self, output):
        return output in self.group and "mean" in self.group[output]

    def _index(self, fix):
        index = []
        for a in self.axis_names:
            if a in fix:
                values = list(self.coords[a])
                want = fix[a]
                match = [i for i, v in enumerate(values) if (v == want if isinstance(v, str) else np.isclose(v, want))]
                if not match:
                    raise PlotError(f"{self.path}: /{self.name}: {a} = {want} is not on the grid ({values})")
                index.append(match[0])
            else:
                index.append(slice(None))
        return tuple(index)

    def get(self, output, stat="mean", **fix):
        """output/stat with the named axes fixed; the other axes stay, in file order."""
        if output not in self.group or stat not in self.group[output]:
            raise PlotError(f"{self.path}: /{self.name} lacks the dataset {output}/{stat}")
        return self.not_done_out(self.group[output][stat][...][self._index(fix)], fix)

    def not_done_out(self, values, fix):
        """values (a slice with fix's axes fixed) with every point the `done` ledger does
        not mark done left out: NaN (0 for counts), whatever the file holds there. Only
        done points were computed and checked; a shard leaves the others' points as holes
        and an interrupted run has not reached them, so nothing stored there is drawn."""
        if "done" not in self.group:
            raise PlotError(f"{self.path}: /{self.name} lacks its done ledger")
        grid = tuple(len(self.coords[a]) for a in self.axis_names)
        done = np.asarray(self.group["done"][...])
        if done.size != int(np.prod(grid)):
            raise PlotError(f"{self.path}: /{self.name}/done has shape {done.shape}, not the grid's {grid}")
        undone = (done.reshape(grid) == 0)[self._index(fix)]
        if not np.any(undone):
            return values
        values = np.asarray(values)
        undone = np.reshape(undone, np.shape(undone) + (1,) * (values.ndim - np.ndim(undone)))
        return np.where(undone, np.nan if values.dtype.kind == "f" else 0, values)

    def histogram(self, output, **fix):
        """Trial counts per value (last axis: the value 0, 1, ...) with the named axes
        fixed, from either layout: dense `hist`, or sparse `hist_value` / `hist_count`
        (the values seen at each point and their trials), which the file holds when a
        point has fewer trials than values."""
        group = self.group[output]
        if "hist" in group:
            return self.get(output, "hist", **fix)
        if "hist_value" not in group:
            raise PlotError(f"{self.path}: /{self.name}/{output} has no histogram")
        values = self.get(output, "hist_value", **fix)
        counts = self.get(output, "hist_count", **fix)
        dense = np.zeros(values.shape[:-1] + (len(group["value"]),), dtype=np.int64)
        seen = values >= 0
        index = np.nonzero(seen)
        np.add.at(dense, index[:-1] + (values[seen],), counts[seen])
        return dense

    def has_histogram(self, output):
        return output in self.group and ("hist" in self.group[output] or "hist_value" in self.group[output])

    def index_values(self, output, name):
        return self.group[output][name][...]

    def theory(self, claim, **fix):
        """The stored predictions (with fix's axes fixed) where the file holds them: NaN at
        points not done (as every statistic) and at every point of a shard."""
        if "theory" not in self.group or claim not in self.group["theory"]:
            raise PlotError(f"{self.path}: /{self.name} lacks theory/{claim}")
        values = np.asarray(self.group["theory"][claim][...], float)[self._index(fix)]
        return np.full(np.shape(values), np.nan) if self.shard else self.not_done_out(values, fix)

    def theory_text(self, claim):
        """The claim's kind, output, statement and formula: THEORY_TEXTS' when given (then
        a dataset attnrank writes for no claim of the spec has none: PlotError), else the
        dataset's attributes."""
        if THEORY_TEXTS is not None:
            if (self.name, claim) not in THEORY_TEXTS:
                raise PlotError(f"{self.path}: /{self.name}/theory/{claim} is no claim of the stored spec")
            return THEORY_TEXTS[(self.name, claim)]
        attrs = self.group["theory"][claim].attrs
        return {"kind": text(attrs.get("kind", "claim")), "output": text(attrs.get("output", "")),
                "statement": text(attrs.get("description", claim)), "formula": text(attrs.get("formula", ""))}

    def caption(self, extra=""):
        grid = ", ".join(f"{a} ({len(self.coords[a])})" for a in self.axis_names) or "one point"
        return f"{self.path.split('/')[-1]}:/{self.name}, {self.simulator}; grid {grid}; {self.trials} trials a point" + \
            (f"; {extra}" if extra else "")


# What attnrank writes lies at most 3 levels deep in a few hundred links an experiment;
# the same bounds as its own check (sim/07-store/store_hdf5.c), so a file nested thousands
# deep or with 10^5 links is refused at once rather than walked for minutes.
MAX_DEPTH, MAX_LINKS = 8, 1 << 16
OTHER_LINKS = {h5py.h5l.TYPE_SOFT: "SoftLink", h5py.h5l.TYPE_EXTERNAL: "ExternalLink"}


def outside_the_file(f):
    """Why f reaches outside itself or is not a file attnrank wrote, or None: a link that
    is not a hard link (an external link to a FIFO hangs whoever follows it), a dataset
    whose data live in other files (external storage, virtual) or in a layout attnrank
    never writes, a name that is not printable UTF-8, nesting or links beyond what
    attnrank writes. attnrank refuses such a file; a figure script given one directly
    refuses it too, without following. Names are read as bytes (h5py's own decoding
    raised UnicodeDecodeError) and each object is checked once, opened from its group;
    a second link to an object is refused (attnrank writes each under one name)."""
    root = h5py.h5o.get_info(f.id)
    seen, groups, links = {root.addr: "/"}, [(f.id, "", 0)], 0
    aliased = "/" if root.rc > 1 else None  # an object more than one link reaches
    while groups:
        group, where, depth = groups.pop()
        for raw in list(group):
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                name = None
            if name is None or any(c < " " or c == "\x7f" for c in name):
                return f"{where}/? has a name that is not printable UTF-8; attnrank writes no such name"
            here = f"{where}/{name}"
            links += 1
            if links > MAX_LINKS:
                return f"{here} is one link too many: the file holds over {MAX_LINKS} links"
            info = group.links.get_info(raw)
            if info.type != h5py.h5l.TYPE_HARD:
                return f"{here} is {OTHER_LINKS.get(info.type, 'a user-defined link')}, not a hard link; " \
                    "attnrank follows no other"
            if info.u in seen:
                return f"{here} is a second link to {seen[info.u]}: one object under two names; " \
                    "attnrank writes each object under one name"
            seen[info.u] = here
            obj = h5py.h5o.open(group, raw)
            if aliased is None and h5py.h5o.get_info(obj).rc > 1 and \
                    isinstance(obj, (h5py.h5g.GroupID, h5py.h5d.DatasetID)):
                aliased = here
            if isinstance(obj, h5py.h5g.GroupID):
                if depth + 1 > MAX_DEPTH:
                    return f"{here} lies over {MAX_DEPTH} groups deep; attnrank writes 3 levels at most"
                groups.append((obj, here, depth + 1))
            elif isinstance(obj, h5py.h5d.DatasetID):
                dcpl = obj.get_create_plist()
                if dcpl.get_external_count() or dcpl.get_layout() != h5py.h5d.CONTIGUOUS:
                    return f"{here} keeps its data outside the file or in a layout attnrank never writes"
    if aliased is not None:
        return f"{aliased} counts more links to it than the file's groups hold; " \
            "attnrank writes each object under one name"
    return None


def open_result(path, fd=None):
    """path opened read-only as HDF5 through the descriptor checked to be a regular file
    (a FIFO would block h5py's open for a writer; a name swapped for one after the check
    must not be opened again by name). With fd (plot_all.py --fd: `attnrank report`
    hands down the descriptor of the file it checked) that file is read, never the name,
    which a file renamed over it since would now name; path is only what messages and
    captions show."""
    if fd is None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            raise PlotError(f"{path}: cannot open ({e.strerror})")
        given = False
    else:
        given = True
    try:
        try:
            st = os.fstat(fd)
        except OSError as e:
            raise PlotError(f"{path}: descriptor {fd} cannot be read ({e.strerror})")
        if not stat.S_ISREG(st.st_mode):
            raise PlotError(f"{path}: not a regular file")
        by_fd = f"/proc/self/fd/{fd}"
        try:
            same = os.path.samestat(os.stat(by_fd), st)
        except OSError:
            same = False
        try:
            if given:  # as a Python file: its name may be gone ("(deleted)"), which HDF5 would resolve
                held = os.fdopen(os.dup(fd), "rb")
                f = h5py.File(held, "r")
                f.held = held  # read as long as f is
            else:
                f = h5py.File(by_fd if same else path, "r", locking=False)
        except (OSError, TypeError) as e:
            raise PlotError(f"{path}: cannot open as HDF5 ({e})")
    finally:
        os.close(fd)  # h5py holds its own descriptor of the same file
    try:
        why = outside_the_file(f)
    except (OSError, KeyError, ValueError) as e:
        why = f"its links cannot be listed ({e})"
    if why:
        f.close()
        raise PlotError(f"{path}: refused: {why}")
    if "spec_hash" not in f.attrs:
        f.close()
        raise PlotError(f"{path}: not an attnrank result file (no spec_hash attribute)")
    return f


def band(ax, x, exp, output, label, color=None, marker="o", **fix):
    """Mean with its 95% interval as a shaded band; returns the line."""
    mean = exp.get(output, "mean", **fix)
    lo, hi = exp.get(output, "ci_lo", **fix), exp.get(output, "ci_hi", **fix)
    (line,) = ax.plot(x, mean, marker=marker, label=label, color=color)
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def figure(width=3.4, height=2.5, ncols=1, nrows=1):
    """Panels of width x height inches each, plus room for the title and caption."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows + 0.6), squeeze=False)
    if nrows > 1:
        return fig, axes
    return fig, axes[0]


def finish(fig, exp, title, claims, stem, outdir, extra="", tight=True):
    """Title with the claim ids, caption line, save three formats; a manifest entry.
    tight=False keeps the figure's own size (the caption wrapped to it) instead of
    growing it to whatever sticks out: one layout pass less, for figures drawn by the
    dozen whose artists all lie inside their panels (claims.py's)."""
    # room above the panels for the title, below them for the caption line
    height = fig.get_figheight()
    fig.tight_layout(rect=(0, 0.28 / height, 1, 1 - 0.32 / height))
    # title and caption quote the file (statements, names): drawn as text, never as
    # mathtext ("rank at most $n^2^2$" is a parse error that took every figure with it)
    fig.suptitle(f"{' '.join(claims)}: {title}" if claims else title, fontsize=9, y=1 - 0.06 / height, va="top",
                 **AS_TEXT)
    fig.text(0.01, 0.04 / height, exp.caption(extra), fontsize=6.5, color="0.35", ha="left", va="bottom",
             wrap=not tight, **AS_TEXT)
    os.makedirs(outdir, exist_ok=True)
    files = {}
    for fmt in FORMATS:
        path = os.path.join(outdir, f"{stem}.{fmt}")
        with plt.rc_context({} if tight else {"savefig.bbox": "standard"}):
            fig.savefig(path)
        files[fmt] = path
    plt.close(fig)
    return {"experiment": exp.name, "simulator": exp.simulator, "claims": claims, "title": title, "files": files,
            "caption": exp.caption(extra)}


# The figures that failed, each said on stderr as it failed: plot_all.py exits 1 if any,
# a script run alone 2.
FAILED = []


def failure_reason(e):
    """The exception's own last line (a traceback's last line, where a multi-line message
    such as mathtext's ends with what was wrong), with its type."""
    lines = [l.strip() for l in traceback.format_exception_only(type(e), e) for l in l.splitlines() if l.strip()]
    last = lines[-1] if lines else ""
    named = last.split(":", 1)[0].split(".")[-1] == type(e).__name__  # "module.Error: ..." names it
    return last if named else f"{type(e).__name__}: {last}"


def each_drawn(exp, items, draw, claim_of):
    """draw(item) for each item: the figures' entries. One that fails is said on stderr
    (its claim, its experiment and why) and the others are still drawn."""
    entries = []
    for item in items:
        try:
            entries.append(draw(item))
        except Exception as e:  # noqa: BLE001: one figure's failure must not take the others with it
            plt.close("all")
            said_failed(f"{claim_of(item)} in /{exp.name}", e)
    return entries


def said_failed(what, e):
    FAILED.append(what)
    print(f"{os.path.basename(sys.argv[0])}: the figure of {what} was not drawn: {failure_reason(e)}", file=sys.stderr,
          flush=True)


def main(figures_for, argv=None):
    """Command line shared by the scripts: SCRIPT FILE OUTDIR [EXPERIMENT...]. Writes the
    figures and OUTDIR/manifest-<script>.json; exits 2 with one line on a bad file."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(f"usage: {os.path.basename(sys.argv[0])} RESULT.h5 OUTDIR [EXPERIMENT...]", file=sys.stderr)
        return 2
    path, outdir, only = argv[0], argv[1], argv[2:]
    try:
        with open_result(path) as f:
            entries = []
            names = only or [k for k in f.keys() if isinstance(f[k], h5py.Group)]
            for name in names:
                exp = Experiment(path, f, name)
                entries += figures_for(exp, outdir)
    except PlotError as e:
        print(f"{os.path.basename(sys.argv[0])}: {e}", file=sys.stderr)
        return 2
    stem = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    with open(os.path.join(outdir, f"manifest-{stem}.json") if entries else os.devnull, "w") as m:
        json.dump(entries, m, indent=1)
    for e in entries:
        print(e["files"]["svg"])
    return 2 if FAILED else 0
