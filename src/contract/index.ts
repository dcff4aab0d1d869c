// What the loop-run workflow, its activities, the client and MCP share about a loop run: messages,
// inputs and outputs, outcomes and limits, defined once. Types and constants only (and the message
// definitions), so the workflow bundle can load it.
export * from './activities';
export * from './loop-run';
export * from './notifications';
export * from './scheduled-run';
export * from './workflow-version';
