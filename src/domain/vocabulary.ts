// The fixed words of canopy's model (statuses, kinds, events), kept free of schemas so the CLI can
// name them in its help and option choices without loading the validation that uses them.

export const SPEC_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;

export const EDGE_TYPES = ['flow', 'loopback', 'tool', 'agent_result'] as const;

export const HOOK_EVENTS = ['on_completed', 'on_failed', 'on_blocked', 'on_spec_completed'] as const;
