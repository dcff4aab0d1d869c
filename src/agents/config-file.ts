// Where a canopy home keeps config.json (agent platforms and worker settings; it may hold API keys),
// apart from its schema, so that finding the file does not build the schema.
import path from 'node:path';

export function configFilePath(home: string): string {
  return path.join(home, 'config.json');
}
