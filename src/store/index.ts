// The store: open it with openDatabase, then pass the returned Kysely handle (or a transaction of
// it) to the repository functions. `db.destroy()` closes it.
export * from './database';
export * from './ids';
export * from './constraint-errors';
export * from './builtin-blueprints';
export * from './loops-repository';
export * from './graph-repository';
export * from './specs-repository';
export * from './queues-repository';
export * from './blueprints-repository';
export * from './node-runs-repository';
export * from './loop-runs-repository';
export * from './schedules-repository';
export * from './sandboxes-repository';
export * from './workdir-claims-repository';
