// The graph module's public API: pure functions the store, the clients and the workflows share.
export { loopBodies, type TypedEdge } from './loop-bodies';
export { validateDesign } from './validate-design';
export {
  AGENT_PLACEHOLDERS,
  CHECK_PLACEHOLDERS,
  HOOK_PLACEHOLDERS,
  hookVariable,
  placeholdersIn,
  unknownPlaceholders,
  renderTemplate,
  toShellScript,
  placeholderEnv,
} from './templates';
export {
  buildTopology,
  entryVertex,
  nextSteps,
  topologicalOrder,
  type Topology,
  type Vertex,
  type VertexKind,
  type Step,
} from './topology';
export { ensemblePosition } from './positions';
export { memberNodeName, quorumNodeName, ensembleOfInternalName } from './ensemble-names';
