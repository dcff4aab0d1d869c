// Defaults applied at run time to settings an author left out (stored configs keep only what was written).
export const DEFAULT_AGENT_TIMEOUT_MINUTES = 30;
export const DEFAULT_CHECK_TIMEOUT_MINUTES = 10;
export const DEFAULT_HOOK_TIMEOUT_MINUTES = 30;
export const DEFAULT_ENSEMBLE_CONCURRENCY = 4;
