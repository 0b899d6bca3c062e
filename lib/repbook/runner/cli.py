"""`python -m repbook ...`: run chapters, build the book, regenerate nbval references."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .. import layout
from ..core.params import SCALES, ParameterError
from .chapters import ChapterError, parameters_of, resolve
from .executors import EXECUTORS
from .jobs import build_jobs, run_jobs


def _root() -> Path:
    from ..core.data import repo_root

    return repo_root()


def parse_value(text: str):
    """Parse a `-p NAME VALUE` value as papermill's CLI does: bool, None, int, float, else str."""
    if text in ("True", "true"):
        return True
    if text in ("False", "false"):
        return False
    if text in ("None", "none"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def cmd_run(args) -> int:
    root = _root()
    chapters = resolve(root, args.chapters)
    overrides = dict(args.param)
    if args.scale is not None:
        overrides["scale"] = args.scale
    if args.seed is not None:
        overrides["seed"] = args.seed
    jobs = build_jobs(chapters, overrides)
    records, _ = run_jobs(
        root,
        jobs,
        workers=args.workers,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
    )
    failed = [r for r in records if r.status != "ok"]
    for r in records:
        folder = layout.run_dir(root, r.chapter, r.tag).relative_to(root)
        print(f"{r.chapter}: {r.status} — outputs in {folder}/")
    return 1 if failed else 0


def cmd_full(args) -> int:
    """Run chapters at full scale and record each success in data/full_runs/."""
    from .records import record_full_run

    if not args.chapters and not args.all:
        raise ChapterError(
            "name the chapter(s) to run at full scale (e.g. `repbook full 04`), or "
            "pass --all for every chapter (hours on a CPU)"
        )
    if args.chapters and args.all:
        raise ChapterError("give chapters or --all, not both")
    args.scale = "full"
    root = _root()
    chapters = resolve(root, args.chapters)
    overrides = {**dict(args.param), "scale": "full"}
    if args.seed is not None:
        overrides["seed"] = args.seed
    records, _ = run_jobs(
        root,
        build_jobs(chapters, overrides),
        workers=args.workers,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
    )
    by_stem = {c.stem: c for c in chapters}
    for r in records:
        if r.status == "ok":
            path = record_full_run(root, by_stem[r.chapter], r.tag)
            print(
                f"{r.chapter}: {r.summary} at full scale; recorded in {path.relative_to(root)} "
                "(commit it to show it in the book)"
            )
        else:
            print(f"{r.chapter}: full-scale run failed — not recorded")
    return 0 if all(r.status == "ok" for r in records) else 1


def cmd_stability(args) -> int:
    """Run chapters at quick scale on seeds 0..K−1 and record each claim's verdicts per seed."""
    from .records import record_stability

    if args.seeds < 2:
        raise ValueError(f"--seeds must be at least 2, got {args.seeds}")
    if not args.chapters:
        raise ChapterError(
            "name the chapter(s) to record (e.g. `repbook stability 04`)"
        )
    root = _root()
    chapters = resolve(root, args.chapters)
    jobs = []
    for s in range(args.seeds):
        jobs += build_jobs(chapters, {"scale": "quick", "seed": s})
    records, _ = run_jobs(
        root,
        jobs,
        workers=args.workers,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
    )
    failed = 0
    for ch in chapters:
        mine = sorted(
            (r for r in records if r.chapter == ch.stem), key=lambda r: r.params["seed"]
        )
        path = record_stability(root, ch, mine)
        bad = [r.params["seed"] for r in mine if r.status != "ok"]
        failed += len(bad)
        from ..core.ledger import read_stability

        rec = read_stability(path)
        unstable = ", ".join(c.id for c in rec.unstable()) or "none"
        print(
            f"{ch.stem}: {len(mine)} seeds, unstable claims: {unstable}"
            + (f"; failed seeds: {bad}" if bad else "")
            + f"; recorded in {path.relative_to(root)} (commit it to show it in the book)"
        )
    return 1 if failed else 0


def cmd_numerics(args) -> int:
    """Run chapters in each numerical environment and record how far their numbers move."""
    from .records import provenance_of
    from .execute import load_ledger, run_dir
    from .numerics import (
        ENVIRONMENTS,
        env_tag,
        environment,
        observed_differences,
        read_record,
        suggestion,
        write_record,
    )

    if not args.chapters:
        raise ChapterError(
            "name the chapter(s) to measure (e.g. `repbook numerics 04`)"
        )
    envs = args.envs or list(ENVIRONMENTS)
    for name in envs:
        environment(name)
    root = _root()
    chapters = resolve(root, args.chapters)
    base = build_jobs(chapters, {"scale": "quick", "seed": 0})
    jobs = list(base)
    for job in base:
        for name in envs:
            jobs.append(job.with_environment(env_tag(name), environment(name)))
    records, _ = run_jobs(
        root,
        jobs,
        workers=args.workers,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
    )
    by = {(r.chapter, r.tag): r for r in records}
    commit = provenance_of(root)["commit"]
    failed = 0
    for job in base:
        ch = job.chapter
        ref_rec = by[(ch.stem, job.tag)]
        if ref_rec.status != "ok":
            print(f"{ch.stem}: the run in this environment failed — nothing recorded")
            failed += 1
            continue
        reference = load_ledger(run_dir(root, ch, job.tag))
        runs, info = {}, {}
        for name in envs:
            rec = by[(ch.stem, env_tag(name))]
            info[name] = {"status": rec.status, "seconds": rec.seconds}
            if rec.status == "ok":
                runs[name] = load_ledger(run_dir(root, ch, env_tag(name)))
            else:
                failed += 1
        path = write_record(root, ch, reference, runs, info, commit)
        print(f"{ch.stem}: recorded in {path.relative_to(root)}")
        record = read_record(path)
        seen = observed_differences(record)
        for claim in record["claims"]:
            tols = suggestion(claim, seen)
            if tols:
                text = ", ".join(f"{k!r}: tol(abs={v:g})" for k, v in tols.items())
                print(
                    f"  claim {claim['id']}: moved; declare e.g. tolerance={{{text}}}"
                )
    return 1 if failed else 0


def cmd_observe(args) -> int:
    """Record in data/numerics how far another machine's run differs from our reference: its
    reference notebook at a git commit (`--git`, the table's rounded figures), or its run's
    ledger (`--run`, full precision)."""
    from ..core.ledger import Ledger
    from .numerics import add_observations, observe_git, observe_run
    from .records import provenance_of
    from .references import reference_ledger_path

    if (args.git is None) == (args.run is None):
        raise ChapterError("give --git REV or --run LEDGER, one of them")
    root = _root()
    chapters = resolve(root, args.chapters)
    if (args.ledger or args.run) and len(chapters) != 1:
        raise ChapterError("--ledger and --run go with one chapter")
    for ch in chapters:
        ledger = Ledger.load(args.ledger or reference_ledger_path(root, ch))
        if args.run:
            other = Ledger.load(args.run)
            if other.chapter != ch.stem or other.scale != ledger.scale:
                raise ChapterError(
                    f"{args.run} is a {other.scale} run of {other.chapter}, not of "
                    f"{ch.stem} at {ledger.scale} scale"
                )
            source = args.source or (
                f"a run on {provenance_of(root)['machine']} (full precision)"
            )
            found = observe_run(ledger, other, source)
        else:
            found = observe_git(root, ch, ledger, args.git)
        path, added = add_observations(root, ch, found)
        print(f"{ch.stem}: {added} new observation(s) in {path.relative_to(root)}")
        for o in found:
            print(
                f"  claim {o['claim']}: {o['value']!r} differs by {o['difference']:.3g}"
            )
    return 0


def cmd_book(args) -> int:
    from .pages import stage_chapters, write_pages
    from .render import render

    t0 = time.perf_counter()
    root = _root()
    chapters = resolve(root, [])
    records, executed = run_jobs(
        root,
        build_jobs(chapters, {}),
        workers=args.workers,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
    )
    stage_chapters(root, chapters)
    write_pages(root, chapters, executed)
    rc = 0 if args.no_render else render(root)
    print("\nverdicts (quick scale):")
    for r in sorted(records, key=lambda r: r.chapter):
        print(
            f"  {r.chapter:<24} {'ok' if r.status == 'ok' else 'FAILED':<7} {r.summary}"
        )
    failed = [r.chapter for r in records if r.status != "ok"]
    if rc:
        print(f"\nJupyter Book failed (exit {rc}); see the messages above.")
    else:
        print(f"\nbook: {root / layout.HTML / 'index.html'}")
    print(
        f"done in {time.perf_counter() - t0:.1f} s"
        + (f"; failed chapters: {', '.join(failed)}" if failed else "")
    )
    return 1 if (failed or rc) else 0


def cmd_references(args) -> int:
    from .references import write_reference

    root = _root()
    chapters = resolve(root, args.chapters)
    records, _ = run_jobs(
        root, build_jobs(chapters, {}), workers=args.workers, force=args.force
    )
    bad = [r.chapter for r in records if r.status != "ok"]
    if bad:
        print(f"not writing references: {', '.join(bad)} failed", file=sys.stderr)
        return 1
    for ch in chapters:
        path, changes = write_reference(root, ch)
        print(f"wrote {path.relative_to(root)} and its ledger")
        print(
            "  claims unchanged (within their tolerances)"
            if not changes
            else "  claims changed:\n    " + "\n    ".join(changes)
        )
    return 0


LAB_OVERRIDES = {
    "@jupyterlab/docmanager-extension:plugin": {
        "defaultViewers": {"python": "Jupytext Notebook"}
    }
}


def lab_settings() -> Path:
    """Make JupyterLab in this environment open `.py` chapters as notebooks (jupytext) on a click."""
    import json

    path = (
        Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    )
    current = json.loads(path.read_text()) if path.is_file() else {}

    def merge(
        into: dict, new: dict
    ) -> None:  # keep the user's other settings at every level
        for key, value in new.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    merge(current, LAB_OVERRIDES)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n")
    return path


def cmd_lab(args) -> int:
    import os
    import shutil
    import subprocess

    root = _root()
    lab_settings()
    exe = Path(sys.executable).with_name("jupyter")
    cmd = [
        str(exe) if exe.exists() else shutil.which("jupyter") or "jupyter",
        "lab",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.default_url=/lab/tree/notebooks",
        f"--port={args.port}",
    ]
    if args.no_browser:
        cmd.append("--no-browser")
    if args.token is not None:
        cmd.append(f"--IdentityProvider.token={args.token}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    print("chapters open as notebooks: double-click notebooks/NN_slug.py", flush=True)
    if os.name == "posix":
        # Become the server, so that a signal to this process (Ctrl-C, a supervisor's SIGTERM)
        # reaches it instead of leaving an orphaned JupyterLab behind.
        os.chdir(root)
        os.execvp(cmd[0], cmd)
    return subprocess.call(cmd, cwd=root)


def cmd_clean(args) -> int:
    """Remove what building the book wrote: the build folder and the generated book pages."""
    import shutil

    root = _root()
    for rel in (layout.BUILD, *layout.GENERATED_PATHS):
        path = root / rel
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    return 0


def cmd_list(args) -> int:
    root = _root()
    for ch in resolve(root, []):
        params = ", ".join(f"{k}={v!r}" for k, v in parameters_of(ch.path).items())
        print(f"{ch.stem:<28} {params}")
    return 0


def make_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m repbook", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, chapters=True):
        if chapters:
            sp.add_argument(
                "chapters",
                nargs="*",
                help="chapter numbers, stems or slugs (default: all)",
            )
        sp.add_argument(
            "--workers",
            type=int,
            default=None,
            help="parallel chapters (default: cores // 2; each chapter uses 2 threads)",
        )
        sp.add_argument(
            "--force", action="store_true", help="re-execute even when cached"
        )
        sp.add_argument(
            "--executor",
            choices=EXECUTORS,
            default="local",
            help="local process pool (default) or a Dask distributed cluster",
        )
        sp.add_argument(
            "--scheduler",
            metavar="ADDRESS",
            help="Dask scheduler, e.g. tcp://host:8786 (default: a LocalCluster)",
        )

    r = sub.add_parser("run", help="execute chapters with papermill")
    common(r)
    r.add_argument("--scale", help=f"one of {', '.join(SCALES)} (default quick)")
    r.add_argument("--seed", type=int, help="seed for every generator (default 0)")
    r.add_argument(
        "-p",
        "--param",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        type=str,
        help="any parameter of the chapter's parameters cell",
    )
    r.set_defaults(func=cmd_run)
    f = sub.add_parser(
        "full",
        help=f"run chapters at full scale and record them in {layout.FULL_RUNS.as_posix()}",
    )
    common(f)
    f.add_argument(
        "--all", action="store_true", help="every chapter (name chapters otherwise)"
    )
    f.add_argument("--seed", type=int, help="seed for every generator (default 0)")
    f.add_argument(
        "-p",
        "--param",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        type=str,
        help="any other parameter of the chapter's parameters cell",
    )
    f.set_defaults(func=cmd_full)
    st = sub.add_parser(
        "stability",
        help="run chapters on seeds 0..K-1 at quick scale and record "
        f"each claim's verdicts in {layout.STABILITY.as_posix()}",
    )
    common(st)
    st.add_argument(
        "--seeds", type=int, default=5, help="number of seeds K (default 5)"
    )
    st.set_defaults(func=cmd_stability)
    nu = sub.add_parser(
        "numerics",
        help="run chapters in other numerical environments (kernels, threads) and record "
        f"how far each claim's numbers move in {layout.NUMERICS.as_posix()}",
    )
    common(nu)
    nu.add_argument(
        "--envs",
        nargs="+",
        metavar="NAME",
        help="numerical environments (default: all of repbook.runner.numerics.ENVIRONMENTS)",
    )
    nu.set_defaults(func=cmd_numerics)
    ob = sub.add_parser(
        "observe",
        help="add to a chapter's numerics record how far another machine's run differs from "
        "the current reference: its reference notebook at a git commit (as far as its table "
        "shows) or its run's ledger (full precision)",
    )
    ob.add_argument("chapters", nargs="+", help="chapter numbers, stems or slugs")
    ob.add_argument(
        "--git", metavar="REV", help="read the reference notebook at this commit"
    )
    ob.add_argument(
        "--run",
        metavar="LEDGER",
        help="read this run's ledger (the same chapter, another machine), full precision",
    )
    ob.add_argument(
        "--source", help="how the observation is described (default: this machine)"
    )
    ob.add_argument(
        "--ledger",
        metavar="PATH",
        help="compare with this ledger (default: the chapter's reference ledger)",
    )
    ob.set_defaults(func=cmd_observe)
    b = sub.add_parser(
        "book", help="run every chapter at quick scale and render the HTML book"
    )
    common(b, chapters=False)
    b.add_argument("--no-render", action="store_true", help="skip Jupyter Book")
    b.set_defaults(func=cmd_book)
    ref = sub.add_parser(
        "references", help="regenerate the nbval references under tests/reference"
    )
    common(ref)
    ref.set_defaults(func=cmd_references)
    lab = sub.add_parser(
        "lab", help="JupyterLab on the book's environment; chapters open as notebooks"
    )
    lab.add_argument("--port", type=int, default=8888)
    lab.add_argument("--no-browser", action="store_true")
    lab.add_argument(
        "--token", default=None, help="server token (default: Jupyter generates one)"
    )
    lab.set_defaults(func=cmd_lab)
    ls = sub.add_parser("list", help="list chapters and their parameters")
    ls.set_defaults(func=cmd_list)
    cl = sub.add_parser(
        "clean", help="remove the build folder and the generated book pages"
    )
    cl.set_defaults(func=cmd_clean)
    return p


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if getattr(args, "param", None):
        args.param = [(name, parse_value(value)) for name, value in args.param]
    try:
        return args.func(args)
    except (ParameterError, ChapterError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
