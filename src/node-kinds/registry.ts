// Every node kind's rules, by kind: the one table validation, CLI and MCP read. The compiler holds it
// complete: a kind named in the catalogue without a module here does not build.
import { agentKind } from './agent';
import { approvalKind } from './approval';
import type { NodeKind } from './catalogue';
import { checkKind } from './check';
import { gateKind } from './gate';
import type { NodeKindRules } from './kind';
import { quorumKind } from './quorum';
import { routerKind } from './router';

export const NODE_KIND_RULES: Readonly<Record<NodeKind, NodeKindRules>> = {
  agent: agentKind,
  check: checkKind,
  gate: gateKind,
  router: routerKind,
  approval: approvalKind,
  quorum: quorumKind,
};
