// fast-check generators of what authors send canopy: loop files, node configs and specs, mostly
// malformed, often almost right, so properties reach the checks deep inside as well as the first ones.
import fc from 'fast-check';

/** Text with the characters that break names, terminals and stores: controls, NUL, ESC, surrounding spaces. */
export const awkwardText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'a', ' a', 'a ', 'x\ny', 'clear\u001b[2J', 'nul\u0000byte', 'a/b', 'ünï ✓', '{{spec_name}}', '{{nope}}'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** Names that often collide with each other, so edges find their ends, mixed with awkward ones. */
export const nameArb: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'b', 'c', 'review') }, awkwardText);

/** Names every entity accepts, mostly distinct from each other. */
export const validNameArb: fc.Arbitrary<string> = fc.stringMatching(/^[a-z][a-z0-9 _-]{0,10}[a-z0-9]$/);

/** Valid check configs, some with a placeholder. */
export const checkConfigArb = fc.record(
  { command: fc.constantFrom('true', 'false', 'echo "{{spec_name}}"'), timeout_minutes: fc.integer({ min: 1, max: 60 }) },
  { requiredKeys: ['command'] },
);

const numberArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -2, max: 2000 }),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, 1e300, '5'),
);

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** Configs shaped like each kind's, with wrong values and stray keys now and then. */
export const configArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      command: fc.oneof(fc.constantFrom('true', 'false', 'echo "{{spec_name}}"', 'echo {{unknown}}'), awkwardText),
      timeout_minutes: numberArb,
      max_iterations: numberArb,
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      platform: optional(awkwardText),
      prompt_template: fc.oneof(fc.constantFrom('do {{spec_content}}', '{{previous_feedback}}', '{{bogus}}'), awkwardText),
      commit_rights: fc.oneof(fc.boolean(), awkwardText),
      require_report: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    { output_contains: awkwardText, output_matches: fc.constantFrom('ok', '(', '[a-', '^\\d+$'), output_not_contains: awkwardText },
    { requiredKeys: [] },
  ),
  fc.record(
    { routes: fc.dictionary(awkwardText, fc.array(awkwardText, { maxLength: 2 }), { maxKeys: 3 }), fallback: awkwardText },
    { requiredKeys: [] },
  ),
  fc.record({ min_pass: numberArb }),
  fc.dictionary(awkwardText, fc.anything(), { maxKeys: 3 }),
  fc.anything(),
);

export const kindArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('agent', 'check', 'gate', 'router') },
  fc.constantFrom('quorum', 'Check', '', 5),
);

const nodeArb = fc.oneof(
  { weight: 8, arbitrary: fc.record({ name: nameArb, kind: kindArb, position: numberArb, config: configArb }) },
  fc.anything(),
);

const edgeArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        source: nameArb,
        target: nameArb,
        condition: fc.oneof(fc.constantFrom('pass', 'fail', 'always', 'bug', ''), awkwardText),
        type: fc.constantFrom('flow', 'loopback', 'tool', 'agent_result', 'sideways'),
      },
      { requiredKeys: ['source', 'target', 'condition'] },
    ),
  },
  fc.anything(),
);

const ensembleArb = fc.record(
  {
    name: nameArb,
    prompt_template: awkwardText,
    members: fc.array(fc.record({ platform: optional(awkwardText), model: optional(awkwardText) }, { requiredKeys: [] }), { maxLength: 9 }),
    min_pass: numberArb,
    entry_from_node: nameArb,
    on_pass_to: nameArb,
    straggler_timeout_minutes: numberArb,
    quorum_grace_minutes: numberArb,
  },
  { requiredKeys: ['name', 'prompt_template', 'members'] },
);

const NODE_NAMES = ['a', 'b', 'c', 'd'];

export interface CheckDesign {
  format_version: 1;
  name: string;
  settings: { max_iterations: number };
  nodes: { name: string; kind: 'check'; position: number; config: { command: string; timeout_minutes: number } }[];
  edges: { source: string; target: string; condition: string; type: 'flow' | 'loopback' }[];
}

/**
 * Designs of 1 to 4 checks that pass or fail (`true`/`false`), wired by pass/fail/always edges:
 * forward edges flow, backward ones loop back. Most validate; some do not (a loopback whose head
 * is no ancestor of its tail), which the validator must refuse.
 */
export const checkDesignArb: fc.Arbitrary<CheckDesign> = fc.integer({ min: 1, max: 4 }).chain((count) =>
  fc
    .record({
      commands: fc.array(fc.constantFrom('true', 'false'), { minLength: count, maxLength: count }),
      wires: fc.array(
        fc.record({
          source: fc.nat(count - 1),
          target: fc.nat(count - 1),
          condition: fc.constantFrom('pass', 'fail', 'always'),
        }),
        { maxLength: count + 1 },
      ),
      budget: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ commands, wires, budget }) => {
      // One edge per outcome of a node, and `always` alone: two edges matching one outcome are refused.
      const kept = wires.filter(
        (wire, index) =>
          wires.findIndex(
            (other) =>
              other.source === wire.source &&
              (other.condition === wire.condition || other.condition === 'always' || wire.condition === 'always'),
          ) === index,
      );
      return {
        format_version: 1 as const,
        name: 'generated',
        settings: { max_iterations: budget },
        nodes: commands.map((command, index) => ({
          name: NODE_NAMES[index],
          kind: 'check' as const,
          position: index + 1,
          config: { command, timeout_minutes: 1 },
        })),
        edges: kept.map((wire) => ({
          source: NODE_NAMES[wire.source],
          target: NODE_NAMES[wire.target],
          condition: wire.condition,
          type: wire.target > wire.source ? ('flow' as const) : ('loopback' as const),
        })),
      };
    }),
);

type Mutation = (document: CheckDesign, value: unknown, at: number) => unknown;

/** One field of an almost valid file made wrong, so the checks behind the first ones are reached too. */
const MUTATIONS: Mutation[] = [
  (d, value) => ({ ...d, name: value }),
  (d, value) => ({ ...d, format_version: value }),
  (d, value) => ({ ...d, settings: { max_iterations: value } }),
  (d, value) => ({ ...d, description: value }),
  (d, value) => ({ ...d, surprise: value }),
  (d, value, at) => ({ ...d, nodes: d.nodes.map((node, i) => (i === at % d.nodes.length ? { ...node, name: value } : node)) }),
  (d, value, at) => ({ ...d, nodes: d.nodes.map((node, i) => (i === at % d.nodes.length ? { ...node, kind: value } : node)) }),
  (d, value, at) => ({ ...d, nodes: d.nodes.map((node, i) => (i === at % d.nodes.length ? { ...node, position: value } : node)) }),
  (d, value, at) => ({ ...d, nodes: d.nodes.map((node, i) => (i === at % d.nodes.length ? { ...node, config: value } : node)) }),
  (d, value, at) => ({
    ...d,
    nodes: d.nodes.map((node, i) => (i === at % d.nodes.length ? { ...node, config: { ...node.config, command: value } } : node)),
  }),
  (d, value, at) => ({
    ...d,
    edges: d.edges.map((edge, i) => (i === at % Math.max(1, d.edges.length) ? { ...edge, source: value } : edge)),
  }),
  (d, value, at) => ({
    ...d,
    edges: d.edges.map((edge, i) => (i === at % Math.max(1, d.edges.length) ? { ...edge, condition: value } : edge)),
  }),
  (d, value) => ({ ...d, edges: [...d.edges, { source: 'a', target: value, condition: 'pass' }] }),
  (d, value) => ({ ...d, ensembles: [{ name: value, prompt_template: 'p', members: [{}, {}], entry_from_node: 'a' }] }),
];

const fieldValueArb: fc.Arbitrary<unknown> = fc.oneof(awkwardText, numberArb, configArb, fc.constantFrom(null, undefined, true, [], {}));

/** A loop file as loop_import receives it: valid, almost valid, wild, its JSON text, or text that is not JSON. */
export const importDocumentArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: checkDesignArb },
  {
    weight: 6,
    arbitrary: fc
      .tuple(checkDesignArb, fc.nat(MUTATIONS.length - 1), fieldValueArb, fc.nat())
      .map(([document, mutation, value, at]) => MUTATIONS[mutation](document, value, at)),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        format_version: fc.constantFrom(1, 1, 2, 2, 3, '1'),
        name: nameArb,
        description: fc.oneof(awkwardText, fc.integer()),
        settings: fc.oneof(fc.record({ max_iterations: numberArb }, { requiredKeys: [] }), fc.anything()),
        nodes: fc.array(nodeArb, { maxLength: 5 }),
        edges: fc.array(edgeArb, { maxLength: 5 }),
        ensembles: fc.array(ensembleArb, { maxLength: 2 }),
      },
      { requiredKeys: ['format_version', 'name', 'nodes', 'edges'] },
    ),
  },
  checkDesignArb.map((document) => JSON.stringify(document)),
  fc.json(),
  fc.string().map((text) => `{"format_version": 1, ${text}`),
);
