// Tables and targets of an HTTP suite run: per scenario (req/s, per-round ratios to the suite's
// reference servers, CPU µs per request, busy shares, p99, failures), per overhead (a scenario
// against its base, per round), the machine's CPU pressure, peak RSS, and the targets.
import { fixed, int, markdownTable, max, median, min } from '../lib/stats.mjs';

/** Formats a per-round series as `median (min–max)`. */
export function fmtRatio(xs, digits = 2) {
  return xs.length === 0 ? '–' : `${fixed(median(xs), digits)} (${fixed(min(xs), digits)}–${fixed(max(xs), digits)})`;
}

/**
 * The measurement accessors targets are written against. `[server, scenario]` pairs name a
 * series; ratios are taken per round (same round), never between medians.
 */
export function measure(suite, runs) {
  const rounds = [...new Set(runs.map((r) => r.round))].sort((a, b) => a - b);
  const runOf = (server, scenario, k) => runs.find((r) => r.round === k && r.scenario === scenario && r.server === server);
  // A group (suite.groups) stands for the best of its servers in each round, figure by figure.
  const groupRun = (group, scenario, k) => {
    const members = group.of.map((server) => runOf(server, scenario, k)).filter(Boolean);
    if (members.length === 0) return undefined;
    return {
      round: k,
      scenario,
      server: group.name,
      rps: Math.max(...members.map((r) => r.rps)),
      cpuUsPerRequest: Math.min(...members.map((r) => r.cpuUsPerRequest)),
    };
  };
  const series = ([server, scenario]) => {
    const group = (suite.groups ?? []).find((g) => g.name === server);
    return rounds.map((k) => (group ? groupRun(group, scenario, k) : runOf(server, scenario, k)));
  };
  const perRound = (a, b, f) => {
    const x = series(a);
    const y = series(b);
    return rounds.map((_, i) => (x[i] && y[i] ? f(x[i], y[i]) : NaN)).filter(Number.isFinite);
  };
  const m = {
    rounds,
    series,
    median,
    fmt: fmtRatio,
    has: (pair) => series(pair).some(Boolean),
    /** a.field / b.field per round. */
    ratios: (a, b, field = 'rps') => perRound(a, b, (x, y) => x[field] / y[field]),
    /** a.cpuUsPerRequest − b.cpuUsPerRequest per round. */
    added: (a, b) => perRound(a, b, (x, y) => x.cpuUsPerRequest - y.cpuUsPerRequest),
    /** 'met' when both figures agree it is, 'not met' when neither does, else says which. */
    verdict(rpsOk, cpuOk) {
      if (rpsOk && cpuOk) return 'met';
      if (!rpsOk && !cpuOk) return 'not met';
      const [rate, cpu] = [suite.words?.rate ?? 'req/s', `CPU/${suite.words?.unit ?? 'req'}`];
      return rpsOk ? `mixed: met on ${rate}, not on ${cpu}` : `mixed: met on ${cpu}, not on ${rate}`;
    },
    /**
     * Overhead `i` (ours) against overhead `j` (theirs): per round, the share of its bare req/s
     * each keeps, and its CPU/req growth; ours is no larger when it keeps at least as large a
     * share (ratio of ratios ≥ 1) and grows its CPU/req no more (ratio of ratios ≤ 1).
     */
    overheadVersus(target, i, j) {
      const [ours, theirs] = [suite.overheads[i], suite.overheads[j]];
      const keep = (o) => perRoundPair(o, 'rps');
      const grow = (o) => perRoundPair(o, 'cpuUsPerRequest');
      const rel = zipRatio(keep(ours), keep(theirs));
      const cpuRel = zipRatio(grow(ours), grow(theirs));
      const usOurs = m.added(ours.test, ours.base);
      const usTheirs = m.added(theirs.test, theirs.base);
      return {
        target,
        measured:
          `req/s kept: ${ours.label.split(':')[0]} ${fmtRatio(keep(ours))}, ${theirs.label.split(':')[0]} ${fmtRatio(keep(theirs))}, ours ÷ theirs ${fmtRatio(rel)}; ` +
          `CPU/req grows ×${fixed(median(grow(ours)))} vs ×${fixed(median(grow(theirs)))} (ours ÷ theirs ${fmtRatio(cpuRel)}); ` +
          `µs added per request ${fixed(median(usOurs), 1)} vs ${fixed(median(usTheirs), 1)}`,
        verdict: m.verdict(median(rel) >= 1, median(cpuRel) <= 1),
      };
    },
  };
  // Per round: overhead o's test/base ratio of `field` (NaN-free, aligned by round index).
  const perRoundPair = (o, field) => rounds.map((k, i) => {
    const x = series(o.test)[i];
    const y = series(o.base)[i];
    return x && y ? x[field] / y[field] : NaN;
  });
  const zipRatio = (a, b) => a.map((x, i) => x / b[i]).filter(Number.isFinite);
  return m;
}

/** Prints the whole report of one suite run. */
export function printReport({ suite, plan, runs, memory, serverDefs, rounds }) {
  const m = measure(suite, runs);
  // Column words: HTTP by default; the gRPC runner says calls and client.
  const w = { rate: 'req/s', unit: 'req', client: 'wrk', failures: 'non-2xx / socket errors', ...suite.words };
  const failures = (series) => {
    const n = series.reduce((a, r) => a + r.non2xx, 0);
    return series.some((r) => r.socketErrors !== undefined) ? `${n} / ${series.reduce((a, r) => a + (r.socketErrors ?? 0), 0)}` : `${n}`;
  };
  const groups = suite.groups ?? [];
  const label = (name) => serverDefs.find((s) => s.name === name)?.label ?? groups.find((g) => g.name === name)?.label ?? name;
  const present = (name) => serverDefs.some((s) => s.name === name);
  const refs = (suite.refs ?? []).filter((r) => present(r) || groups.some((g) => g.name === r && g.of.some(present)));
  const fmtCpu = (cpu) => `${fixed(median(cpu), 1)} (${fixed(min(cpu), 1)}–${fixed(max(cpu), 1)})`;

  console.log(`\n## ${suite.name} (issue ${suite.issue}): ${rounds} rounds; ratios are per round, then the median, with min–max\n`);
  for (const { scenario, servers } of plan) {
    const rows = servers.map((s) => {
      const pair = [s.def.name, scenario.name];
      const series = m.series(pair).filter(Boolean);
      const rps = series.map((r) => r.rps);
      const cpu = series.map((r) => r.cpuUsPerRequest);
      return [
        s.def.label,
        int(median(rps)),
        `${int(min(rps))}–${int(max(rps))}`,
        ...refs.map((ref) => fmtRatio(m.ratios(pair, [ref, scenario.name]))),
        fmtCpu(cpu),
        ...(refs.length ? [fixed(median(m.ratios(pair, [refs[0], scenario.name], 'cpuUsPerRequest')))] : []),
        `${Math.round(100 * median(series.map((r) => r.serverBusy)))}% / ${Math.round(100 * median(series.map((r) => r.wrkBusy)))}%`,
        fixed(median(series.map((r) => r.latencyMs.p99)), 2),
        failures(series),
      ];
    });
    console.log(`### ${scenario.label}\n`);
    const header = [
      'server',
      `${w.rate} median`,
      `${w.rate} min–max`,
      ...refs.map((r) => `× ${label(r)}`),
      `CPU µs/${w.unit} median (min–max)`,
      ...(refs.length ? [`CPU/${w.unit} × ${label(refs[0])}`] : []),
      `server / ${w.client} busy`,
      'p99 ms',
      w.failures,
    ];
    console.log(markdownTable(header, rows, `l${'r'.repeat(header.length - 1)}`));
    console.log('');
  }

  const overheads = (suite.overheads ?? []).filter((o) => m.has(o.test) && m.has(o.base));
  if (overheads.length > 0) {
    console.log('### Overhead: each framework against its own bare run, per round\n');
    const rows = overheads.map((o) => {
      const test = m.series(o.test).filter(Boolean);
      const base = m.series(o.base).filter(Boolean);
      return [
        o.label,
        `${int(median(test.map((r) => r.rps)))} / ${int(median(base.map((r) => r.rps)))}`,
        fmtRatio(m.ratios(o.test, o.base)),
        `${fixed(median(test.map((r) => r.cpuUsPerRequest)), 1)} / ${fixed(median(base.map((r) => r.cpuUsPerRequest)), 1)}`,
        fmtRatio(m.added(o.test, o.base), 1),
        fmtRatio(m.ratios(o.test, o.base, 'cpuUsPerRequest')),
        failures(test),
      ];
    });
    console.log(
      markdownTable(
        ['overhead', `${w.rate} with / without (medians)`, `${w.rate} with ÷ without`, `CPU µs/${w.unit} with / without`, 'CPU µs added', `CPU/${w.unit} with ÷ without`, `${w.failures} (with)`],
        rows,
        'lrrrrrr',
      ),
    );
    console.log('');
  }

  const pressures = runs.map((r) => r.cpuPressure).filter(Number.isFinite);
  if (pressures.length > 0) {
    console.log(
      `CPU pressure (share of each run's time some task waited for a CPU, /proc/pressure/cpu): median ${Math.round(100 * median(pressures))}%, ` +
        `min–max ${Math.round(100 * min(pressures))}–${Math.round(100 * max(pressures))}%. Near 0% the machine was quiet; well above it, ` +
        `other processes shared the cores and ${w.rate} says more about them than about the servers (CPU µs/${w.unit} holds up better).\n`,
    );
  }
  console.log('### Peak RSS after the runs (VmHWM)\n');
  console.log(markdownTable(['server', 'peak RSS MiB', 'RSS now MiB'], serverDefs.map((s) => [s.label, fixed(memory[s.name].peakRssKiB / 1024, 1), fixed(memory[s.name].rssKiB / 1024, 1)]), 'lrr'));

  const targets = suite.targets ? safeTargets(suite, m) : [];
  if (targets.length > 0) {
    console.log(`\n### Targets (issue ${suite.issue})\n`);
    console.log(markdownTable(['target', 'measured (median of per-round ratios, min–max)', 'verdict'], targets.map((t) => [t.target, t.measured, `**${t.verdict}**`]), 'lll'));
  }
  return { targets };
}

/** Targets need every series they name; with `--only` some may be missing. */
function safeTargets(suite, m) {
  try {
    return suite.targets(m);
  } catch (err) {
    console.log(`\n(targets not evaluated: ${err.message})`);
    return [];
  }
}
