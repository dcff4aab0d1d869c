// How people see a queue in the terminal.
import type { Queue } from '../../../domain/spec';

export function describeQueue(queue: Queue): string {
  const specs = queue.spec_ids.length ? queue.spec_ids.join(', ') : '(empty)';
  return `queue '${queue.name}' (${queue.id}): ${specs}`;
}
