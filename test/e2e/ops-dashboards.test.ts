/**
 * The Grafana dashboard and Prometheus alert rules under ops/, against real Prometheus
 * (Debian's package `prometheus`) and a real dev node process:
 *
 * - `promtool check rules` finds nothing in the rule files and `promtool test rules` passes
 *   their unit tests (ops/prometheus/weft-alerts.test.yml);
 * - the dashboard is one Grafana 10/11 dashboard: a Prometheus datasource variable every
 *   panel and query uses, the job and node variables, panels on the 24-column grid;
 * - Prometheus, scraping a dev node with the rules loaded, evaluates every rule without
 *   error, answers every panel query and the variables' label_values with data (the few
 *   panels that have none on a lone PoA node are named, with why), and no alert is pending
 *   or firing on the healthy node — nor does any alert's expression return a series;
 * - the same on a 3-node CFT devnet, where the network panels (finality lag, peers, P2P
 *   traffic, propagation) have data too; a node stopped there is named by WeftNodeDown's
 *   expression.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PrometheusServer } from '../support/prometheus.js';
import { Devnet } from '../../devkit/network.js';
import { NodeFleet, until } from './support.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const RULES_DIR = join(REPO, 'ops', 'prometheus');
const RULE_FILES = readdirSync(RULES_DIR)
  .filter((f) => f.endsWith('.yml') && !f.endsWith('.test.yml'))
  .map((f) => join(RULES_DIR, f));
const DASHBOARD = join(REPO, 'ops', 'grafana', 'weft.json');
const fleet = new NodeFleet();

interface Target {
  readonly refId: string;
  readonly expr: string;
  readonly datasource: { readonly type: string; readonly uid: string };
}
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly targets?: readonly Target[];
}
interface Variable {
  readonly type: string;
  readonly name: string;
  readonly query: string | { readonly query: string };
  readonly datasource?: { readonly type: string; readonly uid: string };
}
interface Dashboard {
  readonly title: string;
  readonly uid: string;
  readonly schemaVersion: number;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly Variable[] };
}

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** What Grafana puts for the dashboard's variables: the test's job, every node, a range of a few scrapes. */
const VARIABLES: Readonly<Record<string, string>> = { job: 'weft', instance: '.*', __rate_interval: '1m', __interval: '1m' };

/** A panel query as Grafana sends it: the variables replaced; an unknown variable fails. */
function expand(expr: string): string {
  return expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    const value = VARIABLES[name];
    assert.notEqual(value, undefined, `unknown variable ${whole} in ${expr}`);
    return value!;
  });
}

/**
 * Panels without data on a lone PoA dev node just scraped, and why; every other panel query
 * must return a series.
 */
const NO_DATA_ON_A_LONE_DEV_NODE: Readonly<Record<string, string>> = {
  'Skipped rounds (1h)': 'compares with an hour ago: Prometheus has scraped for a minute',
  'CFT finality lag': 'CFT only; the dev chain is PoA',
  'Skipped rounds': 'only intervals with a skipped round, and the lone miner skips none',
  'P2P traffic': 'series per message code from the first message, and a node without peers has none',
};

function alertRules(): Array<{ readonly alert: string; readonly expr: string }> {
  const rules: Array<{ alert: string; expr: string }> = [];
  for (const file of RULE_FILES) {
    // Each alert is written `- alert: <name>` with its one-line `expr:` next (promtool's count of rules checks none is missed).
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*- alert: (\S+)\n\s*expr: (.+)$/gm)) rules.push({ alert: m[1]!, expr: m[2]! });
  }
  return rules;
}

/** Sends every panel query of `dashboard` as Grafana would (an error answer fails); the titles, sorted, of the panels none of whose queries returned a series. */
async function panelsWithoutData(prometheus: PrometheusServer, dashboard: Dashboard): Promise<string[]> {
  const empty: string[] = [];
  for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
    const answers = await Promise.all(
      panel.targets!.map(async (t) => {
        const expr = expand(t.expr);
        const answer = await prometheus.query(expr);
        assert.equal(answer?.status, 'success', `${panel.title} ${t.refId}: ${expr}: ${answer?.errorType}: ${answer?.error}`);
        return answer.data.result;
      }),
    );
    if (answers.every((result) => result.length === 0)) empty.push(panel.title);
  }
  return empty.sort();
}

/**
 * Once Prometheus has evaluated every rule: all of the files' rules loaded, none in error, no
 * alert pending or firing — and, stricter than the state (which waits out `for:`), no alert's
 * expression returns a series.
 */
async function expectQuietRules(prometheus: PrometheusServer, what: string): Promise<void> {
  type Rule = { name: string; health: string; lastError?: string; state: string };
  const rules = await until(
    'every rule evaluated',
    async () => {
      const answer = await prometheus.api<{ groups: Array<{ rules: Rule[] }> }>('/api/v1/rules');
      const all = answer?.data.groups.flatMap((g) => g.rules) ?? [];
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    },
    30_000,
    500,
  );
  const names = alertRules().map((r) => r.alert);
  assert.deepEqual(rules.map((r) => r.name).sort(), names.sort(), 'every rule of the files is loaded');
  assert.deepEqual(
    rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`),
    [],
    'no rule fails to evaluate',
  );
  assert.deepEqual(
    rules.filter((r) => r.state !== 'inactive').map((r) => `${r.name}: ${r.state}`),
    [],
    `no alert pending or firing on ${what}`,
  );
  for (const rule of alertRules()) assert.deepEqual(await prometheus.vector(rule.expr), [], `${rule.alert} matches nothing on ${what}`);
}

describe('ops/: the alert rules and the Grafana dashboard', () => {
  it('promtool checks the rule files and passes their unit tests', () => {
    assert.ok(RULE_FILES.length >= 1);
    const check = spawnSync('promtool', ['check', 'rules', ...RULE_FILES], { encoding: 'utf8' });
    assert.equal(check.error, undefined, 'promtool runs (Debian package prometheus)');
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    const lines = `${check.stdout}${check.stderr}`.split('\n').filter((l) => l.trim() !== '');
    assert.deepEqual(
      lines.filter((l) => !/^Checking /.test(l) && !/^\s*SUCCESS: \d+ rules found$/.test(l)),
      [],
      'no finding',
    );
    const found = lines.map((l) => /SUCCESS: (\d+) rules found/.exec(l)?.[1]).filter((n) => n !== undefined);
    assert.equal(
      found.map(Number).reduce((a, b) => a + b, 0),
      alertRules().length,
      'every rule is an alert this test reads',
    );

    const unit = spawnSync('promtool', ['test', 'rules', 'weft-alerts.test.yml'], { cwd: RULES_DIR, encoding: 'utf8' });
    assert.equal(unit.status, 0, `${unit.stdout}${unit.stderr}`);
    assert.match(unit.stdout, /SUCCESS/);
  });

  it('the dashboard: one Prometheus datasource variable for every query, job and node variables, panels on the grid', () => {
    const d = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
    assert.ok(d.schemaVersion >= 36, 'a Grafana 10/11 dashboard');
    assert.equal(d.uid, 'weft-network-nodes');
    assert.deepEqual(
      d.templating.list.map((v) => [v.type, v.name]),
      [
        ['datasource', 'datasource'],
        ['query', 'job'],
        ['query', 'instance'],
      ],
    );
    for (const v of d.templating.list.slice(1)) assert.deepEqual(v.datasource, DATASOURCE, v.name);
    const ids = d.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    const queried = d.panels.filter((p) => p.type !== 'row');
    assert.ok(queried.length >= 20);
    for (const p of d.panels) {
      assert.ok(p.gridPos.x >= 0 && p.gridPos.w > 0 && p.gridPos.x + p.gridPos.w <= 24 && p.gridPos.h > 0, `${p.title}: on the 24-column grid`);
    }
    for (const p of queried) {
      assert.deepEqual(p.datasource, DATASOURCE, p.title);
      assert.ok((p.targets ?? []).length >= 1, `${p.title} has a query`);
      for (const t of p.targets!) {
        assert.deepEqual(t.datasource, DATASOURCE, `${p.title} ${t.refId}`);
        assert.ok(t.expr.trim() !== '', `${p.title} ${t.refId}`);
      }
    }
  });

  it(
    'Prometheus scraping a dev node: every rule evaluates, every panel query answers with data, no alert on the healthy node',
    { timeout: 300_000 },
    async () => {
      const node = await fleet.start();
      const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
      const prometheus = await PrometheusServer.start({ dir: fleet.tempDir('weft-prometheus-'), targets: [new URL(node.url).host], ruleFiles: RULE_FILES });
      try {
        await until('Prometheus to scrape the node', async () => ((await prometheus.vector('up == 1')).length === 1 ? true : undefined), 60_000);
        // A few scrapes and blocks, so rate() and the rules' windows have samples.
        const height = Number((await prometheus.vector('weft_chain_height'))[0]!.value[1]);
        await until(
          'two more blocks, scraped',
          async () => (Number((await prometheus.vector('weft_chain_height'))[0]?.value[1]) >= height + 2 ? true : undefined),
          60_000,
          500,
        );

        await expectQuietRules(prometheus, 'the healthy node');

        // The variables: label_values(<selector>, <label>) lists the job and the node.
        for (const v of dashboard.templating.list.filter((v) => v.type === 'query')) {
          const q = typeof v.query === 'string' ? v.query : v.query.query;
          const m = /^label_values\((.+), (\w+)\)$/.exec(q);
          assert.ok(m !== null, `${v.name}: label_values(selector, label)`);
          const values = (await prometheus.vector(expand(m[1]!))).map((s) => s.metric[m[2]!]);
          assert.deepEqual(values, [v.name === 'job' ? 'weft' : new URL(node.url).host], v.name);
        }

        // Every panel query: answered (a parse or evaluation error fails), with data unless named above.
        const empty = await panelsWithoutData(prometheus, dashboard);
        assert.deepEqual(empty, Object.keys(NO_DATA_ON_A_LONE_DEV_NODE).sort(), 'the panels without data are those named, for the reasons given');
        // Those the issue names have data: height, peers (0 is data), pool, event loop, disk.
        for (const title of ['Height', 'Peers', 'Pool transactions', 'Event-loop lag', 'Data directory free']) assert.ok(!empty.includes(title), title);
      } finally {
        await prometheus.stop();
      }
    },
  );

  it(
    'Prometheus scraping a 3-node CFT devnet: the network panels (finality lag, peers, P2P, propagation) have data, no alert fires; a node stopped is WeftNodeDown',
    { timeout: 300_000 },
    async () => {
      const net = await Devnet.create({
        nodes: 3,
        consensus: 'cft',
        roundDurationMs: 3000,
        syncDurationMs: 1000,
        finalizationTimeoutMs: 2000,
        microBlockIntervalMs: 500,
        register: false,
      });
      const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
      let prometheus: PrometheusServer | undefined;
      try {
        await net.startAll(90_000);
        await net.meshed(30_000);
        const targets = net.nodes.map((n) => new URL(n.url).host);
        prometheus = await PrometheusServer.start({ dir: fleet.tempDir('weft-prometheus-'), targets, ruleFiles: RULE_FILES });
        const p = prometheus;
        await until('Prometheus to scrape the nodes', async () => ((await p.vector('up == 1')).length === 3 ? true : undefined), 60_000);
        // Blocks finalised while scraped: the last final height rises on every node.
        const final = async (): Promise<number[]> => (await p.vector('weft_chain_last_final_height')).map((s) => Number(s.value[1]));
        const start = Math.max(...(await final()));
        await until(
          'two more final blocks, scraped',
          async () => ((await final()).length === 3 && Math.min(...(await final())) >= start + 2 ? true : undefined),
          90_000,
          500,
        );

        await expectQuietRules(p, 'the healthy network');
        const empty = await panelsWithoutData(p, dashboard);
        for (const title of ['CFT finality lag', 'Peers', 'P2P traffic', 'Propagation p99', 'Blocks behind the highest node', 'Height', 'Min peers'])
          assert.ok(!empty.includes(title), `${title} has data`);
        assert.deepEqual(
          (await p.vector('weft_network_peers_connected')).map((s) => Number(s.value[1])),
          [2, 2, 2],
          'a full mesh',
        );

        // One node stopped: its scrape fails, and the alert's expression names it (the alert fires after its 2 minutes).
        const stopped = net.nodes[2]!;
        await stopped.stop();
        const down = await until(
          'the stopped node to be down',
          async () => {
            const v = await p.vector(alertRules().find((r) => r.alert === 'WeftNodeDown')!.expr);
            return v.length > 0 ? v : undefined;
          },
          30_000,
          500,
        );
        assert.deepEqual(
          down.map((s) => s.metric['instance']),
          [new URL(stopped.url).host],
        );
      } finally {
        await prometheus?.stop();
        await net.dispose();
      }
    },
  );
});
