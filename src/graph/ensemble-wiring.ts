// An ensemble's wiring as names: where its entries come from and where its quorum routes, in either of
// the forms a design may give them (the entry_from list, or the older single entry_from_node).
import type { DesignEnsemble } from '../domain/design';
import type { EnsembleEntry, EnsembleTarget } from '../domain/ensemble';

/** The node or ensemble an entry comes from. */
export function entrySource(entry: EnsembleEntry): string {
  return entry.node ?? entry.ensemble!;
}

/** The node or ensemble a quorum routes to. */
export function targetName(target: EnsembleTarget): string {
  return typeof target === 'string' ? target : target.ensemble;
}

/** An entry from the vertex `name`, written as the kind it is. */
export function entryFrom(name: string, condition: string | undefined, isEnsemble: (name: string) => boolean): EnsembleEntry {
  const source = isEnsemble(name) ? { ensemble: name } : { node: name };
  return condition === undefined ? source : { ...source, condition };
}

/** A route to the vertex `name`: a node by its name, an ensemble as {"ensemble": name}. */
export function targetTo(name: string, isEnsemble: (name: string) => boolean): EnsembleTarget {
  return isEnsemble(name) ? { ensemble: name } : name;
}

/** The names of the vertices wired into the ensemble: its entries' sources and the ensembles routing to it. */
export function wiredSources(ensemble: DesignEnsemble, ensembles: DesignEnsemble[]): string[] {
  const entries = [
    ...(ensemble.entry_from ?? []).map(entrySource),
    ...(ensemble.entry_from_node === undefined ? [] : [ensemble.entry_from_node]),
  ];
  const routing = ensembles.filter((other) =>
    [other.on_pass_to, other.on_fail_to].some((target) => target !== undefined && targetName(target) === ensemble.name),
  );
  return [...entries, ...routing.map((other) => other.name)];
}

/** The ensemble without its wiring: its members and settings. */
export function withoutWiring(ensemble: DesignEnsemble): DesignEnsemble {
  const { entry_from, entry_from_node, entry_condition, on_pass_to, on_fail_to, ...unit } = ensemble;
  return unit;
}
