// The domain: zod schemas and types shared by store, graph, engine, CLI and MCP.
export * from './common';
export * from './node';
export * from './edge';
export * from './ensemble';
export * from './loop';
export * from './hooks';
export * from './spec';
export * from './blueprint';
export * from './node-run';
export * from './export-document';
export * from './errors';
export * from './design';
export * from './defaults';
export * from './schedule';
export * from './sandbox';
export * from './notify';
